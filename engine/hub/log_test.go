package hub

import (
	"bytes"
	"fmt"
	"testing"

	"warren/engine"
)

// TestOrderingAcrossParticipants: commands from two editors become one
// log, numbered without gaps, that every page receives in the same order
// and replicates to the session's state.
func TestOrderingAcrossParticipants(t *testing.T) {
	h := newHarness(t, Config{})
	alice := h.join("Alice", Editor)
	bob := h.join("Bob", Editor)
	watcher := h.join("Wanda", ReadOnly)
	lines := []struct {
		p    *page
		line string
	}{
		{alice, "declare exchange orders topic"},
		{bob, "declare queue eu"},
		{alice, "bind eu orders eu.*"},
		{bob, "consume eu"},
		{alice, "publish orders eu.paris hello"},
		{bob, "ack last"},
		{alice, "show queues"}, // changes nothing: no entry
		{bob, "publish orders us.ny bye"},
	}
	for _, l := range lines {
		h.cmd(l.p, l.line)
	}
	h.inSync()
	var want []string
	for _, l := range lines {
		if l.line != "show queues" {
			want = append(want, l.p.name+": "+l.line)
		}
	}
	for _, p := range []*page{alice, bob, watcher} {
		var got []string
		for i, e := range p.entries {
			if e.Seq != uint64(i+1) {
				t.Fatalf("%s: entry %d has seq %d", p.name, i, e.Seq)
			}
			got = append(got, e.Origin.Name+": "+e.Origin.Line)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s saw\n%q\nwant\n%q", p.name, got, want)
		}
	}
	// Bob's consumer got Alice's message and Bob's "ack last" acked it:
	// each participant's runner knows its own deliveries.
	if n := queueReady(t, bob.replica.B, "eu"); n != 0 {
		t.Fatalf("eu holds %d ready messages on Bob's page, want 0", n)
	}
}

// TestCommandResult: the sender gets its line's trace and entry number;
// a script error and a line that changes nothing make no entry.
func TestCommandResult(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("Alice", Editor)
	res := h.cmd(a, "declare queue q")
	if res.Seq != 1 || res.Output == "" {
		t.Fatalf("result %+v", res)
	}
	m := h.send(a, Inbound{Type: InCommand, Line: "frobnicate"})
	if m.Type != OutResult || m.Result.Error == nil || !m.Result.Error.Script || m.Result.Error.Key != "unknownCommand" || m.Result.Seq != 0 {
		t.Fatalf("unknown verb: %+v %+v", m, m.Result)
	}
	// An AMQP error is the broker's doing: an entry (the channel closed)
	// and an "error:" line in the output, not a script error.
	res = h.cmd(a, "delete queue nosuch")
	if res.Seq != 2 || res.Error != nil {
		t.Fatalf("delete of a missing queue: %+v", res)
	}
	if h.s.Seq() != 2 {
		t.Fatalf("seq %d, want 2", h.s.Seq())
	}
	h.inSync()
}

// TestLateJoinEqualsSession: a page that joins late, from a snapshot and
// the entries after it, holds the session's state byte for byte, whether
// the log tail is empty or not, and follows the entries after it.
func TestLateJoinEqualsSession(t *testing.T) {
	h := newHarness(t, Config{SnapshotEvery: 4, HashEvery: 3})
	a := h.join("Alice", Editor)
	h.cmd(a, "declare queue q ttl=1m")
	h.cmd(a, "consume q")
	for i := 0; i < 9; i++ {
		h.cmd(a, fmt.Sprintf("publish q m%d", i))
		late := h.join(fmt.Sprintf("Late%d", i), ReadOnly)
		snap := late.messages[0].Snapshot
		if uint64(len(snap.Entries))+snap.Seq != h.s.Seq() {
			t.Fatalf("snapshot at %d with %d entries, session at %d", snap.Seq, len(snap.Entries), h.s.Seq())
		}
		h.inSync()
	}
	h.cmd(a, "ack all")
	h.cmd(a, "advance 2m")
	h.inSync()
	// The log kept is bounded by SnapshotEvery.
	if n := len(h.s.tail); n >= 4 {
		t.Fatalf("the hub keeps %d entries, want fewer than SnapshotEvery", n)
	}
}

