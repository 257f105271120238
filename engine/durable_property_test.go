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
	"sync"
	"testing"

	"warren/engine"
)

var durableSeeds = flag.Int("durable.seeds", 0, "seeds for TestDurableLogProperty (0: the default for the mode)")

// TestDurableLogProperty is the durable log's oracle (durable.go): a
// broker that keeps a durable log restarts into the same state as one
// rebuilt from the snapshot it started from and the records after it.
// The random workload of TestProperties (policies trimming and re-timing
// durable queues, vhosts deleted and added again, restarts among them)
// runs on a broker with durable logging on; the records it writes are
// kept as a driver keeps them, never a checkpoint. Every few steps both
// are restarted at the same time, the live broker's copy (Load(Save))
// and a broker loaded from the snapshot with the records applied, and what
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
	var mu sync.Mutex
	kinds := map[string]int{}
	t.Run("seeds", func(t *testing.T) {
		for seed := 1; seed <= seeds; seed++ {
			t.Run("seed="+strconv.Itoa(seed), func(t *testing.T) {
				t.Parallel()
				d := runDurableLog(t, uint64(seed), steps)
				mu.Lock()
				defer mu.Unlock()
				for k, n := range d.kinds {
					kinds[k] += n
				}
			})
		}
	})
	// Records the workload never writes would pass vacuously. The full
	// native run checks it; the shorter runs (-short, and js/wasm, where
	// the same records must only come out the same) are too few steps to
	// reach every kind.
	t.Logf("records by kind: %v", kinds)
	if !t.Failed() && *durableSeeds == 0 && !testing.Short() && runtime.GOOS != "js" {
		for _, k := range []string{"DurablePut", "DurableTake", "DurableHold", "DurableDone", "DurableBuffer", "DurableClock",
			"DurableQueue", "DurableQueueGone", "DurableExchange", "DurableExchangeGone", "DurableBind", "DurableUnbind",
			"DurableDelay", "DurableRelease", "DurablePolicy", "DurableRetime", "DurableVhostGone"} {
			if kinds[k] == 0 {
				t.Errorf("no %s record in %d seeds × %d steps", k, seeds, steps)
			}
		}
	}
}

// durableDriver keeps a broker's durable log as the server does: the
// snapshot it started from (base), and the records since.
type durableDriver struct {
	base    []byte
	records [][]byte
	// logged counts the records; kinds counts them by kind.
	logged int
	kinds  map[string]int
}

func (d *durableDriver) keep(rec []byte) {
	d.records = append(d.records, append([]byte(nil), rec...))
	d.logged++
	if c, err := engine.DecodeCommand(rec); err == nil {
		if d.kinds == nil {
			d.kinds = map[string]int{}
		}
		d.kinds[engine.KindOf(c).String()]++
	}
}

// collect takes the broker's records.
func (d *durableDriver) collect(b *engine.Broker) { b.DrainDurable(d.keep) }

// describe lists the records since the base.
func (d *durableDriver) describe() string {
	var sb strings.Builder
	for _, rec := range d.records {
		c, err := engine.DecodeCommand(rec)
		fmt.Fprintf(&sb, "  %T %+v %v\n", c, c, err)
	}
	return sb.String()
}

// recovered rebuilds the broker from the base and the records, as
// the server's Recover does, up to its restart.
func (d *durableDriver) recovered(t *testing.T) *engine.Broker {
	r, err := engine.Load(d.base)
	if err != nil {
		t.Fatalf("load the base: %v", err)
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

func runDurableLog(t *testing.T, seed uint64, steps int) *durableDriver {
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
	compared := 0
	for step = 1; step <= steps; step++ {
		w.pre = w.b.Snapshot()
		var desc string
		var err error
		switch {
		case step > len(prelude) && r.IntN(25) == 0:
			desc, err = w.saveExtraCommand()
		case step > len(prelude) && r.IntN(12) == 0:
			desc, err = w.durableExtraCommand()
		default:
			desc, err = w.randomCommand(step)
		}
		w.log(desc, err)
		w.b.DrainEvents(nil)
		w.twin.DrainEvents(nil)
		d.collect(w.b)
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
			t.Fatalf("seed %d step %d (%s): restarted from the durable log (base + %d records) differs from restarted live:\n%s\nrecords:\n%s\nrecent commands:\n%s",
				seed, step, desc, len(d.records), diffLines(a, b), d.describe(), w.recent())
		}
	}
	t.Logf("seed %d: %d comparisons, %d records", seed, compared, d.logged)
	return d
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

// durableExtraCommand declares, binds and deletes durable exchanges, which
// TestProperties' workload never declares (its exchanges are transient):
// their records (DurableExchange, DurableExchangeGone, bindings between
// durable exchanges) need a workload that makes them.
func (w *world) durableExtraCommand() (string, error) {
	chans := w.channels()
	if len(chans) == 0 {
		return "no channel for a durable exchange", nil
	}
	id := chans[w.r.IntN(len(chans))].ID
	name := w.pick("dx.direct", "dx.fanout", "dx.delayed")
	switch w.r.IntN(5) {
	case 0, 1:
		d := engine.ExchangeDeclare{Exchange: name, Type: map[string]string{"dx.direct": "direct", "dx.fanout": "fanout", "dx.delayed": "x-delayed-message"}[name],
			Durable: true, AutoDelete: w.chance(0.3), Args: engine.Table{}}
		if name == "dx.delayed" {
			d.Args["x-delayed-type"] = "direct"
		}
		return fmt.Sprintf("exchange.declare %+v", d), w.both(func(b *engine.Broker) error { return b.ExchangeDeclare(id, d) })
	case 2:
		qb := engine.QueueBind{Queue: w.pick(propQueues...), Exchange: name, RoutingKey: w.pick("q0", "q1", "q2", "a")}
		return fmt.Sprintf("queue.bind %+v", qb), w.both(func(b *engine.Broker) error { return b.QueueBind(id, qb) })
	case 3:
		eb := engine.ExchangeBind{Destination: name, Source: w.pick("dx.direct", "dx.fanout", "amq.direct", "x.direct"), RoutingKey: w.pick("q0", "q1", "a")}
		return fmt.Sprintf("exchange.bind %+v", eb), w.both(func(b *engine.Broker) error { return b.ExchangeBind(id, eb) })
	}
	if w.chance(0.5) {
		pub := engine.BasicPublish{Exchange: name, RoutingKey: w.pick("q0", "q1", "q2", "a"), Body: []byte("dx"),
			Props: &engine.Properties{DeliveryMode: 2, Headers: engine.Table{"x-delay": int32(w.pick2(0, 100, 5000))}}}
		return fmt.Sprintf("publish to %s", name), w.both(func(b *engine.Broker) error { return b.BasicPublish(id, pub) })
	}
	del := engine.ExchangeDelete{Exchange: name}
	return "exchange.delete " + name, w.both(func(b *engine.Broker) error { return b.ExchangeDelete(id, del) })
}

func (w *world) pick2(options ...int) int { return options[w.r.IntN(len(options))] }
