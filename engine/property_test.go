package engine_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"warren/engine"
)

// TestProperties drives the engine with long seeded random command sequences
// and checks, after every step, invariants that must hold whatever the
// commands were:
//
//   - every message copy is in exactly one place: ready in a queue, unacked
//     on a channel, or ended by one event saying how (see EventKind);
//   - the model built from the events alone agrees with Snapshot (ready
//     copies, unacked deliveries, counters, consumers);
//   - no consumer ever holds more unacked deliveries than its prefetch, or
//     its channel more than the global prefetch;
//   - no message is delivered at or after its expiry (a TTL-0 copy handed
//     straight to a waiting consumer excepted: "will be expired upon reaching
//     a queue unless they can be delivered to a consumer immediately");
//   - a quorum-queue copy is delivered at most delivery-limit+1 times;
//   - publisher confirms arrive once each, in order;
//   - the engine returns only *engine.Error and never panics;
//   - the same seed gives the same event stream: a twin broker built from
//     the same config gets every command too, and its events must match
//     the first one's trace line for trace line, step by step.
//
// A failure names the seed and step; rerun one seed with
// -run 'TestProperties/seeds/seed=N$'.
func TestProperties(t *testing.T) {
	seeds, steps := 200, 2000
	if testing.Short() {
		seeds, steps = 20, 500
	}
	if runtime.GOOS == "js" {
		// Under Node the engine runs several times slower; the native run
		// covers the full count.
		seeds, steps = seeds/4, steps/2
	}
	var tally eventTally
	t.Run("seeds", func(t *testing.T) {
		for seed := 1; seed <= seeds; seed++ {
			t.Run("seed="+strconv.Itoa(seed), func(t *testing.T) {
				t.Parallel()
				runProperties(t, uint64(seed), steps, &tally)
			})
		}
	})
	// A generator that stops reaching a rule would let the invariants pass
	// vacuously; every copy-ending event must have been seen.
	if !testing.Short() && !t.Failed() && tally.runs == seeds {
		for _, k := range []engine.EventKind{engine.EvDelivered, engine.EvAcked, engine.EvRequeued, engine.EvRejected,
			engine.EvExpired, engine.EvOverflowed, engine.EvDeliveryLimited, engine.EvPurged, engine.EvDiscarded,
			engine.EvDeadLettered, engine.EvConfirmed, engine.EvNacked, engine.EvTxCommitted, engine.EvTxRolledBack, engine.EvDelayed} {
			if tally.count(k) == 0 {
				t.Errorf("no %s event in %d seeds × %d steps", k, seeds, steps)
			}
		}
	}
}

// eventTally counts events by kind across the parallel seeds.
type eventTally struct {
	mu   sync.Mutex
	n    [64]int
	runs int // seeds run to the end
}

func (c *eventTally) add(events []engine.Event, last bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if last {
		c.runs++
	}
	for _, e := range events {
		c.n[int(e.Kind)%len(c.n)]++
	}
}

func (c *eventTally) count(k engine.EventKind) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[int(k)%len(c.n)]
}

// runProperties runs one seed. Two brokers built from the same config get
// every command in lockstep; their event streams must be identical, which
// checks determinism step by step. The model checks the first one.
func runProperties(t *testing.T, seed uint64, steps int, tally *eventTally) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	timeouts := []int64{0, -1, 5000}
	cfg := engine.Config{Seed: seed, ConsumerTimeoutMs: timeouts[r.IntN(len(timeouts))]}
	w := &world{r: r, b: engine.New(cfg), twin: engine.New(cfg), m: newModel()}
	var events, twinEvents []engine.Event
	step := 0
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("seed %d step %d: panic: %v\nrecent commands:\n%s", seed, step, p, w.recent())
		}
	}()
	events = w.b.DrainEvents(events[:0])
	twinEvents = w.twin.DrainEvents(twinEvents[:0])
	w.post = w.b.Snapshot()
	w.pre = w.post
	w.m.applyAll(w, events)
	for step = 1; step <= steps; step++ {
		w.pre = w.post // nothing happens between steps
		desc, err := w.randomCommand(step)
		w.log(desc, err)
		var amqpErr *engine.Error
		if err != nil && !errors.As(err, &amqpErr) {
			t.Fatalf("seed %d step %d: %s returned %T (%v), want *engine.Error", seed, step, desc, err, err)
		}
		events = w.b.DrainEvents(events[:0])
		twinEvents = w.twin.DrainEvents(twinEvents[:0])
		if w.diverged != "" {
			t.Fatalf("seed %d step %d (%s): the twin broker %s\nrecent commands:\n%s", seed, step, desc, w.diverged, w.recent())
		}
		if d := diffEvents(events, twinEvents); d != "" {
			t.Fatalf("seed %d step %d (%s): the twin broker's events differ: %s\nrecent commands:\n%s", seed, step, desc, d, w.recent())
		}
		if n := w.b.PendingEvents(); n != 0 {
			t.Fatalf("seed %d step %d: %d events pending after a drain", seed, step, n)
		}
		tally.add(events, step == steps)
		w.post = w.b.Snapshot()
		w.m.applyAll(w, events)
		w.m.afterStep(w)
		if d := readsDisagree(w.b, &w.post); d != "" {
			w.m.violations = append(w.m.violations, d)
		}
		if len(w.m.violations) > 0 {
			var sb strings.Builder
			for _, e := range events {
				sb.WriteString("  " + e.String() + "\n")
			}
			t.Fatalf("seed %d step %d (%s):\n%s\nevents of the step:\n%s\nrecent commands:\n%s",
				seed, step, desc, strings.Join(w.m.violations, "\n"), sb.String(), w.recent())
		}
	}
}

