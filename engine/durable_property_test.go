package engine_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"warren/engine"
)

var durableSeeds = flag.Int("durable.seeds", 0, "seeds for TestDurableLogProperty (0: the default for the mode)")

// TestDurableLogProperty is the durable log's oracle (durable.go): a
// broker that keeps a durable log restarts into the same state as one
// rebuilt from its last checkpoint and the records after it. The random
// workload of TestProperties runs on a broker with durable logging on;
// the records it writes are kept as a driver keeps them, a checkpoint
// (Save) replacing them whenever the broker asks for one, after settling
// the work in flight, as the server does. Every few steps both are
// restarted at the same time, the live broker's copy (Load(Save)) and a
// broker loaded from the checkpoint with the records applied, and what
// anyone can read of them (dumpReads: queues with their messages in
// order, exchanges, bindings, policies, users, totals, timers) must be
// the same.
//
// More seeds: go test -run TestDurableLogProperty -durable.seeds=200 ./engine/
func TestDurableLogProperty(t *testing.T) {
	seeds, steps := 24, 1200
	if testing.Short() {
		seeds, steps = 6, 500
	}
	if runtime.GOOS == "js" {
		seeds, steps = 4, 400
	}
	if *durableSeeds > 0 {
		seeds = *durableSeeds
	}
	for seed := 1; seed <= seeds; seed++ {
		t.Run("seed="+strconv.Itoa(seed), func(t *testing.T) {
			t.Parallel()
			runDurableLog(t, uint64(seed), steps)
		})
	}
}

// durableDriver keeps a broker's durable log as the server does: the
// records since the last checkpoint, and the checkpoint.
type durableDriver struct {
	base    []byte
	records [][]byte
	// checkpoints and records count what the run logged.
	checkpoints, logged int
}

// collect takes the broker's records, and a checkpoint when it asks for
// one, settling first if work is in flight (settle applies it to every
// broker the test keeps in step).
func (d *durableDriver) collect(b *engine.Broker, settle func()) {
	b.DrainDurable(func(rec []byte) {
		d.records = append(d.records, append([]byte(nil), rec...))
		d.logged++
	})
	if due, _ := b.DurableCheckpoint(); !due {
		return
	}
	if b.HasWorkInFlight() {
		settle()
		b.DrainDurable(func(rec []byte) {
			d.records = append(d.records, append([]byte(nil), rec...))
			d.logged++
		})
	}
	d.base, d.records = b.Save(), nil
	b.MarkCheckpointed()
	d.checkpoints++
}

// describe lists the records since the checkpoint.
func (d *durableDriver) describe() string {
	var sb strings.Builder
	for _, rec := range d.records {
		c, err := engine.DecodeCommand(rec)
		fmt.Fprintf(&sb, "  %T %+v %v\n", c, c, err)
	}
	return sb.String()
}

// recovered rebuilds the broker from the checkpoint and the records, as
// the server's Recover does, up to its restart.
func (d *durableDriver) recovered(t *testing.T) *engine.Broker {
	r, err := engine.Load(d.base)
	if err != nil {
		t.Fatalf("load the checkpoint: %v", err)
	}
	r.BeginDurableReplay()
	for i, rec := range d.records {
		c, err := engine.DecodeCommand(rec)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		r.Apply(c)
	}
	if n := r.DurableSkipped(); n > 0 {
		t.Fatalf("%d records about copies the recovered broker did not have\nrecords:\n%s", n, d.describe())
	}
	return r
}

// restartAt restarts b at at and lets it do what the restart left due.
func restartAt(b *engine.Broker, at engine.Time) {
	b.DrainCommands(func([]byte) {})
	b.Restart(at)
	b.Settle(at)
	b.DrainEvents(nil)
	b.DrainCommands(func([]byte) {})
}

