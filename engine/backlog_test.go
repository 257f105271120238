package engine_test

import (
	"strconv"
	"testing"

	"warren/engine"
)

// backlog is a broker whose classic queue "q" holds n one-byte messages,
// published at time 0, and a second channel for a consumer. ttlMs > 0 gives
// the queue that message TTL; dlx dead-letters through the default
// exchange to queue "dead".
type backlog struct {
	b        *engine.Broker
	pub, con engine.ChannelID
}

func newBacklog(t *testing.T, cfg engine.Config, n int, ttlMs int32, dlx bool) backlog {
	t.Helper()
	b := engine.New(cfg)
	conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
	ok(t, err)
	pub, err := b.OpenChannel(conn, 1)
	ok(t, err)
	con, err := b.OpenChannel(conn, 2)
	ok(t, err)
	args := engine.Table{}
	if ttlMs > 0 {
		args["x-message-ttl"] = ttlMs
	}
	if dlx {
		_, err = b.QueueDeclare(pub, engine.QueueDeclare{Queue: "dead"})
		ok(t, err)
		args["x-dead-letter-exchange"] = ""
		args["x-dead-letter-routing-key"] = "dead"
	}
	_, err = b.QueueDeclare(pub, engine.QueueDeclare{Queue: "q", Args: args})
	ok(t, err)
	for i := 0; i < n; i++ {
		ok(t, b.BasicPublish(pub, engine.BasicPublish{RoutingKey: "q", Body: []byte{'m'}}))
		if i%4096 == 0 {
			b.DrainEvents(nil)
		}
	}
	b.DrainEvents(nil)
	return backlog{b: b, pub: pub, con: con}
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// trace renders events as the determinism test hashes them.
func trace(evs []engine.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = engine.FormatDuration(int64(e.Time)) + " " + e.String()
	}
	return out
}

// count returns how many of evs are of kind k.
func count(evs []engine.Event, k engine.EventKind) int {
	n := 0
	for _, e := range evs {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// due reports whether a continuation (or any timer) is due now.
func due(b *engine.Broker) bool {
	at, armed := b.NextDeadline()
	return armed && at <= b.Now()
}

// workOff calls AdvanceTo(Now()) while a timer is due, as the server's
// broker does (a call per hold of its lock), and checks that no call does
// more than max of kind k. It returns every event, in order, and the
// number of calls.
func workOff(t *testing.T, b *engine.Broker, first []engine.Event, k engine.EventKind, max int) ([]engine.Event, int) {
	t.Helper()
	all := append([]engine.Event(nil), first...)
	calls := 1
	for due(b) {
		now := b.Now()
		b.AdvanceTo(now)
		evs := b.DrainEvents(nil)
		if n := count(evs, k); n > max || n == 0 {
			t.Fatalf("call %d made %d %s events, want 1..%d", calls+1, n, k, max)
		}
		if b.Now() != now {
			t.Fatalf("the clock moved from %d to %d during a backlog", now, b.Now())
		}
		all = append(all, evs...)
		calls++
	}
	return all, calls
}

// sameTrace fails unless got and want are the same events in the same order.
func sameTrace(t *testing.T, got, want []engine.Event) {
	t.Helper()
	g, w := trace(got), trace(want)
	if len(g) != len(w) {
		t.Fatalf("%d events, want %d", len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("event %d is %q, want %q", i, g[i], w[i])
		}
	}
}

// TestConsumeBacklogInBatches: a consumer with unlimited prefetch attaching
// to 400,000 messages gets them a batch per engine call, and the calls
// together make the same events, in the same order, as one call without a
// batch limit (MaxBatch larger than the queue).
func TestConsumeBacklogInBatches(t *testing.T) {
	const n = 400_000
	consume := func(cfg engine.Config) (backlog, []engine.Event) {
		q := newBacklog(t, cfg, n, 0, false)
		_, err := q.b.BasicConsume(q.con, engine.BasicConsume{Queue: "q", ConsumerTag: "c"})
		ok(t, err)
		return q, q.b.DrainEvents(nil)
	}
	_, want := consume(engine.Config{Seed: 1, MaxBatch: n + 1})
	if got := count(want, engine.EvDelivered); got != n {
		t.Fatalf("one unbounded call delivered %d, want %d", got, n)
	}

	q, first := consume(engine.Config{Seed: 1})
	if got := count(first, engine.EvDelivered); got != engine.DefaultMaxBatch {
		t.Fatalf("basic.consume delivered %d, want a batch of %d", got, engine.DefaultMaxBatch)
	}
	if ts := q.b.Timers(); len(ts) == 0 || ts[0].Kind != "dispatch" || ts[0].Queue != "q" || !due(q.b) {
		t.Fatalf("timers %+v: want a dispatch continuation due now", ts)
	}
	// Between batches a passive declare counts what is not yet
	// delivered, as RabbitMQ's does while its queue waits for the channel
	// to pass on the 200 deliveries it has sent.
	d, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "q", Passive: true})
	ok(t, err)
	if d.MessageCount != n-engine.DefaultMaxBatch {
		t.Fatalf("declare-ok between batches counts %d, want %d", d.MessageCount, n-engine.DefaultMaxBatch)
	}
	if evs := q.b.DrainEvents(nil); len(evs) != 0 {
		t.Fatalf("a passive declare made events %v", trace(evs))
	}
	got, calls := workOff(t, q.b, first, engine.EvDelivered, engine.DefaultMaxBatch)
	if wantCalls := (n + engine.DefaultMaxBatch - 1) / engine.DefaultMaxBatch; calls != wantCalls {
		t.Fatalf("%d calls, want %d", calls, wantCalls)
	}
	sameTrace(t, got, want)
	if ts := q.b.Timers(); len(ts) != 1 || ts[0].Kind != "consumer-timeout" {
		t.Fatalf("timers after the backlog %+v, want the consumer timeout alone", ts)
	}
}