// diffEvents compares two event streams by their trace lines.
func diffEvents(a, b []engine.Event) string {
	for i := range min(len(a), len(b)) {
		if sa, sb := a[i].String(), b[i].String(); sa != sb {
			return fmt.Sprintf("event %d: %q vs %q", i, sa, sb)
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%d events vs %d", len(a), len(b))
	}
	return ""
}

// world is one run: the brokers, the random source, the model of what the
// events said, and the snapshots around the current step.
type world struct {
	r         *rand.Rand
	b, twin   *engine.Broker
	m         *model
	pre, post engine.Snapshot
	history   []string
	advanced  bool   // the current step only moved time
	diverged  string // how the twin answered differently, if it did
	// presence draws which properties a publish sends present but zero
	// or empty: a source of its own, so that the workload r draws (and
	// the traces pinned to it) stay as they were.
	presence *rand.Rand
}

// both runs a command on the broker and on its twin, which must answer
// alike, and returns the broker's answer.
func (w *world) both(f func(b *engine.Broker) error) error {
	err := f(w.b)
	twinErr := f(w.twin)
	if fmt.Sprint(err) != fmt.Sprint(twinErr) && w.diverged == "" {
		w.diverged = fmt.Sprintf("returned %v, the broker %v", twinErr, err)
	}
	return err
}

func (w *world) log(desc string, err error) {
	if err != nil {
		desc += " -> " + err.Error()
	}
	w.history = append(w.history, desc)
	if len(w.history) > 40 {
		w.history = w.history[len(w.history)-30:]
	}
}

func (w *world) recent() string {
	return "  " + strings.Join(w.history, "\n  ")
}

func (w *world) pick(options ...string) string { return options[w.r.IntN(len(options))] }

func (w *world) chance(p float64) bool { return w.r.Float64() < p }

// Names the random commands draw from: small sets, so that commands collide.
var (
	propVhosts    = []string{"/", "/", "/", "v2"}
	propQueues    = []string{"q0", "q1", "q2", "q3", "q4", "q5"}
	propExchanges = []string{"x.direct", "x.fanout", "x.topic", "x.headers", "x.delayed", "dlx", "ae"}
	propKeys      = []string{"a", "b", "a.b", "a.b.c", "k", "#", "*.b", "a.#", "q0", "q1", "q2", "q3", "dead"}
)

// channels lists the open channels in the pre-step snapshot.
func (w *world) channels() []engine.ChannelView {
	var out []engine.ChannelView
	for _, v := range w.pre.Vhosts {
		for _, c := range v.Connections {
			out = append(out, c.Channels...)
		}
	}
	return out
}

func (w *world) connections() []engine.ConnectionView {
	var out []engine.ConnectionView
	for _, v := range w.pre.Vhosts {
		out = append(out, v.Connections...)
	}
	return out
}

func (w *world) vhostOf(id engine.ChannelID) *engine.VhostView {
	for i := range w.pre.Vhosts {
		for _, c := range w.pre.Vhosts[i].Connections {
			if c.ID == id.Conn {
				return &w.pre.Vhosts[i]
			}
		}
	}
	return nil
}

// queueName picks a queue name: mostly one that exists in v, sometimes
// one of the fixed names, rarely "" (the channel's last queue).
func (w *world) queueName(v *engine.VhostView) string {
	if w.chance(0.02) {
		return ""
	}
	if v != nil && len(v.Queues) > 0 && w.chance(0.85) {
		return v.Queues[w.r.IntN(len(v.Queues))].Name
	}
	return w.pick(propQueues...)
}

// exchangeName picks an exchange name: mostly one that exists in v (not an
// internal one), sometimes one of the fixed names, rarely a missing one.
func (w *world) exchangeName(v *engine.VhostView) string {
	if w.chance(0.02) {
		return "missing"
	}
	if v != nil && w.chance(0.85) {
		x := v.Exchanges[w.r.IntN(len(v.Exchanges))]
		if !x.Internal {
			return x.Name
		}
	}
	return w.pick(propExchanges...)
}

// inTx reports whether the channel is transactional (from the snapshot: the
// generator must not read the model, which the unchecked run does not keep).
func (w *world) inTx(id engine.ChannelID) bool {
	for _, c := range w.channels() {
		if c.ID == id {
			return c.Tx
		}
	}
	return false
}

func (w *world) queueView(v *engine.VhostView, name string) *engine.QueueView {
	if v == nil {
		return nil
	}
	for i := range v.Queues {
		if v.Queues[i].Name == name {
			return &v.Queues[i]
		}
	}
	return nil
}

func (w *world) smallInt(options ...int) int32 {
	return int32(options[w.r.IntN(len(options))])
}

// command is one kind of random command with its weight.
type command struct {
	weight int
	run    func(w *world, ch engine.ChannelID) (string, error)
}

var commands = []command{
	{1, func(w *world, _ engine.ChannelID) (string, error) { return w.cmdOpenConnection() }},
	{3, func(w *world, _ engine.ChannelID) (string, error) { return w.cmdOpenChannel() }},
	{1, func(w *world, ch engine.ChannelID) (string, error) {
		w.both(func(b *engine.Broker) error { b.CloseChannel(ch); return nil })
		return "close channel " + ch.String(), nil
	}},
	{1, func(w *world, ch engine.ChannelID) (string, error) {
		w.both(func(b *engine.Broker) error { b.CloseConnection(ch.Conn); return nil })
		return "close connection " + strconv.Itoa(int(ch.Conn)), nil
	}},
	{3, (*world).cmdExchangeDeclare},
	{1, func(w *world, ch engine.ChannelID) (string, error) {
		d := engine.ExchangeDelete{Exchange: w.pick(propExchanges...), IfUnused: w.chance(0.3)}
		return fmt.Sprintf("exchange.delete %+v", d), w.both(func(b *engine.Broker) error { return b.ExchangeDelete(ch, d) })
	}},
	{1, func(w *world, ch engine.ChannelID) (string, error) {
		d := engine.ExchangeBind{Destination: w.exchangeName(w.vhostOf(ch)), Source: w.exchangeName(w.vhostOf(ch)), RoutingKey: w.pick(propKeys...)}
		if w.chance(0.2) {
			return fmt.Sprintf("exchange.unbind %+v", d), w.both(func(b *engine.Broker) error { return b.ExchangeUnbind(ch, d) })
		}
		return fmt.Sprintf("exchange.bind %+v", d), w.both(func(b *engine.Broker) error { return b.ExchangeBind(ch, d) })
	}},
	{6, (*world).cmdQueueDeclare},
	{1, func(w *world, ch engine.ChannelID) (string, error) {
		d := engine.QueueDelete{Queue: w.queueName(w.vhostOf(ch)), IfUnused: w.chance(0.3), IfEmpty: w.chance(0.2)}
		err := w.both(func(b *engine.Broker) error { _, err := b.QueueDelete(ch, d); return err })
		return fmt.Sprintf("queue.delete %+v", d), err
	}},
	{1, func(w *world, ch engine.ChannelID) (string, error) {
		q := w.queueName(w.vhostOf(ch))
		err := w.both(func(b *engine.Broker) error { _, err := b.QueuePurge(ch, q); return err })
		return "queue.purge " + q, err
	}},
	{5, (*world).cmdQueueBind},
	{30, (*world).cmdPublish},
	{4, (*world).cmdConsume},
	{2, (*world).cmdCancel},
	{2, func(w *world, ch engine.ChannelID) (string, error) {
		q := engine.BasicQos{PrefetchCount: uint16(w.r.IntN(5)), Global: w.chance(0.3)}
		if w.chance(0.01) {
			q.PrefetchSize = 100
		}
		err := w.both(func(b *engine.Broker) error { return b.BasicQos(ch, q) })
		if mc := w.m.channels[ch]; err == nil && mc != nil {
			if q.Global {
				mc.global = int(q.PrefetchCount)
			} else {
				mc.prefetch = int(q.PrefetchCount)
			}
		}
		return fmt.Sprintf("basic.qos %+v", q), err
	}},
	{4, func(w *world, ch engine.ChannelID) (string, error) {
		g := engine.BasicGet{Queue: w.queueName(w.vhostOf(ch)), NoAck: w.chance(0.3)}
		err := w.both(func(b *engine.Broker) error { _, _, err := b.BasicGet(ch, g); return err })
		return fmt.Sprintf("basic.get %+v", g), err
	}},
	{20, (*world).cmdSettle},
	{1, func(w *world, ch engine.ChannelID) (string, error) {
		return "basic.recover", w.both(func(b *engine.Broker) error { return b.Apply(engine.CmdBasicRecover{Channel: ch, Requeue: true}).Err })
	}},
	{1, func(w *world, ch engine.ChannelID) (string, error) {
		err := w.both(func(b *engine.Broker) error { return b.ConfirmSelect(ch) })
		if mc := w.m.channels[ch]; err == nil && mc != nil {
			mc.confirm = true
		}
		return "confirm.select", err
	}},
	{1, func(w *world, ch engine.ChannelID) (string, error) {
		err := w.both(func(b *engine.Broker) error { return b.TxSelect(ch) })
		if mc := w.m.channels[ch]; err == nil && mc != nil {
			mc.tx = true
		}
		return "tx.select", err
	}},
	{3, func(w *world, ch engine.ChannelID) (string, error) {
		if !w.inTx(ch) && w.chance(0.95) {
			return w.cmdPublish(ch)
		}
		if w.chance(0.3) {
			return "tx.rollback", w.both(func(b *engine.Broker) error { return b.TxRollback(ch) })
		}
		return "tx.commit", w.both(func(b *engine.Broker) error { return b.TxCommit(ch) })
	}},
	{2, (*world).cmdPolicy},
	{14, (*world).cmdAdvance},
	{1, (*world).cmdVhost},
}

var commandWeights = func() int {
	n := 0
	for _, c := range commands {
		n += c.weight
	}
	return n
}()

// randomCommand runs one random command and describes it. The first steps
// build a small topology, so that the random part has something to use.
func (w *world) randomCommand(step int) (string, error) {
	w.advanced = false
	if step <= len(prelude) {
		return prelude[step-1](w)
	}
	chans := w.channels()
	if len(chans) == 0 || (len(chans) < 3 && w.chance(0.3)) {
		return w.cmdOpenChannel()
	}
	ch := engine.ChannelID{Conn: engine.ConnID(1 + w.r.IntN(4)), Num: uint16(1 + w.r.IntN(3))}
	if len(chans) > 0 && w.chance(0.998) {
		ch = chans[w.r.IntN(len(chans))].ID
	}
	n := w.r.IntN(commandWeights)
	for _, c := range commands {
		if n < c.weight {
			desc, err := c.run(w, ch)
			return "ch " + ch.String() + ": " + desc, err
		}
		n -= c.weight
	}
	panic("unreachable")
}

// prelude opens two connections with two channels each on "/" and declares
// the fixed exchanges and a few queues.
var prelude = func() []func(w *world) (string, error) {
	var steps []func(w *world) (string, error)
	for range 2 {
		steps = append(steps, func(w *world) (string, error) {
			err := w.both(func(b *engine.Broker) error {
				_, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
				return err
			})
			return "connection.open /", err
		})
	}
	for _, id := range []engine.ChannelID{{Conn: 1, Num: 1}, {Conn: 1, Num: 2}, {Conn: 2, Num: 1}, {Conn: 2, Num: 2}} {
		steps = append(steps, func(w *world) (string, error) {
			err := w.both(func(b *engine.Broker) error { _, err := b.OpenChannel(id.Conn, id.Num); return err })
			return "channel.open " + id.String(), err
		})
	}
	first := engine.ChannelID{Conn: 1, Num: 1}
	for range len(propExchanges) {
		steps = append(steps, func(w *world) (string, error) { return w.cmdExchangeDeclare(first) })
	}
	for range 6 {
		steps = append(steps, func(w *world) (string, error) { return w.cmdQueueDeclare(first) })
		steps = append(steps, func(w *world) (string, error) { return w.cmdQueueBind(first) })
	}
	return steps
}()

func (w *world) cmdOpenConnection() (string, error) {
	if len(w.connections()) >= 4 {
		return w.cmdAdvance(engine.ChannelID{})
	}
	v := w.pre.Vhosts[w.r.IntN(len(w.pre.Vhosts))].Name
	if w.chance(0.02) {
		v = "nope"
	}
	err := w.both(func(b *engine.Broker) error {
		_, err := b.OpenConnection(engine.ConnectionOpen{Vhost: v, User: "guest"})
		return err
	})
	return "connection.open " + v, err
}

func (w *world) cmdOpenChannel() (string, error) {
	conns := w.connections()
	if len(conns) == 0 || w.chance(0.1) {
		return w.cmdOpenConnection()
	}
	c := conns[w.r.IntN(len(conns))]
	num := uint16(1 + w.r.IntN(3))
	if w.chance(0.95) {
		open := map[uint16]bool{}
		for _, cv := range c.Channels {
			open[cv.ID.Num] = true
		}
		for n := uint16(1); n <= 4; n++ {
			if !open[n] {
				num = n
				break
			}
		}
	}
	if w.chance(0.005) {
		num = 0
	}
	err := w.both(func(b *engine.Broker) error { _, err := b.OpenChannel(c.ID, num); return err })
	return fmt.Sprintf("channel.open %d/%d", c.ID, num), err
}

func (w *world) cmdExchangeDeclare(ch engine.ChannelID) (string, error) {
	name := w.pick(propExchanges...)
	typ := map[string]string{"x.direct": "direct", "x.fanout": "fanout", "x.topic": "topic", "x.headers": "headers",
		"x.delayed": "x-delayed-message", "dlx": "fanout", "ae": "fanout"}[name]
	if w.chance(0.02) {
		typ = w.pick("direct", "fanout", "topic", "headers", "x-delayed-message", "bogus")
	}
	d := engine.ExchangeDeclare{Exchange: name, Type: typ, AutoDelete: w.chance(0.03), Internal: w.chance(0.01),
		Passive: w.chance(0.03), Args: engine.Table{}}
	if typ == "x-delayed-message" {
		d.Args["x-delayed-type"] = w.pick("direct", "fanout", "topic")
	}
	if name != "ae" && w.chance(0.2) {
		d.Args["alternate-exchange"] = "ae"
	}
	if v := w.vhostOf(ch); v != nil && w.chance(0.9) {
		for _, x := range v.Exchanges {
			if x.Name == name {
				d = engine.ExchangeDeclare{Exchange: name, Type: x.Type, AutoDelete: x.AutoDelete, Internal: x.Internal, Durable: x.Durable, Args: x.Args}
			}
		}
	}
	return fmt.Sprintf("exchange.declare %+v", d), w.both(func(b *engine.Broker) error { return b.ExchangeDeclare(ch, d) })
}

func (w *world) cmdQueueDeclare(ch engine.ChannelID) (string, error) {
	v := w.vhostOf(ch)
	name := w.pick(propQueues...)
	if w.chance(0.05) {
		name = ""
	} else if qv := w.queueView(v, name); qv != nil && w.chance(0.9) {
		d := engine.QueueDeclare{Queue: name, Durable: qv.Durable, Exclusive: qv.Exclusive, AutoDelete: qv.AutoDelete, Args: qv.Args, Passive: w.chance(0.1)}
		err := w.both(func(b *engine.Broker) error { _, err := b.QueueDeclare(ch, d); return err })
		return fmt.Sprintf("queue.redeclare %+v", d), err
	}
	args := engine.Table{}
	if w.chance(0.3) {
		args["x-message-ttl"] = w.smallInt(0, 1, 10, 100, 1000, 10000)
	}
	if w.chance(0.08) {
		args["x-expires"] = w.smallInt(100, 1000, 60000)
	}
	if w.chance(0.2) {
		args["x-max-length"] = w.smallInt(0, 1, 2, 4)
	}
	if w.chance(0.08) {
		args["x-max-length-bytes"] = w.smallInt(0, 10, 50, 100)
	}
	if w.chance(0.2) {
		args["x-overflow"] = w.pick("drop-head", "reject-publish", "reject-publish-dlx")
	}
	if w.chance(0.35) {
		args["x-dead-letter-exchange"] = w.pick("dlx", "dlx", "", "amq.fanout", "missing", "x.topic")
	}
	if w.chance(0.15) {
		args["x-dead-letter-routing-key"] = w.pick("q0", "q1", "dead", "a.b")
	}
	quorum := w.chance(0.2)
	if quorum {
		args["x-queue-type"] = "quorum"
		if w.chance(0.5) {
			args["x-delivery-limit"] = w.smallInt(0, 1, 2, 5, -1)
		}
	} else if w.chance(0.15) {
		args["x-max-priority"] = w.smallInt(1, 5, 10)
	}
	if w.chance(0.1) {
		args["x-single-active-consumer"] = true
	}
	d := engine.QueueDeclare{Queue: name, Durable: quorum || w.chance(0.3), Exclusive: w.chance(0.08),
		AutoDelete: w.chance(0.08), Passive: w.chance(0.05), Args: args}
	if quorum && w.chance(0.9) {
		d.Exclusive, d.AutoDelete = false, false
	}
	err := w.both(func(b *engine.Broker) error { _, err := b.QueueDeclare(ch, d); return err })
	return fmt.Sprintf("queue.declare %+v", d), err
}

func (w *world) cmdQueueBind(ch engine.ChannelID) (string, error) {
	qb := engine.QueueBind{Queue: w.queueName(w.vhostOf(ch)), Exchange: w.exchangeName(w.vhostOf(ch)), RoutingKey: w.pick(propKeys...)}
	if w.chance(0.3) {
		qb.Args = engine.Table{"x-match": w.pick("all", "any"), "h": w.pick("v1", "v2")}
	}
	if w.chance(0.15) {
		return fmt.Sprintf("queue.unbind %+v", qb), w.both(func(b *engine.Broker) error { return b.QueueUnbind(ch, qb) })
	}
	return fmt.Sprintf("queue.bind %+v", qb), w.both(func(b *engine.Broker) error { return b.QueueBind(ch, qb) })
}

var propBodies = func() [][]byte {
	var out [][]byte
	for n := 0; n <= 40; n += 8 {
		out = append(out, []byte(strings.Repeat("b", n)))
	}
	return out
}()

func (w *world) cmdPublish(ch engine.ChannelID) (string, error) {
	p := engine.BasicPublish{Exchange: w.exchangeName(w.vhostOf(ch)), RoutingKey: w.pick(propKeys...), Mandatory: w.chance(0.3),
		Body: propBodies[w.r.IntN(len(propBodies))]}
	if w.chance(0.4) {
		p.RoutingKey = w.queueName(w.vhostOf(ch))
	}
	if w.chance(0.7) {
		props := &engine.Properties{Priority: uint8(w.r.IntN(13)), DeliveryMode: uint8(1 + w.r.IntN(2))}
		if w.presence == nil {
			w.presence = rand.New(rand.NewPCG(26, 5))
		}
		if w.presence.IntN(3) == 0 {
			// Present but zero or empty: kept through routing,
			// dead-lettering, Save/Load and the command log.
			props.Present = engine.PropertyFlags(w.presence.IntN(1<<16)) & engine.AllPropertyFlags &^ (engine.FlagExpiration | engine.FlagUserID)
			if w.presence.IntN(2) == 0 {
				props.ClusterID = "c1"
			}
		}
		if w.chance(0.5) {
			props.Expiration = w.pick("0", "1", "5", "50", "200", "1000", "20000")
			if w.chance(0.02) {
				props.Expiration = w.pick("-1", "x", "10x")
			}
		}
		if w.chance(0.4) {
			props.Headers = engine.Table{"h": w.pick("v1", "v2")}
			if w.chance(0.3) {
				props.Headers["x-delay"] = w.smallInt(0, 10, 100, 1000)
			}
			if w.chance(0.1) {
				props.Headers["CC"] = []any{w.pick(propQueues...)}
			}
		}
		// As a driver gives them, and as Load and the command log
		// give them back: every present property flagged.
		props.Present = props.Flags()
		p.Props = props
	}
	desc := fmt.Sprintf("basic.publish x=%q key=%q mandatory=%t body=%d", p.Exchange, p.RoutingKey, p.Mandatory, len(p.Body))
	if p.Props != nil {
		desc += fmt.Sprintf(" props=%+v", *p.Props)
	}
	err := w.both(func(b *engine.Broker) error { return b.BasicPublish(ch, p) })
	if err == nil {
		w.m.published(w, ch)
	}
	return desc, err
}

func (w *world) cmdConsume(ch engine.ChannelID) (string, error) {
	c := engine.BasicConsume{Queue: w.queueName(w.vhostOf(ch)), NoAck: w.chance(0.3), Exclusive: w.chance(0.05)}
	if w.chance(0.5) {
		c.ConsumerTag = w.pick("c1", "c2", "c3")
	}
	if w.chance(0.15) {
		c.Args = engine.Table{"x-priority": w.smallInt(0, 1, 5)}
	}
	err := w.both(func(b *engine.Broker) error { _, err := b.BasicConsume(ch, c); return err })
	return fmt.Sprintf("basic.consume %+v", c), err
}

func (w *world) cmdCancel(ch engine.ChannelID) (string, error) {
	tag := "nope"
	for _, c := range w.channels() {
		if c.ID == ch && len(c.Consumers) > 0 {
			tag = c.Consumers[w.r.IntN(len(c.Consumers))]
		}
	}
	return "basic.cancel " + tag, w.both(func(b *engine.Broker) error { return b.BasicCancel(ch, tag) })
}

// cmdSettle acks, nacks or rejects: mostly a tag the channel holds.
func (w *world) cmdSettle(ch engine.ChannelID) (string, error) {
	var holding []engine.ChannelView
	for _, c := range w.channels() {
		if len(c.Unacked) > 0 {
			holding = append(holding, c)
		}
	}
	if len(holding) == 0 {
		return w.cmdPublish(ch)
	}
	c := holding[w.r.IntN(len(holding))]
	ch = c.ID
	tag := c.Unacked[w.r.IntN(len(c.Unacked))].DeliveryTag
	if w.chance(0.01) {
		tag = uint64(w.r.IntN(50))
	} else if w.chance(0.03) {
		tag = 0
	}
	multiple, requeue := w.chance(0.2), w.chance(0.5)
	var err error
	var desc string
	switch w.r.IntN(5) {
	case 0, 1, 2:
		desc, err = fmt.Sprintf("basic.ack %d multiple=%t", tag, multiple), w.both(func(b *engine.Broker) error {
			return b.Apply(engine.CmdBasicAck{Channel: ch, DeliveryTag: tag, Multiple: multiple}).Err
		})
	case 3:
		desc, err = fmt.Sprintf("basic.nack %d multiple=%t requeue=%t", tag, multiple, requeue), w.both(func(b *engine.Broker) error {
			return b.Apply(engine.CmdBasicNack{Channel: ch, DeliveryTag: tag, Multiple: multiple, Requeue: requeue}).Err
		})
	default:
		multiple = false
		desc, err = fmt.Sprintf("basic.reject %d requeue=%t", tag, requeue), w.both(func(b *engine.Broker) error {
			return b.Apply(engine.CmdBasicReject{Channel: ch, DeliveryTag: tag, Requeue: requeue}).Err
		})
	}
	if err == nil {
		w.m.settled(ch, tag, multiple)
	}
	return "ch " + ch.String() + " " + desc, err
}

func (w *world) cmdPolicy(engine.ChannelID) (string, error) {
	vhost := w.pick(propVhosts...)
	name := w.pick("p1", "p2")
	operator := w.chance(0.25)
	if w.chance(0.35) {
		if operator {
			return "clear operator policy " + name, w.both(func(b *engine.Broker) error { return b.ClearOperatorPolicy(vhost, name) })
		}
		return "clear policy " + name, w.both(func(b *engine.Broker) error { return b.ClearPolicy(vhost, name) })
	}
	def := engine.Table{}
	if w.chance(0.4) {
		def["message-ttl"] = w.smallInt(0, 50, 500, 5000)
	}
	if w.chance(0.3) {
		def["max-length"] = w.smallInt(0, 1, 3)
	}
	if w.chance(0.3) {
		def["delivery-limit"] = w.smallInt(0, 1, 3)
	}
	if w.chance(0.1) {
		def["expires"] = w.smallInt(1000, 60000)
	}
	if !operator {
		if w.chance(0.3) {
			def["overflow"] = w.pick("drop-head", "reject-publish", "reject-publish-dlx")
		}
		if w.chance(0.4) {
			def["dead-letter-exchange"] = w.pick("dlx", "missing")
		}
		if w.chance(0.1) {
			def["dead-letter-routing-key"] = w.pick("q1", "dead")
		}
		if w.chance(0.2) {
			def["alternate-exchange"] = "ae"
		}
	}
	if len(def) == 0 && w.chance(0.95) {
		def["message-ttl"] = w.smallInt(100, 1000)
	}
	p := engine.Policy{Vhost: vhost, Name: name, Pattern: w.pick("^q[0-2]$", "^q", ".*", "^amq\\.gen", "^x\\."),
		ApplyTo: w.pick("", "queues", "all", "classic_queues", "quorum_queues", "exchanges"), Priority: w.r.IntN(3), Definition: def}
	if operator {
		return fmt.Sprintf("set operator policy %+v", p), w.both(func(b *engine.Broker) error { return b.SetOperatorPolicy(p) })
	}
	return fmt.Sprintf("set policy %+v", p), w.both(func(b *engine.Broker) error { return b.SetPolicy(p) })
}

func (w *world) cmdAdvance(engine.ChannelID) (string, error) {
	w.advanced = true
	if w.chance(0.15) {
		var at engine.Time
		var ok bool
		w.both(func(b *engine.Broker) error {
			at, ok = b.Step()
			return nil
		})
		return fmt.Sprintf("step -> %d %t", at, ok), nil
	}
	deltas := []int64{0, 1, 5, 10, 50, 100, 100, 500, 1000, 1000, 5000, 31 * 60 * 1000}
	t := w.b.Now() + engine.Time(deltas[w.r.IntN(len(deltas))])
	w.both(func(b *engine.Broker) error { b.AdvanceTo(t); return nil })
	return fmt.Sprintf("advance to %d", t), nil
}

func (w *world) cmdVhost(engine.ChannelID) (string, error) {
	exists := len(w.pre.Vhosts) > 1
	if !exists || w.chance(0.1) {
		return "add vhost v2", w.both(func(b *engine.Broker) error { return b.AddVhost("v2") })
	}
	if w.chance(0.2) {
		return "delete vhost v2", w.both(func(b *engine.Broker) error { return b.DeleteVhost("v2") })
	}
	// Give the new vhost something to hold.
	err := w.both(func(b *engine.Broker) error {
		_, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "v2", User: "guest"})
		return err
	})
	return "connection.open v2", err
}

