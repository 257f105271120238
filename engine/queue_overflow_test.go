package engine_test

import (
	"testing"

	"warren/engine"
)

// TestDropHeadInBatches: a policy that leaves a queue far over its length
// limit, by count or by bytes, to a dead-letter exchange or not, drops the
// head at once (the queue's and the broker's counts in the command), and
// the Overflowed events after the first batch follow in later calls, then
// the dead letters (reason maxlen), a batch per call: in all, the events
// one unbounded call makes, in the same order. Copies at the front that
// are unacknowledged stay out of it until they come back; copies on their
// way back from a closed channel come back first and are dropped first.
func TestDropHeadInBatches(t *testing.T) {
	const n, batch = 35, 10
	for _, tc := range []struct {
		name string
		def  engine.Table
		dlx  bool
		kept int // ready messages left in q
		// before runs before the policy; after, once its work is done.
		before, after func(t *testing.T, q backlog)
	}{
		{name: "to a DLX, all", def: engine.Table{"max-length": int64(0)}, dlx: true},
		{name: "to a DLX, all but 5", def: engine.Table{"max-length": int64(5)}, dlx: true, kept: 5},
		{name: "by bytes, all but 5", def: engine.Table{"max-length-bytes": int64(5)}, kept: 5},
		{name: "by bytes to a DLX, all but 7", def: engine.Table{"max-length-bytes": int64(7)}, dlx: true, kept: 7},
		{name: "by bytes and count, to a DLX", def: engine.Table{"max-length-bytes": int64(7), "max-length": int64(3)}, dlx: true, kept: 3},
		{name: "front unacknowledged", def: engine.Table{"max-length": int64(0)}, dlx: true,
			before: func(t *testing.T, q backlog) {
				for range 3 {
					_, _, err := q.b.BasicGet(q.con, engine.BasicGet{Queue: "q"})
					ok(t, err)
				}
			},
			after: func(t *testing.T, q backlog) {
				// Back in a queue of length 0, each goes at once.
				ok(t, q.b.Apply(engine.CmdBasicNack{Channel: q.con, DeliveryTag: 0, Multiple: true, Requeue: true}).Err)
			}},
		{name: "front on its way back", def: engine.Table{"max-length": int64(0)}, dlx: true,
			before: func(t *testing.T, q backlog) {
				_, err := q.b.BasicConsume(q.con, engine.BasicConsume{Queue: "q", ConsumerTag: "c"})
				ok(t, err)
				q.b.Settle(q.b.Now())
				q.b.CloseChannel(q.con)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(cfg engine.Config) []engine.Event {
				q := newBacklog(t, cfg, n, 0, tc.dlx)
				if tc.before != nil {
					tc.before(t, q)
				}
				all := q.b.DrainEvents(nil)
				ready := q.b.QueueSummaries("/", []string{"q"})[0].ReadyCount
				onTheWay := n - ready
				if tc.name == "front unacknowledged" {
					onTheWay = 0
				}
				dropped := ready + onTheWay - tc.kept
				ok(t, q.b.SetPolicy(engine.Policy{Vhost: "/", Name: "p", Pattern: "^q$", ApplyTo: "queues", Definition: tc.def}))
				first := q.b.DrainEvents(nil)
				all = append(all, first...)
				if c := count(first, engine.EvOverflowed); c != min(dropped, cfg.MaxBatch) {
					t.Fatalf("the policy made %d Overflowed events, want %d", c, min(dropped, cfg.MaxBatch))
				}
				if c := count(first, engine.EvDeadLettered); dropped > cfg.MaxBatch && c != 0 {
					t.Fatalf("the policy dead-lettered %d before the last Overflowed event", c)
				}
				// The drop is whole at once: q holds what stays, "dead"
				// what is dead-lettered so far.
				d, err := q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "q", Passive: true})
				ok(t, err)
				if d.MessageCount != tc.kept {
					t.Fatalf("declare-ok counts %d, want %d", d.MessageCount, tc.kept)
				}
				if msgs, _ := q.b.ReadyTotals(); msgs != int64(tc.kept+count(first, engine.EvDeadLettered)) {
					t.Fatalf("the broker counts %d ready, want %d", msgs, tc.kept+count(first, engine.EvDeadLettered))
				}
				for due(q.b) {
					q.b.AdvanceTo(q.b.Now())
					evs := q.b.DrainEvents(nil)
					if c := count(evs, engine.EvOverflowed) + count(evs, engine.EvDeadLettered); c == 0 || c > batch {
						t.Fatalf("a call made %d Overflowed and DeadLettered events, want 1..%d", c, batch)
					}
					all = append(all, evs...)
				}
				if tc.after != nil {
					tc.after(t, q)
					q.b.Settle(q.b.Now())
					all = append(all, q.b.DrainEvents(nil)...)
				}
				wantDrops := n - tc.kept
				if c := count(all, engine.EvOverflowed); c != wantDrops {
					t.Fatalf("%d Overflowed events in all, want %d", c, wantDrops)
				}
				if !tc.dlx {
					return all
				}
				// Dead letters in the order of the drops, each died of
				// maxlen in q.
				var over, dead []uint64
				for _, e := range all {
					switch e.Kind {
					case engine.EvOverflowed:
						over = append(over, e.MsgID)
					case engine.EvDeadLettered:
						dead = append(dead, e.MsgID)
						if ds := e.Msg.Deaths(); len(ds) != 1 || ds[0].Reason != "maxlen" || ds[0].Queue != "q" {
							t.Fatalf("message %d dead-lettered with x-death %+v, want one death of maxlen in q", e.MsgID, ds)
						}
					}
				}
				if len(dead) != len(over) {
					t.Fatalf("%d dead-lettered, want %d", len(dead), len(over))
				}
				for i := range over {
					if over[i] != dead[i] {
						t.Fatalf("dead-lettered %v, want the order of the drops %v", dead, over)
					}
				}
				d, err = q.b.QueueDeclare(q.pub, engine.QueueDeclare{Queue: "dead", Passive: true})
				ok(t, err)
				if d.MessageCount != wantDrops {
					t.Fatalf("dead holds %d, want %d", d.MessageCount, wantDrops)
				}
				return all
			}
			want := run(engine.Config{Seed: 1, MaxBatch: n + 1})
			got := run(engine.Config{Seed: 1, MaxBatch: batch})
			if tc.name == "front on its way back" {
				// The close is told after the first batch of returns,
				// and the policy is set while the rest are on their
				// way; it brings them back before it drops them.
				for _, k := range []engine.EventKind{engine.EvChannelClosed, engine.EvPolicySet} {
					got, want = without(got, k), without(want, k)
				}
			}
			sameTrace(t, got, want)
		})
	}
}