// TestReplicaFromScratch: a broker built with engine.New and fed every
// entry's records equals the session's: the log is the whole history.
func TestReplicaFromScratch(t *testing.T) {
	cfg := Config{Engine: engine.Config{Seed: 7}}
	h := newHarness(t, cfg)
	a := h.join("Alice", Editor)
	for _, l := range []string{"declare queue", "declare queue dlq", "declare queue q ttl=5s dlx=\"\" dlrk=dlq", "publish q x", "advance 6s", "consume dlq"} {
		h.cmd(a, l)
	}
	cfg.setDefaults()
	b := engine.New(cfg.Engine)
	for _, e := range a.entries {
		for _, rec := range e.Records {
			c, err := engine.DecodeCommand(rec)
			if err != nil {
				t.Fatal(err)
			}
			b.Apply(c)
		}
	}
	b.DrainEvents(nil)
	b.DrainCommands(func([]byte) {})
	if !bytes.Equal(b.Save(), h.s.b.Save()) {
		t.Fatal("a broker fed the whole log differs from the session's")
	}
	if queueReady(t, b, "dlq") != 0 {
		t.Fatal("the dead-lettered message was not delivered")
	}
}

// TestAMQPOrigin: what a real client's connection does enters the log as
// entries of origin amqp, between participants' entries, and its events
// reach the driver.
func TestAMQPOrigin(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("Alice", Editor)
	h.cmd(a, "declare queue jobs")
	origin := Origin{Kind: OriginAMQP, Connection: "conn-1"}
	res, err := h.s.Apply(h.nowMs, origin, []engine.Command{engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", Name: "pika", User: "guest"}}}, nil)
	if err != nil || res[0].Err != nil {
		t.Fatal(err, res)
	}
	ch := engine.ChannelID{Conn: res[0].Conn, Num: 1}
	res, err = h.s.Apply(h.nowMs, origin, []engine.Command{engine.CmdOpenChannel{Conn: ch.Conn, Num: 1},
		engine.CmdBasicConsume{Channel: ch, Consume: engine.BasicConsume{Queue: "jobs"}}}, res[:0])
	if err != nil || len(res) != 2 || res[1].Err != nil {
		t.Fatal(err, res)
	}
	h.s.ConnectionOpened(Connection{ID: "conn-1", Client: "pika 1.3", Address: "127.0.0.1:50000", User: "guest"})
	h.pump()
	h.cmd(a, "publish jobs work")
	r := h.last
	delivered := false
	for _, e := range r.Events {
		if e.Kind == engine.EvDelivered && e.Channel == ch {
			delivered = true
		}
	}
	if !delivered {
		t.Fatalf("the driver got no delivery for its consumer: %v", r.Events)
	}
	if res, err := h.s.Apply(h.nowMs, origin, []engine.Command{engine.CmdBasicAck{Channel: ch, DeliveryTag: 1}}, nil); err != nil || res[0].Err != nil {
		t.Fatal(err, res)
	}
	h.pump()
	var kinds []string
	for _, e := range a.entries {
		kinds = append(kinds, e.Origin.Kind+":"+e.Origin.Connection)
	}
	if want := "[participant: amqp:conn-1 amqp:conn-1 participant: amqp:conn-1]"; fmt.Sprint(kinds) != want {
		t.Fatalf("origins %v, want %s", kinds, want)
	}
	if got := a.presence.Connections; len(got) != 1 || got[0].Client != "pika 1.3" {
		t.Fatalf("presence connections %+v", got)
	}
	h.inSync()
}