// model is what the events say the broker holds.
type model struct {
	copies    map[copyKey][]*msgCopy // one message can have two copies in a queue (see EvEnqueued)
	delayed   map[uint64]bool        // messages a delayed-message exchange held
	held      map[uint64]int         // body sizes of the messages held now
	queueInc  map[queueKey]int
	nextInc   int
	consumers map[consumerKey]*modelConsumer
	nextSer   int
	active    map[int]int // queue incarnation → active consumer serial (single active consumer)
	channels  map[engine.ChannelID]*modelChannel
	deaths    map[copyKey]int // deaths not yet dead-lettered or dropped
	msgIDs    map[uint64]bool // every id published or dead-lettered so far
	lastTime  engine.Time

	info       map[queueKey]*engine.QueueView
	violations []string
}

type copyKey struct {
	vhost, queue string
	msg          uint64
}

type queueKey struct{ vhost, queue string }

type consumerKey struct {
	ch  engine.ChannelID
	tag string
}

// msgCopy is one live message copy.
type msgCopy struct {
	inc         int // queue incarnation
	ready       bool
	ch          engine.ChannelID
	tag         uint64
	consumer    int // serial of the consumer it went to; 0 for basic.get
	txPending   bool
	enqueuedAt  engine.Time
	expiresAt   engine.Time
	msgTTLMs    int64
	body        int
	redelivered bool
	quorum      bool
	deliveries  int
	returns     int
	maxLimit    int64 // highest delivery limit in force during its life; -1 unlimited
}

