package engine_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"warren/engine"
)

// sampleSnapshots runs the random generator for a while and saves the
// broker every few steps: snapshots with queues, unacked deliveries,
// timers and batched work in flight, for the tests below.
func sampleSnapshots(seed uint64, steps, every int) [][]byte {
	r := rand.New(rand.NewPCG(seed, 0xf022))
	cfg := engine.Config{Seed: seed, MaxBatch: 2, ConsumerTimeoutMs: 5000}
	w := &world{r: r, b: engine.New(cfg), twin: engine.New(cfg), m: newModel()}
	var out [][]byte
	for step := 1; step <= steps; step++ {
		w.pre = w.b.Snapshot()
		w.randomCommand(step)
		w.b.DrainEvents(nil)
		w.twin.DrainEvents(nil)
		if step%every == 0 {
			out = append(out, w.b.Save())
		}
	}
	return out
}

// TestLoadRejectsDamage checks that every truncation of a snapshot, a
// wrong magic and an unknown version are errors, not panics or brokers.
func TestLoadRejectsDamage(t *testing.T) {
	snaps := sampleSnapshots(3, 300, 100)
	data := snaps[len(snaps)-1]
	if _, err := engine.Load(data); err != nil {
		t.Fatalf("Load of a whole snapshot: %v", err)
	}
	for n := range len(data) {
		if b, err := engine.Load(data[:n]); err == nil || b != nil {
			t.Fatalf("Load of the first %d of %d bytes succeeded", n, len(data))
		}
	}
	bad := bytes.Clone(data)
	bad[0] = 'X'
	if _, err := engine.Load(bad); err == nil {
		t.Fatal("Load accepted a wrong magic")
	}
	bad = bytes.Clone(data)
	bad[4] = 99
	if _, err := engine.Load(bad); err == nil {
		t.Fatal("Load accepted version 99")
	}
	if _, err := engine.Load(append(bytes.Clone(data), 0)); err == nil {
		t.Fatal("Load accepted trailing bytes")
	}
}

// FuzzLoad feeds Load damaged snapshots: it must return an error or a
// broker, never panic; and a broker it accepts must save and load again.
//
//	go test -run XXX -fuzz FuzzLoad -fuzztime 60s ./engine/
func FuzzLoad(f *testing.F) {
	for _, s := range sampleSnapshots(5, 240, 60) {
		f.Add(s)
	}
	f.Add(engine.New(engine.Config{}).Save())
	f.Add([]byte("WRNS\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := engine.Load(data)
		if err != nil {
			return
		}
		again := b.Save()
		if _, err := engine.Load(again); err != nil {
			t.Fatalf("a broker Load accepted saved bytes it then refused: %v", err)
		}
	})
}