// TestExpiryBacklogInBatches: 400,000 messages expiring at once go a batch
// per engine call, with the same events in the same order as one call
// without a batch limit; the clock stays at their expiry until they have
// gone, then moves on.
func TestExpiryBacklogInBatches(t *testing.T) {
	const n = 400_000
	expire := func(cfg engine.Config) (backlog, []engine.Event) {
		q := newBacklog(t, cfg, n, 1000, false)
		q.b.AdvanceTo(5000)
		return q, q.b.DrainEvents(nil)
	}
	ref, want := expire(engine.Config{Seed: 1, MaxBatch: n + 1})
	if got := count(want, engine.EvExpired); got != n || ref.b.Now() != 5000 {
		t.Fatalf("one unbounded call expired %d and reached %d, want %d and 5000", got, ref.b.Now(), n)
	}

	q, first := expire(engine.Config{Seed: 1})
	if got := count(first, engine.EvExpired); got != engine.DefaultMaxBatch {
		t.Fatalf("the first AdvanceTo expired %d, want a batch of %d", got, engine.DefaultMaxBatch)
	}
	if q.b.Now() != 1000 {
		t.Fatalf("clock at %d after the first batch, want 1000: AdvanceTo stops at a continuation", q.b.Now())
	}
	got, _ := workOff(t, q.b, first, engine.EvExpired, engine.DefaultMaxBatch)
	sameTrace(t, got, want)
	if _, armed := q.b.NextDeadline(); armed {
		t.Fatalf("timers left after the backlog: %+v", q.b.Timers())
	}
	q.b.AdvanceTo(5000)
	if q.b.Now() != 5000 {
		t.Fatalf("clock at %d, want 5000", q.b.Now())
	}
}

