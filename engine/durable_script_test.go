package engine_test

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/engine"
	"warren/engine/script"
)

// TestDurableLogScripts runs every testdata/*.txt script on brokers that
// keep a durable log (durable.go), as a server with a data directory
// does, and checks two things. The durable log changes nothing a client
// sees: every case prints what it expects. And at every restart line,
// and at the end of every case, a broker rebuilt from the case's first
// snapshot and every record since (restarts' among them, as the server
// logs no checkpoint at a start) restarts into the state the live
// broker restarts into (durableDump), as TestDurableLogProperty checks
// for random workloads; restart.txt's cases are the restart's rules one
// by one.
func TestDurableLogScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	restarts := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := script.ParseCases(string(data))
		if err != nil {
			t.Fatal(err)
		}
		var r *script.Runner
		var d *durableDriver
		for _, c := range cases {
			if c.Directive == "new" || r == nil {
				r = script.New(engine.Config{Seed: 1})
				r.B.EnableDurableLog()
				d = &durableDriver{base: r.B.Save()}
			}
			var sb strings.Builder
			for _, line := range c.Input {
				cmd, _ := script.Parse(line)
				restart := cmd != nil && cmd.Verb == "restart"
				var rec *engine.Broker
				var next uint64
				if restart {
					rec, next = d.recovered(t), engine.NextMsgID(r.B)
				}
				o, err := r.Exec(line)
				sb.WriteString(o)
				if err != nil {
					sb.WriteString("script error: " + err.Error() + "\n")
				}
				if restart {
					restarts++
					engine.SetNextMsgID(rec, next)
					restartAt(rec, r.B.Now())
					if a, b := durableDump(r.B), durableDump(rec); a != b {
						t.Errorf("%s:%d: %q: restarted from the durable log differs from restarted live:\n%s\nrecords:\n%s", f, c.Line, line, diffLines(a, b), d.describe())
					}
					// The restart's own changes are records, as the
					// server logs them as it starts: the next restart
					// line replays them with the rest.
				}
				d.collect(r.B)
			}
			if got := sb.String(); got != c.Expected {
				t.Errorf("%s:%d: with a durable log the output differs\n--- got\n%s--- want\n%s", f, c.Line, got, c.Expected)
			}
			if r.B.HasWorkInFlight() {
				continue
			}
			live, err := engine.Load(r.B.Save())
			if err != nil {
				t.Fatal(err)
			}
			rec := d.recovered(t)
			engine.AlignCounters(live, rec)
			restartAt(live, r.B.Now())
			restartAt(rec, r.B.Now())
			if a, b := durableDump(live), durableDump(rec); a != b {
				t.Errorf("%s:%d: at the end: restarted from the durable log differs from restarted live:\n%s\nrecords:\n%s", f, c.Line, diffLines(a, b), d.describe())
			}
		}
	}
	t.Logf("%d restart lines compared", restarts)
}

// goldenDurable is the SHA-256 of the durable log of one long random run, checked natively and under
// GOOS=js GOARCH=wasm, as goldenTrace is for events: the same commands
// write the same bytes on every platform.
const goldenDurable = "testdata/durable.sha256"

func TestSameDurableLogOnEveryPlatform(t *testing.T) {
	const seed, steps = 4242, 1500
	r := rand.New(rand.NewPCG(seed, 0xd0ab1e))
	cfg := engine.Config{Seed: seed, ConsumerTimeoutMs: 5000, EpochMs: 1_700_000_000_000}
	w := &world{r: r, b: engine.New(cfg), twin: engine.New(cfg), m: newModel()}
	w.b.DrainEvents(nil)
	w.twin.DrainEvents(nil)
	w.b.EnableDurableLog()
	h := sha256.New()
	d := &durableDriver{}
	for step := 1; step <= steps; step++ {
		w.pre = w.b.Snapshot()
		desc, err := w.randomCommand(step)
		w.log(desc, err)
		w.b.DrainEvents(nil)
		w.twin.DrainEvents(nil)
		n := len(d.records)
		d.collect(w.b)
		for _, rec := range d.records[n:] {
			h.Write(rec)
		}
	}
	got := hex.EncodeToString(h.Sum(nil))
	if *rewrite {
		if err := os.WriteFile(goldenDurable, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenDurable)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if strings.TrimSpace(string(want)) != got {
		t.Fatalf("durable log hash %s, golden %s: the durable log changed (or differs on this platform)", got, strings.TrimSpace(string(want)))
	}
	t.Logf("%d records", d.logged)
}