func runDurableLog(t *testing.T, seed uint64, steps int) {
	r := rand.New(rand.NewPCG(seed, 0xd0ab1e))
	timeouts := []int64{0, -1, 5000}
	batches := []int{1, 2, 3, 0}
	cfg := engine.Config{Seed: seed, ConsumerTimeoutMs: timeouts[r.IntN(len(timeouts))], MaxBatch: batches[r.IntN(len(batches))], EpochMs: 1_700_000_000_000}
	w := &world{r: r, b: engine.New(cfg), twin: engine.New(cfg), m: newModel()}
	w.b.DrainEvents(nil)
	w.twin.DrainEvents(nil)
	w.b.EnableDurableLog()
	d := &durableDriver{base: w.b.Save()}
	step := 0
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("seed %d step %d: panic: %v\nrecent commands:\n%s", seed, step, p, w.recent())
		}
	}()
	settle := func() {
		now := w.b.Now()
		w.b.Settle(now)
		w.twin.Settle(now)
		w.b.DrainEvents(nil)
		w.twin.DrainEvents(nil)
		w.log("settle for a checkpoint", nil)
	}
	compared := 0
	for step = 1; step <= steps; step++ {
		w.pre = w.b.Snapshot()
		var desc string
		var err error
		if step > len(prelude) && r.IntN(25) == 0 {
			desc, err = w.saveExtraCommand()
		} else {
			desc, err = w.randomCommand(step)
		}
		w.log(desc, err)
		w.b.DrainEvents(nil)
		w.twin.DrainEvents(nil)
		d.collect(w.b, settle)
		if step%7 != 0 || w.b.HasWorkInFlight() {
			continue
		}
		compared++
		at := w.b.Now() + engine.Time(r.IntN(3)*5000)
		live, err := engine.Load(w.b.Save())
		if err != nil {
			t.Fatalf("seed %d step %d: Load: %v", seed, step, err)
		}
		rec := d.recovered(t)
		engine.AlignCounters(live, rec)
		restartAt(live, at)
		restartAt(rec, at)
		if a, b := durableDump(live), durableDump(rec); a != b {
			t.Fatalf("seed %d step %d (%s): restarted from the durable log (checkpoint + %d records) differs from restarted live:\n%s\nrecords:\n%s\nrecent commands:\n%s",
				seed, step, desc, len(d.records), diffLines(a, b), d.describe(), w.recent())
		}
	}
	t.Logf("seed %d: %d comparisons, %d checkpoints, %d records", seed, compared, d.checkpoints, d.logged)
}

// diffLines shows where two dumps part: the first differing part of
// each, split at the JSON's fields.
func diffLines(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-300)
	return "live:      ..." + a[from:min(len(a), i+300)] + "\nrecovered: ..." + b[from:min(len(b), i+300)]
}

// durableDump is dumpReads with the listings of queue and exchange names
// sorted: their order after a restart depends on where the transient
// queues and exchanges it deleted were listed (a deletion moves the last
// name into the gap), which is no part of what a restart keeps.
func durableDump(b *engine.Broker) string {
	var sb strings.Builder
	snap, err := json.Marshal(b.Snapshot())
	if err != nil {
		panic(err)
	}
	sb.Write(snap)
	fmt.Fprintf(&sb, "\ntotals %+v timers %+v conns %v chans %v", b.MessageTotals(), b.Timers(), b.ConnectionRefs(), b.ChannelRefs())
	fmt.Fprintf(&sb, "\nusers %+v perms %+v topics %+v", b.Users(), b.UserPermissions(), b.TopicPermissions())
	for _, v := range b.Vhosts() {
		tot, _ := b.VhostTotals(v)
		qs, xs := flatten(b.QueueNames(v)), flatten(b.ExchangeNames(v))
		slices.Sort(qs)
		slices.Sort(xs)
		fmt.Fprintf(&sb, "\nvhost %q %+v queues %v exchanges %v bindings %+v", v, tot, qs, xs, b.Bindings(v))
	}
	return sb.String()
}

func flatten(chunks [][]string) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}