// TestCommandsBetweenExpiryBatches: a command that reads or changes what a
// queue holds, arriving while its expiry is left for later, first finishes
// it, so that it sees what RabbitMQ's queue process would (which drops all
// expired messages before it reads its next request): no expired message
// is counted, handed out, purged or discarded instead of dead-lettered.
func TestCommandsBetweenExpiryBatches(t *testing.T) {
	const n, batch = 35, 10
	for _, tc := range []struct {
		name    string
		command func(q backlog) (int, error) // returns the count the reply carries
	}{
		{"passive declare", func(q backlog) (int, error) {
			d, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "q", Passive: true})
			return d.MessageCount, err
		}},
		{"redeclare", func(q backlog) (int, error) {
			d, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "q", Args: engine.Table{
				"x-message-ttl": int32(1000), "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "dead"}})
			return d.MessageCount, err
		}},
		{"basic.get", func(q backlog) (int, error) {
			g, got, err := q.b.BasicGet(q.pub, engine.BasicGet{Queue: "q"})
			if got {
				return 1 + g.MessageCount, err
			}
			return 0, err
		}},
		{"purge", func(q backlog) (int, error) { return q.b.QueuePurge(q.pub, "q") }},
		{"delete", func(q backlog) (int, error) {
			return q.b.QueueDelete(q.pub, engine.QueueDelete{Queue: "q", IfEmpty: true})
		}},
		{"policy", func(q backlog) (int, error) {
			// A new dead-letter exchange applies to what expires after it.
			return 0, q.b.SetPolicy(engine.Policy{Vhost: "/", Name: "p", Pattern: "^q$", ApplyTo: "queues",
				Definition: engine.Table{"dead-letter-exchange": "amq.fanout"}})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newBacklog(t, engine.Config{Seed: 1, MaxBatch: batch}, n, 1000, true)
			q.b.AdvanceTo(1000)
			if evs := q.b.DrainEvents(nil); count(evs, engine.EvExpired) != batch || !due(q.b) {
				t.Fatalf("first AdvanceTo: %d expired, due %t; want %d and a continuation", count(evs, engine.EvExpired), due(q.b), batch)
			}
			got, err := tc.command(q)
			ok(t, err)
			if got != 0 {
				t.Errorf("the reply counts %d messages, want 0: all %d had expired", got, n)
			}
			evs := q.b.DrainEvents(nil)
			if e, d := count(evs, engine.EvExpired), count(evs, engine.EvDeadLettered); e != n-batch || d != n-batch {
				t.Errorf("the command expired %d and dead-lettered %d first, want %d each", e, d, n-batch)
			}
			if count(evs, engine.EvPurged)+count(evs, engine.EvDiscarded)+count(evs, engine.EvDelivered) != 0 {
				t.Errorf("an expired message was purged, discarded or delivered: %v", trace(evs))
			}
			if due(q.b) {
				t.Errorf("a continuation is still due: %+v", q.b.Timers())
			}
			d, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "dead", Passive: true})
			ok(t, err)
			if d.MessageCount != n {
				t.Errorf("dead holds %d, want %d", d.MessageCount, n)
			}
		})
	}
}

// TestAdvanceToFiresWhatFallsDueInTheCall: only a continuation stops
// AdvanceTo. A timer the call arms for later, which falls due while the
// call moves the clock, still fires in it.
func TestAdvanceToFiresWhatFallsDueInTheCall(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1, MaxBatch: 10})
	conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
	ok(t, err)
	ch, err := b.OpenChannel(conn, 1)
	ok(t, err)
	for _, name := range []string{"a", "c"} {
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: name, Args: engine.Table{"x-message-ttl": int32(1000)}})
		ok(t, err)
	}
	publish := func(q string) { ok(t, b.BasicPublish(ch, engine.BasicPublish{RoutingKey: q, Body: []byte{'m'}})) }
	publish("a") // expires at 1000; a's timer is then re-armed for 1001
	b.AdvanceTo(1)
	publish("c") // expires at 1001, armed before the call
	publish("a") // expires at 1001
	b.DrainEvents(nil)
	b.AdvanceTo(5000)
	if b.Now() != 5000 {
		t.Fatalf("AdvanceTo(5000) stopped at %d", b.Now())
	}
	if evs := b.DrainEvents(nil); count(evs, engine.EvExpired) != 3 {
		t.Fatalf("%d expired, want 3: %v", count(evs, engine.EvExpired), trace(evs))
	}
}

