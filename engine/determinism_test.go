package engine_test

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"warren/engine"
)

// goldenTrace is the SHA-256 of the event trace of one long random run. The
// same file is checked natively and under GOOS=js GOARCH=wasm (make
// wasm-test), so the two builds must produce byte-identical event streams.
// A deliberate behaviour change regenerates it with -rewrite.
const goldenTrace = "testdata/determinism.sha256"

func TestSameTraceOnEveryPlatform(t *testing.T) {
	const seed, steps = 4242, 1500
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	cfg := engine.Config{Seed: seed, ConsumerTimeoutMs: 5000}
	w := &world{r: r, b: engine.New(cfg), twin: engine.New(cfg), m: newModel()}
	h := sha256.New()
	var events []engine.Event
	record := func() {
		events = w.b.DrainEvents(events[:0])
		w.twin.DrainEvents(nil)
		for _, e := range events {
			h.Write([]byte(engine.FormatDuration(int64(e.Time)) + " " + e.String() + "\n"))
		}
		w.post = w.b.Snapshot()
		w.m.applyAll(w, events)
	}
	record()
	for step := 1; step <= steps; step++ {
		w.pre = w.post
		desc, err := w.randomCommand(step)
		w.log(desc, err)
		record()
	}
	got := hex.EncodeToString(h.Sum(nil))
	if *rewrite {
		if err := os.WriteFile(goldenTrace, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenTrace)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if strings.TrimSpace(string(want)) != got {
		t.Fatalf("event trace hash %s, golden %s: the engine's output changed (or differs on this platform)", got, strings.TrimSpace(string(want)))
	}
}