type modelConsumer struct {
	serial   int
	queue    queueKey
	inc      int
	noAck    bool
	prefetch int
	unacked  int
}

type modelChannel struct {
	prefetch, global int
	consumerUnacked  int
	lastTag          uint64
	confirm, tx      bool
	publishSeq       uint64
	lastConfirm      uint64
	txPubs           int
}

func newModel() *model {
	return &model{copies: map[copyKey][]*msgCopy{}, queueInc: map[queueKey]int{}, consumers: map[consumerKey]*modelConsumer{},
		active: map[int]int{}, delayed: map[uint64]bool{}, held: map[uint64]int{}, msgIDs: map[uint64]bool{}, channels: map[engine.ChannelID]*modelChannel{}, deaths: map[copyKey]int{}}
}

func (m *model) fail(format string, args ...any) {
	m.violations = append(m.violations, fmt.Sprintf(format, args...))
}

// published records a publish the engine accepted, for confirm counting.
func (m *model) published(w *world, id engine.ChannelID) {
	ch := m.channels[id]
	if ch == nil {
		return
	}
	if ch.tx {
		ch.txPubs++
	} else if ch.confirm {
		ch.publishSeq++
	}
}

// settled marks what an accepted ack/nack/reject buffered in a transaction.
func (m *model) settled(id engine.ChannelID, tag uint64, multiple bool) {
	ch := m.channels[id]
	if ch == nil || !ch.tx {
		return
	}
	for _, c := range m.all() {
		if c.ready || c.ch != id || c.txPending {
			continue
		}
		if c.tag == tag || (multiple && (tag == 0 || c.tag <= tag)) {
			c.txPending = true
		}
	}
}