// TestSettleFinishesBacklogs: Settle, which hand-stepped drivers use, ends
// with the clock at its target and the same events as unbounded calls, here
// with a backlog of expiry into a dead-letter queue, deliveries to its
// consumer, and another queue's timer after them.
func TestSettleFinishesBacklogs(t *testing.T) {
	const n = 95
	run := func(cfg engine.Config) []engine.Event {
		q := newBacklog(t, cfg, n, 1000, true)
		_, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "later", Args: engine.Table{"x-message-ttl": int32(2000)}})
		ok(t, err)
		ok(t, q.b.BasicPublish(q.pub, engine.BasicPublish{RoutingKey: "later", Body: []byte{'m'}}))
		_, err = q.b.BasicConsume(q.con, engine.BasicConsume{Queue: "dead", ConsumerTag: "c", NoAck: true})
		ok(t, err)
		q.b.Settle(5000)
		if q.b.Now() != 5000 || due(q.b) {
			t.Fatalf("Settle(5000) left the clock at %d, due %t", q.b.Now(), due(q.b))
		}
		return q.b.DrainEvents(nil)
	}
	want := run(engine.Config{Seed: 1, MaxBatch: n + 1})
	if count(want, engine.EvExpired) != n+1 || count(want, engine.EvDelivered) != n {
		t.Fatalf("unbounded: %d expired, %d delivered", count(want, engine.EvExpired), count(want, engine.EvDelivered))
	}
	got := run(engine.Config{Seed: 1, MaxBatch: 10})
	// In batches, each batch's dead letters are routed (and delivered)
	// before the next batch expires; one call routed them all after all
	// expiries. Per kind the order is the same.
	for _, k := range []engine.EventKind{engine.EvExpired, engine.EvDeadLettered, engine.EvEnqueued, engine.EvDelivered} {
		sameTrace(t, only(got, k), only(want, k))
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
}

// only returns the events of kind k.
func only(evs []engine.Event, k engine.EventKind) []engine.Event {
	var out []engine.Event
	for _, e := range evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// TestPurgeAndDeleteEndInBatches: queue.purge and queue.delete let go of
// every ready message in the command, counts and all, but the per-message
// events after the first batch follow in later calls, in the same order
// as one unbounded call makes them.
func TestPurgeAndDeleteEndInBatches(t *testing.T) {
	const n, batch = 35, 10
	for _, tc := range []struct {
		name    string
		command func(q backlog) (int, error)
		kind    engine.EventKind
	}{
		{"purge", func(q backlog) (int, error) { return q.b.QueuePurge(q.pub, "q") }, engine.EvPurged},
		{"delete", func(q backlog) (int, error) { return q.b.QueueDelete(q.pub, engine.QueueDelete{Queue: "q"}) }, engine.EvDiscarded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(cfg engine.Config) []engine.Event {
				q := newBacklog(t, cfg, n, 0, false)
				got, err := tc.command(q)
				ok(t, err)
				if got != n {
					t.Fatalf("the reply counts %d, want %d", got, n)
				}
				first := q.b.DrainEvents(nil)
				if c := count(first, tc.kind); c != min(n, cfg.MaxBatch) {
					t.Fatalf("the command made %d %s events, want %d", c, tc.kind, min(n, cfg.MaxBatch))
				}
				// The messages are gone at once: from the broker's totals,
				// and from a queue of that name.
				if msgs, _ := q.b.ReadyTotals(); msgs != 0 {
					t.Fatalf("%d messages still counted ready", msgs)
				}
				ok(t, q.b.BasicPublish(q.pub, engine.BasicPublish{RoutingKey: "q", Body: []byte("new")}))
				d, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "q", Passive: tc.name == "purge"})
				ok(t, err)
				if d.MessageCount != 1 && tc.name == "purge" {
					t.Fatalf("after the purge and a publish the queue counts %d, want 1", d.MessageCount)
				}
				all, _ := workOff(t, q.b, append(first, q.b.DrainEvents(nil)...), tc.kind, batch)
				if c := count(all, tc.kind); c != n {
					t.Fatalf("%d %s events in all, want %d", c, tc.kind, n)
				}
				return all
			}
			want := run(engine.Config{Seed: 1, MaxBatch: n + 1})
			got := run(engine.Config{Seed: 1, MaxBatch: batch})
			// One call ended them all before the publish after it; in
			// batches the rest come after it. Per kind, the same order.
			for _, k := range []engine.EventKind{tc.kind, engine.EvQueueDeleted, engine.EvEnqueued, engine.EvQueueDeclared} {
				sameTrace(t, only(got, k), only(want, k))
			}
			if len(got) != len(want) {
				t.Fatalf("%d events, want %d", len(got), len(want))
			}
		})
	}
}

