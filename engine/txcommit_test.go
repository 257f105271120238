package engine_test

import (
	"testing"

	"warren/engine"
)

// TestCommitInBatches: a transaction of many publishes and acknowledgements
// is applied a batch per engine call, TxCommitted after the last; the calls
// together make the events one unbounded call makes, in order; a command
// on the committing channel first finishes the commit, as RabbitMQ's
// channel process finishes it before reading the next frame.
func TestCommitInBatches(t *testing.T) {
	const acks, pubs, batch = 12, 25, 10
	setup := func(cfg engine.Config) backlog {
		q := newBacklog(t, cfg, acks, 0, false)
		_, err := q.b.BasicConsume(q.con, engine.BasicConsume{Queue: "q", ConsumerTag: "c"})
		ok(t, err)
		q.b.Settle(q.b.Now())
		ok(t, q.b.TxSelect(q.con))
		for i := 0; i < pubs; i++ {
			ok(t, q.b.BasicPublish(q.con, engine.BasicPublish{RoutingKey: "q", Body: []byte{'t'}}))
		}
		ok(t, q.b.Apply(engine.CmdBasicAck{Channel: q.con, DeliveryTag: acks, Multiple: true}).Err)
		q.b.DrainEvents(nil)
		return q
	}
	run := func(cfg engine.Config) []engine.Event {
		q := setup(cfg)
		ok(t, q.b.TxCommit(q.con))
		all := q.b.DrainEvents(nil)
		if c := count(all, engine.EvEnqueued) + count(all, engine.EvAcked); c > cfg.MaxBatch {
			t.Fatalf("the command applied %d, want at most a batch", c)
		}
		for calls := 0; due(q.b); calls++ {
			if count(all, engine.EvTxCommitted) != 0 {
				t.Fatal("committed before the continuation finished")
			}
			q.b.AdvanceTo(q.b.Now())
			evs := q.b.DrainEvents(nil)
			if c := count(evs, engine.EvEnqueued) + count(evs, engine.EvAcked); c > batch {
				t.Fatalf("a call applied %d, want at most %d", c, batch)
			}
			all = append(all, evs...)
		}
		if c := count(all, engine.EvTxCommitted); c != 1 {
			t.Fatalf("%d TxCommitted events, want 1", c)
		}
		return all
	}
	want := run(engine.Config{Seed: 1, MaxBatch: acks + pubs + 1})
	got := run(engine.Config{Seed: 1, MaxBatch: batch})
	sameTrace(t, got, want)

	// The next command on the channel sees the whole commit applied.
	q := setup(engine.Config{Seed: 1, MaxBatch: batch})
	ok(t, q.b.TxCommit(q.con))
	first := q.b.DrainEvents(nil)
	if count(first, engine.EvTxCommitted) != 0 {
		t.Fatal("a commit of more than a batch finished in the command")
	}
	ok(t, q.b.TxCommit(q.con)) // an empty commit, pipelined
	evs := q.b.DrainEvents(nil)
	if c := count(evs, engine.EvTxCommitted); c != 2 {
		t.Fatalf("%d TxCommitted events after the second commit, want 2", c)
	}
	if c := count(first, engine.EvAcked) + count(evs, engine.EvAcked); c != acks {
		t.Fatalf("%d acknowledged by the time of the next command, want %d", c, acks)
	}
	q.b.Settle(q.b.Now())
	if c := count(q.b.DrainEvents(nil), engine.EvTxCommitted); c != 0 {
		t.Fatalf("the continuation committed %d more times", c)
	}
}