// queueView returns a queue's settings as of the step (after it, or before
// it for a queue the step deleted).
func (m *model) queueView(w *world, k queueKey) *engine.QueueView {
	if m.info == nil {
		m.info = map[queueKey]*engine.QueueView{}
		for _, s := range []*engine.Snapshot{&w.pre, &w.post} {
			for i := range s.Vhosts {
				v := &s.Vhosts[i]
				for j := range v.Queues {
					m.info[queueKey{v.Name, v.Queues[j].Name}] = &v.Queues[j]
				}
			}
		}
	}
	return m.info[k]
}

func parseTTL(exp string) int64 {
	if exp == "" {
		return -1
	}
	n, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

func (m *model) applyAll(w *world, events []engine.Event) {
	m.info = nil
	m.violations = m.violations[:0]
	for i := range events {
		m.apply(w, events, i)
	}
}

// apply folds one event into the model, checking it against what the model
// says is possible.
func (m *model) apply(w *world, events []engine.Event, i int) {
	e := events[i]
	if e.Time < m.lastTime {
		m.fail("event %d (%s) goes back in time from %d", i, e, m.lastTime)
	}
	m.lastTime = e.Time
	qk := queueKey{e.Vhost, e.Queue}
	if qk.vhost == "" {
		qk.vhost = "/"
	}
	key := copyKey{qk.vhost, e.Queue, e.MsgID}
	var c *msgCopy
	needReady := func() bool {
		c = m.readyCopy(key)
		if c == nil {
			m.fail("event %d (%s): copy is not ready in the queue (model: %+v)", i, e, c)
			return false
		}
		return true
	}
	needUnacked := func() bool {
		c = m.unackedCopy(key, e.Channel, e.DeliveryTag)
		if c == nil {
			m.fail("event %d (%s): copy is not unacked with that tag on that channel (model: %+v)", i, e, c)
			return false
		}
		return true
	}
	end := func() {
		if !c.ready {
			m.leaveUnacked(c)
		}
		m.remove(key, c)
	}
	switch e.Kind {
	case engine.EvQueueDeclared:
		m.nextInc++
		m.queueInc[qk] = m.nextInc
	case engine.EvQueueDeleted:
		inc := m.queueInc[qk]
		for k, cs := range m.copies {
			for _, c := range cs {
				if k.vhost == qk.vhost && k.queue == qk.queue && c.inc == inc && c.ready {
					m.fail("event %d (%s): ready copy of message %d left behind", i, e, k.msg)
				}
			}
		}
		delete(m.queueInc, qk)
	case engine.EvPublished:
		if e.Reason == "" {
			m.freshID(i, e, e.MsgID)
		}
		if e.Reason == "delay-elapsed" {
			delete(m.held, e.MsgID)
		}
	case engine.EvDelayed:
		m.delayed[e.MsgID] = true
		m.held[e.MsgID] = len(e.Msg.Body)
	case engine.EvEnqueued:
		if len(m.copies[key]) > 0 && !m.delayed[e.MsgID] {
			// Only a delayed message can reach a queue twice: once through
			// the exchange's alternate exchange when published (the plugin
			// routes it nowhere then), once when released.
			m.fail("event %d (%s): copy already exists (model: %+v)", i, e, m.copies[key][0])
			return
		}
		inc, ok := m.queueInc[qk]
		if !ok {
			m.fail("event %d (%s): enqueued into a queue that was never declared", i, e)
			return
		}
		qv := m.queueView(w, qk)
		c = &msgCopy{inc: inc, ready: true, enqueuedAt: e.Time, expiresAt: engine.Never, msgTTLMs: parseTTL(e.Msg.Expiration()), body: len(e.Msg.Body), maxLimit: -1}
		if qv != nil {
			c.quorum = qv.Type == "quorum"
			c.maxLimit = qv.Effective.DeliveryLimit
			c.expiresAt = expiryOf(c, qv.Effective.MessageTTLMs)
			if c.quorum && c.expiresAt == c.enqueuedAt {
				// rabbit_fifo discards a TTL-0 message "if it cannot be
				// consumed within the same millisecond when it got
				// enqueued".
				c.expiresAt++
			}
		}
		if got := e.At; got != c.expiresAt && !(got == 0 && (c.expiresAt == engine.Never || c.expiresAt == 0)) {
			m.fail("event %d (%s): expiry %d, want %d (queue ttl %d, message ttl %d)", i, e, got, c.expiresAt, qv.Effective.MessageTTLMs, c.msgTTLMs)
		}
		m.copies[key] = append(m.copies[key], c)
	case engine.EvDelivered:
		if !needReady() {
			return
		}
		if c.inc != m.queueInc[qk] {
			m.fail("event %d (%s): delivered from a queue incarnation that is gone", i, e)
		}
		direct := i > 0 && events[i-1].Kind == engine.EvEnqueued && events[i-1].MsgID == e.MsgID && events[i-1].Queue == e.Queue && e.Time == c.enqueuedAt
		if e.Time >= c.expiresAt && !direct {
			m.fail("event %d (%s): delivered at %d, at or after its expiry %d", i, e, e.Time, c.expiresAt)
		}
		if e.Redelivered != c.redelivered {
			m.fail("event %d (%s): redelivered=%t, model says %t", i, e, e.Redelivered, c.redelivered)
		}
		if c.quorum {
			c.deliveries++
			if c.maxLimit >= 0 && int64(c.deliveries) > c.maxLimit+1 {
				m.fail("event %d (%s): quorum copy delivered %d times with delivery-limit %d", i, e, c.deliveries, c.maxLimit)
			}
		}
		ch := m.channels[e.Channel]
		if ch == nil {
			m.fail("event %d (%s): delivered on a channel that is not open", i, e)
			return
		}
		if e.DeliveryTag != ch.lastTag+1 {
			m.fail("event %d (%s): delivery tag %d, want %d", i, e, e.DeliveryTag, ch.lastTag+1)
		}
		ch.lastTag = e.DeliveryTag
		var con *modelConsumer
		if e.ConsumerTag != "" {
			con = m.consumers[consumerKey{e.Channel, e.ConsumerTag}]
			if con == nil {
				m.fail("event %d (%s): no such consumer", i, e)
				return
			}
			if con.queue != qk || con.inc != c.inc || con.noAck != e.NoAck {
				m.fail("event %d (%s): consumer is on %v (inc %d) noack=%t", i, e, con.queue, con.inc, con.noAck)
			}
			if a, sac := m.active[c.inc]; sac && a != con.serial {
				m.fail("event %d (%s): single-active-consumer queue delivered to a consumer that is not active", i, e)
			}
		}
		if e.NoAck {
			m.remove(key, c)
			return
		}
		c.ready, c.ch, c.tag = false, e.Channel, e.DeliveryTag
		if con != nil {
			c.consumer = con.serial
			con.unacked++
			ch.consumerUnacked++
			if con.prefetch > 0 && con.unacked > con.prefetch {
				m.fail("event %d (%s): consumer holds %d unacked, prefetch %d", i, e, con.unacked, con.prefetch)
			}
			if ch.global > 0 && ch.consumerUnacked > ch.global {
				m.fail("event %d (%s): channel holds %d unacked consumer deliveries, global prefetch %d", i, e, ch.consumerUnacked, ch.global)
			}
		}
	case engine.EvAcked:
		if needUnacked() {
			end()
		}
	case engine.EvRejected:
		if needUnacked() {
			end()
			m.deaths[key]++
		}
	case engine.EvRequeued:
		if !needUnacked() {
			return
		}
		m.leaveUnacked(c)
		c.ready, c.ch, c.tag, c.consumer, c.txPending, c.redelivered = true, engine.ChannelID{}, 0, 0, false, true
		if c.quorum {
			c.returns++
			if qv := m.queueView(w, qk); qv != nil && qv.Effective.DeliveryLimit >= 0 && int64(c.returns) > qv.Effective.DeliveryLimit {
				m.fail("event %d (%s): requeued after %d returns, delivery-limit %d", i, e, c.returns, qv.Effective.DeliveryLimit)
			}
		}
	case engine.EvDeliveryLimited:
		if !needUnacked() {
			return
		}
		if !c.quorum {
			m.fail("event %d (%s): delivery limit applied to a classic queue", i, e)
		}
		if qv := m.queueView(w, qk); qv != nil && int64(c.returns+1) <= qv.Effective.DeliveryLimit {
			m.fail("event %d (%s): dead-lettered after %d returns, delivery-limit %d", i, e, c.returns+1, qv.Effective.DeliveryLimit)
		}
		end()
		m.deaths[key]++
	case engine.EvExpired:
		if !needReady() {
			return
		}
		if e.Time < c.expiresAt {
			m.fail("event %d (%s): expired at %d before its expiry %d", i, e, e.Time, c.expiresAt)
		}
		end()
		m.deaths[key]++
	case engine.EvOverflowed:
		switch e.Overflow {
		case engine.OverflowDropHead:
			if needReady() {
				end()
				m.deaths[key]++
			}
		case engine.OverflowRejectPublish, engine.OverflowRejectPublishDLX:
			if len(m.copies[key]) > 0 && !m.delayed[e.MsgID] {
				m.fail("event %d (%s): a refused publish names an existing copy", i, e)
			}
			if e.Overflow == engine.OverflowRejectPublishDLX {
				m.deaths[key]++
			}
		default:
			m.fail("event %d (%s): unknown overflow reason", i, e)
		}
	case engine.EvPurged:
		if needReady() {
			end()
		}
	case engine.EvDiscarded:
		// A queue being deleted discards its ready copies; a deleted one
		// discards the unacked copies returned to it, naming the delivery.
		if e.Channel.Conn != 0 {
			c = m.unackedCopy(key, e.Channel, e.DeliveryTag)
		} else {
			c = m.readyCopy(key)
		}
		if c == nil {
			m.fail("event %d (%s): no such copy", i, e)
			return
		}
		end()
	case engine.EvDeadLettered:
		m.consumeDeath(i, e, key)
		m.freshID(i, e, e.NewMsgID)
	case engine.EvDropped:
		if strings.HasPrefix(e.Cause, "dead-letter exchange") {
			m.consumeDeath(i, e, key)
		}
		if e.Cause == "vhost deleted" && e.Exchange != "" {
			delete(m.held, e.MsgID) // a delayed exchange's held message
		}
	case engine.EvConsumerAdded:
		ck := consumerKey{e.Channel, e.ConsumerTag}
		if m.consumers[ck] != nil {
			m.fail("event %d (%s): consumer tag already in use on the channel", i, e)
		}
		m.nextSer++
		con := &modelConsumer{serial: m.nextSer, queue: qk, inc: m.queueInc[qk], noAck: e.NoAck}
		if ch := m.channels[e.Channel]; ch != nil {
			con.prefetch = ch.prefetch
		}
		m.consumers[ck] = con
	case engine.EvConsumerActivated:
		con := m.consumers[consumerKey{e.Channel, e.ConsumerTag}]
		if con == nil {
			m.fail("event %d (%s): no such consumer", i, e)
			return
		}
		m.active[con.inc] = con.serial
	case engine.EvConsumerCancelled:
		ck := consumerKey{e.Channel, e.ConsumerTag}
		con := m.consumers[ck]
		if con == nil {
			m.fail("event %d (%s): no such consumer", i, e)
			return
		}
		if m.active[con.inc] == con.serial {
			m.active[con.inc] = 0
		}
		delete(m.consumers, ck)
	case engine.EvChannelOpened:
		if m.channels[e.Channel] != nil {
			m.fail("event %d (%s): channel already open", i, e)
		}
		m.channels[e.Channel] = &modelChannel{}
	case engine.EvChannelClosed:
		for k, cs := range m.copies {
			for _, c := range cs {
				if !c.ready && c.ch == e.Channel {
					m.fail("event %d (%s): channel closed still holding message %d of %s", i, e, k.msg, k.queue)
				}
			}
		}
		for k := range m.consumers {
			if k.ch == e.Channel {
				m.fail("event %d (%s): channel closed with consumer %s not cancelled", i, e, k.tag)
			}
		}
		delete(m.channels, e.Channel)
	case engine.EvConnectionClosed:
		for id := range m.channels {
			if id.Conn == e.Channel.Conn {
				m.fail("event %d (%s): connection closed with channel %s open", i, e, id)
			}
		}
	case engine.EvConfirmed, engine.EvNacked:
		ch := m.channels[e.Channel]
		if ch == nil {
			m.fail("event %d (%s): confirm on a channel that is not open", i, e)
			return
		}
		if e.DeliveryTag != ch.lastConfirm+1 {
			m.fail("event %d (%s): confirm %d, want %d", i, e, e.DeliveryTag, ch.lastConfirm+1)
		}
		ch.lastConfirm = e.DeliveryTag
		if e.Kind == engine.EvNacked && !m.refusedInStep(events, i) {
			m.fail("event %d (%s): nacked though no queue refused the message", i, e)
		}
	case engine.EvTxCommitted:
		for _, c := range m.all() {
			if !c.ready && c.ch == e.Channel && c.txPending {
				m.fail("event %d (%s): committed ack of %+v not applied", i, e, c)
			}
		}
		if ch := m.channels[e.Channel]; ch != nil {
			ch.txPubs = 0
		}
	case engine.EvTxRolledBack:
		for _, c := range m.all() {
			if !c.ready && c.ch == e.Channel {
				c.txPending = false
			}
		}
		if ch := m.channels[e.Channel]; ch != nil {
			ch.txPubs = 0
		}
	case engine.EvPolicySet, engine.EvPolicyCleared:
		m.retime(w, qk.vhost)
	}
}

// refusedInStep reports whether a queue refused (reject-publish) the message
// whose Published event most recently precedes event i.
func (m *model) refusedInStep(events []engine.Event, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch events[j].Kind {
		case engine.EvOverflowed:
			if events[j].Overflow != engine.OverflowDropHead {
				return true
			}
		case engine.EvPublished:
			return false
		}
	}
	return false
}