// TestSettleMultipleEndsInBatches: basic.ack multiple of many deliveries,
// or basic.nack multiple without requeue to a dead-letter exchange,
// changes the channel at once (the tags are no longer outstanding, the
// unacked counts drop, the prefetch credit is back), but the Acked or
// Rejected events after the first batch follow in later calls, then the
// deliveries to the credit regained, then the dead letters in batches: in
// all, the same events in the same order as one unbounded call.
func TestSettleMultipleEndsInBatches(t *testing.T) {
	const n, prefetch, batch = 35, 30, 10
	for _, tc := range []struct {
		name   string
		settle func(b *engine.Broker, ch engine.ChannelID, tag uint64) error
		kind   engine.EventKind
	}{
		{"ack", func(b *engine.Broker, ch engine.ChannelID, tag uint64) error {
			return b.Apply(engine.CmdBasicAck{Channel: ch, DeliveryTag: tag, Multiple: true}).Err
		}, engine.EvAcked},
		{"nack to a DLX", func(b *engine.Broker, ch engine.ChannelID, tag uint64) error {
			return b.Apply(engine.CmdBasicNack{Channel: ch, DeliveryTag: tag, Multiple: true}).Err
		}, engine.EvRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dlx := tc.kind == engine.EvRejected
			run := func(cfg engine.Config, probe func(q *backlog)) []engine.Event {
				q := newBacklog(t, cfg, n, 0, dlx)
				ok(t, q.b.BasicQos(q.con, engine.BasicQos{PrefetchCount: prefetch}))
				_, err := q.b.BasicConsume(q.con, engine.BasicConsume{Queue: "q", ConsumerTag: "c"})
				ok(t, err)
				q.b.Settle(q.b.Now())
				// Tags 3 and 7 first, alone: acknowledged, but listed
				// until the older ones go; tags 31 and 32 take their
				// credit.
				ok(t, q.b.Apply(engine.CmdBasicAck{Channel: q.con, DeliveryTag: 3}).Err)
				ok(t, q.b.Apply(engine.CmdBasicAck{Channel: q.con, DeliveryTag: 7}).Err)
				q.b.DrainEvents(nil)

				ok(t, tc.settle(q.b, q.con, 25))
				first := q.b.DrainEvents(nil)
				if c := count(first, tc.kind); c != min(23, cfg.MaxBatch) {
					t.Fatalf("the command made %d %s events, want %d", c, tc.kind, min(23, cfg.MaxBatch))
				}
				// What is left unacked is tags 26 to 32, at once, in
				// every count; the 3 still ready follow them once the
				// events are out.
				unacked := int64(7)
				if cfg.MaxBatch >= 23 {
					unacked += n - prefetch - 2
				}
				if u := q.b.MessageTotals().Unacked; u.Msgs != unacked || u.Bytes != unacked {
					t.Fatalf("the broker counts %+v unacked, want %d of 1 byte", u, unacked)
				}
				if v, _ := q.b.VhostTotals("/"); v.Unacked != unacked {
					t.Fatalf("the vhost counts %d unacked, want %d", v.Unacked, unacked)
				}
				if qv := q.b.QueueSummaries("/", []string{"q"}); int64(qv[0].Unacked) != unacked {
					t.Fatalf("the queue counts %d unacked, want %d", qv[0].Unacked, unacked)
				}
				if cv := q.b.ChannelSummaries([]engine.ChannelID{q.con}); int64(cv[0].UnackedCount) != unacked {
					t.Fatalf("the channel counts %d unacked, want %d", cv[0].UnackedCount, unacked)
				}
				if dlx {
					// The dead-letter queue holds what has been
					// dead-lettered so far.
					d, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "dead", Passive: true})
					ok(t, err)
					if c := count(first, engine.EvDeadLettered); d.MessageCount != c {
						t.Fatalf("the dead-letter queue counts %d, want the %d dead-lettered", d.MessageCount, c)
					}
				}
				if probe != nil {
					probe(&q)
				}
				// No later call does more than a batch's work.
				all := append([]engine.Event(nil), first...)
				for due(q.b) {
					q.b.AdvanceTo(q.b.Now())
					evs := q.b.DrainEvents(nil)
					if c := count(evs, tc.kind) + count(evs, engine.EvDeadLettered); c == 0 || c > batch {
						t.Fatalf("a call made %d %s and dead-lettered events, want 1..%d", c, tc.kind, batch)
					}
					all = append(all, evs...)
				}
				ok(t, tc.settle(q.b, q.con, 0))
				q.b.Settle(q.b.Now())
				all = append(all, q.b.DrainEvents(nil)...)
				if c := count(all, tc.kind); c != n-2 && probe == nil {
					t.Fatalf("%d %s events in all, want %d", c, tc.kind, n-2)
				}
				if c := count(all, engine.EvDeadLettered); dlx && c != n-2 && probe == nil {
					t.Fatalf("%d dead-lettered in all, want %d", c, n-2)
				}
				return all
			}
			want := run(engine.Config{Seed: 1, MaxBatch: n + 1}, nil)
			got := run(engine.Config{Seed: 1, MaxBatch: batch}, nil)
			sameTrace(t, got, want)

			// Between batches, a tag settled in the bulk, or acknowledged
			// alone before it, is unknown at once, as RabbitMQ's channel
			// has forgotten it.
			for _, tag := range []uint64{7, 20} {
				run(engine.Config{Seed: 1, MaxBatch: batch}, func(q *backlog) {
					err := q.b.Apply(engine.CmdBasicAck{Channel: q.con, DeliveryTag: tag}).Err
					if e, isErr := err.(*engine.Error); !isErr || e.Code != 406 || e.Text != "PRECONDITION_FAILED - unknown delivery tag "+strconv.Itoa(int(tag)) {
						t.Fatalf("ack of tag %d between batches: %v, want 406 unknown delivery tag", tag, err)
					}
					con, err := q.b.OpenChannel(q.con.Conn, 3)
					ok(t, err)
					q.con = con
				})
			}
		})
	}
}

