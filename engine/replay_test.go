package engine_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"warren/engine"
	"warren/engine/script"
)

// recorder collects what a recording broker did: its command records and
// a dump of its events.
type recorder struct {
	recs   [][]byte
	events strings.Builder
}

func (r *recorder) take(b *engine.Broker, events []engine.Event) {
	dumpEvents(&r.events, events)
	b.DrainCommands(func(rec []byte) { r.recs = append(r.recs, append([]byte(nil), rec...)) })
}

func dumpEvents(sb *strings.Builder, events []engine.Event) {
	for _, e := range events {
		sb.WriteString(engine.FormatDuration(int64(e.Time)) + " " + e.String() + "\n")
	}
}

// checkReplay applies the recorded commands, decoded, to a new broker made
// from cfg and checks that it emits the same events and ends in the same
// state as the original.
func checkReplay(t *testing.T, what string, cfg engine.Config, orig *engine.Broker, r *recorder) {
	t.Helper()
	// The replay runs under the original's whole configuration, recording
	// included (cfg is the same but for RecordCommands), so that the two
	// save the same bytes.
	cfg = orig.Config()
	b := engine.New(cfg)
	var sb strings.Builder
	var events []engine.Event
	for i, rec := range r.recs {
		c, err := engine.DecodeCommand(rec)
		if err != nil {
			t.Fatalf("%s: record %d: %v", what, i, err)
		}
		b.Apply(c)
		events = b.DrainEvents(events[:0])
		dumpEvents(&sb, events)
	}
	if got, want := sb.String(), r.events.String(); got != want {
		t.Fatalf("%s: the replay's events differ from the original's at line %d\n--- replay\n%s\n--- original\n%s",
			what, firstDiffLine(got, want), tail(got), tail(want))
	}
	if got, want := b.Snapshot(), orig.Snapshot(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: the replay's snapshot differs from the original's\n--- replay\n%+v\n--- original\n%+v", what, got, want)
	}
	if got, want := b.Now(), orig.Now(); got != want {
		t.Fatalf("%s: the replay's clock is %d, the original's %d", what, got, want)
	}
	// The whole state, not only what a view shows: a replica that
	// differs in anything Save keeps would fail a session's state hash.
	for _, x := range []*engine.Broker{b, orig} {
		x.DrainCommands(func([]byte) {})
		x.DrainEvents(nil)
	}
	if got, want := b.Save(), orig.Save(); !bytes.Equal(got, want) {
		t.Fatalf("%s: the replay saves %d bytes that differ from the original's %d", what, len(got), len(want))
	}
}

func firstDiffLine(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// TestReplayScenarios runs every testdata script on a recording broker and
// replays its command log.
func TestReplayScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Seed: 1}
	recCfg := cfg
	recCfg.RecordCommands = true
	records := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := script.ParseCases(string(data))
		if err != nil {
			t.Fatal(err)
		}
		var run *script.Runner
		var rec *recorder
		check := func(line int) {
			if run != nil {
				checkReplay(t, f+" up to line "+strconv.Itoa(line), cfg, run.B, rec)
				records += len(rec.recs)
			}
		}
		for _, c := range cases {
			if c.Directive == "new" || run == nil {
				check(c.Line)
				run, rec = script.New(recCfg), &recorder{}
			}
			for _, line := range c.Input {
				run.Exec(line) // script errors are the scenario test's business
				rec.take(run.B, run.LineEvents())
			}
		}
		check(len(cases))
	}
	t.Logf("%d scripts replayed, %d command records", len(files), records)
}

// TestReplayRandomRuns replays the property test's random workloads (with
// the reads a driver makes between commands, which must not matter), with
// small batches so that continuations are in the log too.
func TestReplayRandomRuns(t *testing.T) {
	steps := 1500
	if testing.Short() {
		steps = 300
	}
	for _, seed := range []uint64{1, 2, 3, 4242} {
		for _, timeout := range []int64{5000, -1} {
			r := rand.New(rand.NewPCG(seed, 0x5eed))
			cfg := engine.Config{Seed: seed, ConsumerTimeoutMs: timeout, MaxBatch: 4}
			recCfg := cfg
			recCfg.RecordCommands = true
			w := &world{r: r, b: engine.New(recCfg), twin: engine.New(cfg), m: newModel()}
			rec := &recorder{}
			var events []engine.Event
			take := func() {
				events = w.b.DrainEvents(events[:0])
				w.twin.DrainEvents(nil)
				rec.take(w.b, events)
				w.b.NextDeadline()
				w.post = w.b.Snapshot()
				w.m.applyAll(w, events)
			}
			take()
			for step := 1; step <= steps; step++ {
				w.pre = w.post
				w.randomCommand(step)
				take()
			}
			w.b.Settle(w.b.Now() + 3_600_000)
			take()
			checkReplay(t, "seed "+strconv.Itoa(int(seed)), cfg, w.b, rec)
		}
	}
}

// TestReadsDoNotChangeTheFuture runs the same commands twice, once with a
// NextDeadline read in the middle, which drops an idle consumer-timeout
// timer from the heap: the two brokers must still agree on which of two
// timers due at once fires first, since a replay of the commands cannot
// know what the driver read.
func TestReadsDoNotChangeTheFuture(t *testing.T) {
	run := func(read bool) string {
		b := engine.New(engine.Config{Seed: 1, ConsumerTimeoutMs: 1000})
		conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
		a, _ := b.OpenChannel(conn, 1)
		c, _ := b.OpenChannel(conn, 2)
		for _, q := range []string{"qa", "qc"} {
			b.QueueDeclare(a, engine.QueueDeclare{Queue: q})
		}
		b.BasicConsume(a, engine.BasicConsume{Queue: "qa", ConsumerTag: "a"})
		b.BasicConsume(c, engine.BasicConsume{Queue: "qc", ConsumerTag: "c"})
		b.BasicPublish(a, engine.BasicPublish{RoutingKey: "qa"}) // a's timer is armed
		b.Apply(engine.CmdBasicAck{Channel: a, DeliveryTag: 1})  // and idle
		b.BasicPublish(a, engine.BasicPublish{RoutingKey: "qc"}) // c's, due at the same time
		if read {
			b.NextDeadline()
		}
		b.BasicPublish(a, engine.BasicPublish{RoutingKey: "qa"}) // a's wakes
		var sb strings.Builder
		for _, tm := range b.Timers() {
			sb.WriteString(tm.Kind + " " + tm.Channel.String() + "\n")
		}
		return sb.String()
	}
	if without, with := run(false), run(true); without != with {
		t.Fatalf("a NextDeadline read changed the timers' order:\nwithout it\n%swith it\n%s", without, with)
	}
}