func expiryOf(c *msgCopy, queueTTLMs int64) engine.Time {
	ttl := queueTTLMs
	if c.msgTTLMs >= 0 && (ttl < 0 || c.msgTTLMs < ttl) {
		ttl = c.msgTTLMs
	}
	if ttl < 0 {
		return engine.Never
	}
	return c.enqueuedAt + engine.Time(ttl)
}

// retime applies a policy change. A lower message TTL applies to ready
// copies retroactively, from their enqueue time (ttl.md, "Per-message TTL
// Applied Retroactively"); an expiry never moves later. A quorum copy's
// delivery limit may rise.
func (m *model) retime(w *world, vhost string) {
	for k, cs := range m.copies {
		if k.vhost != vhost {
			continue
		}
		qk := queueKey{k.vhost, k.queue}
		qv := m.queueView(w, qk)
		for _, c := range cs {
			if qv == nil || c.inc != m.queueInc[qk] {
				continue
			}
			if l := qv.Effective.DeliveryLimit; c.maxLimit >= 0 && (l < 0 || l > c.maxLimit) {
				c.maxLimit = l
			}
			if c.ready {
				at := expiryOf(c, qv.Effective.MessageTTLMs)
				if c.quorum && at == c.enqueuedAt {
					at++
				}
				if at < c.expiresAt {
					c.expiresAt = at
				}
			}
		}
	}
}