// TestMaxLengthDropsInBatches: a max-length policy that leaves a queue
// far over its limit drops the head at once, counts and all, and the
// Overflowed events after the first batch follow in later calls, in the
// order one unbounded call makes them; copies returned to the head (a
// basic.get, then nack with requeue) go first, as they would be
// delivered first.
func TestMaxLengthDropsInBatches(t *testing.T) {
	const n, batch = 35, 10
	for _, tc := range []struct {
		name    string
		maxLen  int64
		returns bool
	}{
		{"all", 0, false},
		{"all but 5", 5, false},
		{"all but 5, returned first", 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(cfg engine.Config) []engine.Event {
				q := newBacklog(t, cfg, n, 0, false)
				if tc.returns {
					for range 3 {
						_, _, err := q.b.BasicGet(q.con, engine.BasicGet{Queue: "q"})
						ok(t, err)
					}
					ok(t, q.b.Apply(engine.CmdBasicNack{Channel: q.con, DeliveryTag: 0, Multiple: true, Requeue: true}).Err)
				}
				q.b.DrainEvents(nil)
				ok(t, q.b.SetPolicy(engine.Policy{Vhost: "/", Name: "p", Pattern: "^q$", ApplyTo: "queues", Definition: engine.Table{"max-length": tc.maxLen}}))
				first := q.b.DrainEvents(nil)
				if c := count(first, engine.EvOverflowed); c != min(n-int(tc.maxLen), cfg.MaxBatch) {
					t.Fatalf("the policy made %d Overflowed events, want %d", c, min(n-int(tc.maxLen), cfg.MaxBatch))
				}
				if msgs, bytes := q.b.ReadyTotals(); msgs != tc.maxLen || bytes != tc.maxLen {
					t.Fatalf("%d messages of %d bytes still counted ready, want %d", msgs, bytes, tc.maxLen)
				}
				d, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "q", Passive: true})
				ok(t, err)
				if int64(d.MessageCount) != tc.maxLen {
					t.Fatalf("declare-ok counts %d, want %d", d.MessageCount, tc.maxLen)
				}
				all, _ := workOff(t, q.b, first, engine.EvOverflowed, batch)
				// What stays is the tail, delivered in order.
				for range tc.maxLen {
					g, _, err := q.b.BasicGet(q.con, engine.BasicGet{Queue: "q", NoAck: true})
					ok(t, err)
					_ = g
				}
				all = append(all, q.b.DrainEvents(nil)...)
				if c := count(all, engine.EvOverflowed); c != n-int(tc.maxLen) {
					t.Fatalf("%d Overflowed events in all, want %d", c, n-int(tc.maxLen))
				}
				return all
			}
			want := run(engine.Config{Seed: 1, MaxBatch: n + 1})
			got := run(engine.Config{Seed: 1, MaxBatch: batch})
			sameTrace(t, got, want)
		})
	}
}