// freshID checks that a message id is new: every publish and every
// dead-lettering makes a message with an id of its own.
func (m *model) freshID(i int, e engine.Event, id uint64) {
	if id == 0 || m.msgIDs[id] {
		m.fail("event %d (%s): message id %d not fresh", i, e, id)
	}
	m.msgIDs[id] = true
}

func (m *model) consumeDeath(i int, e engine.Event, key copyKey) {
	if m.deaths[key] == 0 {
		m.fail("event %d (%s): no death of message %d in %s to dead-letter", i, e, key.msg, key.queue)
		return
	}
	m.deaths[key]--
	if m.deaths[key] == 0 {
		delete(m.deaths, key)
	}
}

// all returns every live copy.
func (m *model) all() []*msgCopy {
	var out []*msgCopy
	for _, cs := range m.copies {
		out = append(out, cs...)
	}
	return out
}

// readyCopy returns the earliest-enqueued ready copy of a message in a queue.
func (m *model) readyCopy(k copyKey) *msgCopy {
	for _, c := range m.copies[k] {
		if c.ready {
			return c
		}
	}
	return nil
}

// unackedCopy returns the copy delivered on ch with tag.
func (m *model) unackedCopy(k copyKey, ch engine.ChannelID, tag uint64) *msgCopy {
	for _, c := range m.copies[k] {
		if !c.ready && c.ch == ch && c.tag == tag {
			return c
		}
	}
	return nil
}

func (m *model) remove(k copyKey, c *msgCopy) {
	cs := m.copies[k]
	for i, o := range cs {
		if o == c {
			cs = append(cs[:i], cs[i+1:]...)
			break
		}
	}
	if len(cs) == 0 {
		delete(m.copies, k)
	} else {
		m.copies[k] = cs
	}
}

func (m *model) leaveUnacked(c *msgCopy) {
	if c.consumer == 0 {
		return
	}
	for _, con := range m.consumers {
		if con.serial == c.consumer {
			con.unacked--
		}
	}
	if ch := m.channels[c.ch]; ch != nil {
		ch.consumerUnacked--
	}
}

func (m *model) vhostAlive(w *world, name string) bool {
	for _, v := range w.post.Vhosts {
		if v.Name == name {
			return true
		}
	}
	return false
}

// afterStep compares the model with the snapshot taken after the step.
func (m *model) afterStep(w *world) {
	s := &w.post
	now := w.b.Now()
	if s.Now != now {
		m.fail("snapshot time %d, broker time %d", s.Now, now)
	}
	if w.advanced {
		if at, ok := w.b.NextDeadline(); ok && at <= now {
			m.fail("after advancing to %d a timer is still due at %d", now, at)
		}
	}
	for k, n := range m.deaths {
		if qv := m.queueView(w, queueKey{k.vhost, k.queue}); qv != nil && qv.Effective.HasDeadLetterExchange && m.vhostAlive(w, k.vhost) {
			m.fail("message %d died in %s (%d times) but was neither dead-lettered nor dropped", k.msg, k.queue, n)
		}
	}
	m.deaths = map[copyKey]int{}

	type unackedKey struct {
		ch  engine.ChannelID
		tag uint64
	}
	ready := map[queueKey]map[uint64][]*msgCopy{}
	unackedByQueue := map[int]int{}
	unacked := map[unackedKey]copyKey{}
	pending := map[engine.ChannelID]int{}
	nready := map[queueKey]int{}
	for k, cs := range m.copies {
		for _, c := range cs {
			if c.ready {
				qk := queueKey{k.vhost, k.queue}
				if ready[qk] == nil {
					ready[qk] = map[uint64][]*msgCopy{}
				}
				ready[qk][k.msg] = append(ready[qk][k.msg], c)
				nready[qk]++
				if c.inc != m.queueInc[qk] {
					m.fail("message %d ready in a deleted incarnation of %s", k.msg, k.queue)
				}
				continue
			}
			unackedByQueue[c.inc]++
			if c.txPending {
				pending[c.ch]++
			} else {
				unacked[unackedKey{c.ch, c.tag}] = k
			}
			if m.channels[c.ch] == nil {
				m.fail("message %d of %s unacked on channel %s, which is closed", k.msg, k.queue, c.ch)
			}
		}
	}
	serials := map[int]*modelConsumer{}
	for _, con := range m.consumers {
		serials[con.serial] = con
	}
	seenConsumers := 0
	seenChannels := 0
	for _, v := range s.Vhosts {
		for _, q := range v.Queues {
			qk := queueKey{v.Name, q.Name}
			want := ready[qk]
			delete(ready, qk)
			if len(q.Ready) != nready[qk] {
				m.fail("queue %s: snapshot has %d ready, model %d", q.Name, len(q.Ready), nready[qk])
			}
			var bytes int64
			for j, r := range q.Ready {
				if len(want[r.Msg.ID]) == 0 {
					m.fail("queue %s: snapshot has message %d ready, model does not", q.Name, r.Msg.ID)
					continue
				}
				c := want[r.Msg.ID][0]
				want[r.Msg.ID] = want[r.Msg.ID][1:]
				bytes += int64(c.body)
				if r.ExpiresAt != c.expiresAt && !(c.expiresAt == 0 && r.ExpiresAt == engine.Never) {
					m.fail("queue %s: message %d expires at %d, model %d", q.Name, r.Msg.ID, r.ExpiresAt, c.expiresAt)
				}
				if r.Redelivered != c.redelivered {
					m.fail("queue %s: message %d redelivered=%t, model %t", q.Name, r.Msg.ID, r.Redelivered, c.redelivered)
				}
				if w.advanced {
					// After AdvanceTo every due timer has fired: the head
					// of a classic or quorum queue is live.
					if j == 0 && r.ExpiresAt <= now {
						m.fail("queue %s: message %d expired at %d but still ready at %d", q.Name, r.Msg.ID, r.ExpiresAt, now)
					}
				}
			}
			if bytes != q.ReadyBytes {
				m.fail("queue %s: %d ready bytes, model %d", q.Name, q.ReadyBytes, bytes)
			}
			if n := unackedByQueue[m.queueInc[qk]]; n != q.Unacked {
				m.fail("queue %s: %d unacked, model %d", q.Name, q.Unacked, n)
			}
			if q.ReadyCount != len(q.Ready) {
				m.fail("queue %s: ReadyCount %d, %d listed", q.Name, q.ReadyCount, len(q.Ready))
			}
			// The channels' lists are no reference for a queue's unacked
			// bytes (acks buffered in a transaction have left them, and a
			// deleted queue's deliveries stay listed under its name), but
			// nothing unacked is no bytes, and bytes never go negative.
			if (q.Unacked == 0 && q.UnackedBytes != 0) || q.UnackedBytes < 0 {
				m.fail("queue %s: %d unacked, %d bytes", q.Name, q.Unacked, q.UnackedBytes)
			}
			for _, cv := range q.Consumers {
				con := m.consumers[consumerKey{cv.Channel, cv.Tag}]
				seenConsumers++
				if con == nil {
					m.fail("queue %s: consumer %s on %s unknown to the model", q.Name, cv.Tag, cv.Channel)
					continue
				}
				if con.unacked != cv.Unacked || con.prefetch != cv.Prefetch || con.queue != qk {
					m.fail("queue %s: consumer %s has %d unacked prefetch %d, model %d prefetch %d on %v", q.Name, cv.Tag, cv.Unacked, cv.Prefetch, con.unacked, con.prefetch, con.queue)
				}
				if cv.Prefetch > 0 && !cv.NoAck && cv.Unacked > cv.Prefetch {
					m.fail("queue %s: consumer %s holds %d unacked, prefetch %d", q.Name, cv.Tag, cv.Unacked, cv.Prefetch)
				}
			}
		}
		for _, conn := range v.Connections {
			for _, cv := range conn.Channels {
				seenChannels++
				mc := m.channels[cv.ID]
				if mc == nil {
					m.fail("channel %s open in the snapshot, not in the model", cv.ID)
					continue
				}
				if cv.Prefetch != mc.prefetch || cv.GlobalPrefetch != mc.global {
					m.fail("channel %s: prefetch %d/%d, model %d/%d", cv.ID, cv.Prefetch, cv.GlobalPrefetch, mc.prefetch, mc.global)
				}
				if cv.PendingTx != pending[cv.ID]+mc.txPubs {
					m.fail("channel %s: %d pending in tx, model %d acks + %d publishes", cv.ID, cv.PendingTx, pending[cv.ID], mc.txPubs)
				}
				for _, u := range cv.Unacked {
					k, ok := unacked[unackedKey{cv.ID, u.DeliveryTag}]
					if !ok || k.queue != u.Queue || k.msg != u.Msg.ID {
						m.fail("channel %s: snapshot has tag %d (message %d of %s) unacked, model has %+v", cv.ID, u.DeliveryTag, u.Msg.ID, u.Queue, k)
						continue
					}
					delete(unacked, unackedKey{cv.ID, u.DeliveryTag})
				}
			}
		}
	}
	for qk, msgs := range ready {
		m.fail("model has %d messages ready in %v, which the snapshot does not show", len(msgs), qk)
	}
	for uk, k := range unacked {
		m.fail("model has message %d of %s unacked on %s tag %d, which the snapshot does not show", k.msg, k.queue, uk.ch, uk.tag)
	}
	if seenConsumers != len(m.consumers) {
		m.fail("snapshot shows %d consumers, model has %d", seenConsumers, len(m.consumers))
	}
	if seenChannels != len(m.channels) {
		m.fail("snapshot shows %d channels, model has %d", seenChannels, len(m.channels))
	}
	for id, ch := range m.channels {
		if ch.confirm && ch.lastConfirm != ch.publishSeq {
			m.fail("channel %s: %d publishes accepted in confirm mode, %d confirmed", id, ch.publishSeq, ch.lastConfirm)
		}
	}
	m.checkTotals(w)
	if len(m.violations) > 0 {
		sort.Strings(m.violations)
	}
}

// checkTotals compares the broker's running message totals, which a memory
// alarm reads, with the copies the model holds: every ready copy, every
// unacked one (acks buffered in a transaction included) and every message
// a delayed exchange holds.
func (m *model) checkTotals(w *world) {
	var want engine.MessageTotals
	for _, cs := range m.copies {
		for _, c := range cs {
			t := &want.Unacked
			if c.ready {
				t = &want.Ready
			}
			t.Msgs++
			t.Bytes += int64(c.body)
		}
	}
	for _, body := range m.held {
		want.Delayed.Msgs++
		want.Delayed.Bytes += int64(body)
	}
	if got := w.b.MessageTotals(); got != want {
		m.fail("message totals %+v, model %+v", got, want)
	}
}
