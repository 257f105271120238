package broker

import (
	"testing"
	"time"

	"warren/engine"
	"warren/server/store"
)

// startOnDir opens (or reopens) a data directory and starts a broker on
// it, as warren serve does.
func startOnDir(t *testing.T, dir string) (*Broker, *store.Store) {
	t.Helper()
	st, rec, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := Recover(engine.Config{}, time.Now(), ClockLive, st, rec)
	if err != nil {
		t.Fatal(err)
	}
	return StartDurable(eng, Options{Store: st}), st
}

func stopOnDir(t *testing.T, b *Broker) {
	t.Helper()
	b.Stop()
	if err := b.CloseStore(); err != nil {
		t.Fatal(err)
	}
}

// TestTransientWorkWritesNothing is issue 28's case: a million transient
// messages through a non-durable queue, published, delivered to a
// consumer and acknowledged, with a data directory, leave it the size it
// was, counted in bytes, with no fsync: only what a restart keeps is
// logged (engine/durable.go).
func TestTransientWorkWritesNothing(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	dir := t.TempDir()
	b, st := startOnDir(t, dir)
	ch := openChannel(t, b)
	mustApply(t, b,
		engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "work"}},
		engine.CmdBasicConsume{Channel: ch, Consume: engine.BasicConsume{Queue: "work", ConsumerTag: "c"}})
	if err := st.WaitSynced(st.Stats().Appended); err != nil {
		t.Fatal(err)
	}
	before := st.Stats()
	const batch = 1000
	cmds := make([]engine.Command, 0, batch+1)
	for sent := 0; sent < n; sent += batch {
		cmds = cmds[:0]
		for range batch {
			cmds = append(cmds, engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "work", Body: []byte("transient")}})
		}
		cmds = append(cmds, engine.CmdBasicAck{Channel: ch, DeliveryTag: uint64(sent + batch), Multiple: true})
		mustApply(t, b, cmds...)
	}
	var totals engine.MessageTotals
	b.locked(func() { totals = b.eng.MessageTotals() })
	if totals.Ready.Msgs != 0 || totals.Unacked.Msgs != 0 {
		t.Fatalf("after the run: %+v, want every message acknowledged", totals)
	}
	after := st.Stats()
	t.Logf("%d transient messages: directory %d -> %d bytes, log %d -> %d records, %d -> %d fsyncs",
		n, before.DiskBytes, after.DiskBytes, before.Appended, after.Appended, before.Fsyncs, after.Fsyncs)
	if after.DiskBytes-before.DiskBytes > 4096 || after.Appended != before.Appended || after.Fsyncs != before.Fsyncs {
		t.Fatalf("transient work wrote to the data directory: %d -> %d bytes, %d -> %d records, %d -> %d fsyncs",
			before.DiskBytes, after.DiskBytes, before.Appended, after.Appended, before.Fsyncs, after.Fsyncs)
	}
	stopOnDir(t, b)
}

// readyBodies lists the bodies ready in queue q of "/", in order, with a
// + for a redelivered one.
func readyBodies(b *Broker, q string) []string {
	var out []string
	b.locked(func() {
		for _, v := range b.eng.SnapshotLimit(100).Vhosts {
			for _, qv := range v.Queues {
				if v.Name != "/" || qv.Name != q {
					continue
				}
				for _, m := range qv.Ready {
					s := string(m.Msg.Body)
					if m.Redelivered {
						s += "+"
					}
					out = append(out, s)
				}
			}
		}
	})
	return out
}

// TestDurableLogRecovers: what the data directory brings back after a
// stop is what a restart keeps, from records of durable work only: the
// persistent messages of a durable queue in order, the one a consumer
// held redelivered at its place, the transient ones and the non-durable
// queue gone, the durable binding kept.
func TestDurableLogRecovers(t *testing.T) {
	dir := t.TempDir()
	b, _ := startOnDir(t, dir)
	ch := openChannel(t, b)
	pub := func(key, body string, mode uint8) engine.Command {
		return engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{Exchange: "x", RoutingKey: key, Body: []byte(body), Props: &engine.Properties{DeliveryMode: mode}}}
	}
	mustApply(t, b,
		engine.CmdExchangeDeclare{Channel: ch, Declare: engine.ExchangeDeclare{Exchange: "x", Type: "direct", Durable: true}},
		engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "keep", Durable: true}},
		engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "gone"}},
		engine.CmdQueueBind{Channel: ch, Bind: engine.QueueBind{Queue: "keep", Exchange: "x", RoutingKey: "k"}},
		engine.CmdQueueBind{Channel: ch, Bind: engine.QueueBind{Queue: "gone", Exchange: "x", RoutingKey: "k"}},
		pub("k", "p1", 2), pub("k", "t1", 1), pub("k", "p2", 2), pub("k", "p3", 2),
		engine.CmdBasicGet{Channel: ch, Get: engine.BasicGet{Queue: "keep"}}, // p1, held
		engine.CmdBasicGet{Channel: ch, Get: engine.BasicGet{Queue: "keep"}}, // t1, held
		engine.CmdBasicGet{Channel: ch, Get: engine.BasicGet{Queue: "keep"}}, // p2
		engine.CmdBasicAck{Channel: ch, DeliveryTag: 3},
	)
	stopOnDir(t, b)

	b, _ = startOnDir(t, dir)
	defer stopOnDir(t, b)
	if got := readyBodies(b, "keep"); len(got) != 2 || got[0] != "p1+" || got[1] != "p3" {
		t.Fatalf("keep after the restart: %v, want [p1+ p3]", got)
	}
	ch = openChannel(t, b)
	res, err := b.Apply([]engine.Command{engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "gone", Passive: true}}}, nil)
	if err != nil || res[0].Err == nil {
		t.Fatalf("the non-durable queue is back: %v %v", res, err)
	}
	ch = openChannel(t, b)
	mustApply(t, b, pub("k", "p4", 2))
	if got := readyBodies(b, "keep"); len(got) != 3 || got[2] != "p4" {
		t.Fatalf("keep after a publish through the kept binding: %v", got)
	}
}

// TestOldCommandLogLoads: a data directory an older Warren wrote, every
// command in its log, still loads: its commands are replayed as they
// were, then the broker goes on with its durable log.
func TestOldCommandLogLoads(t *testing.T) {
	dir := t.TempDir()
	st, rec, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := Recover(engine.Config{}, time.Now(), ClockLive, st, rec)
	if err != nil {
		t.Fatal(err)
	}
	// What an older Warren appended: the commands themselves.
	old := engine.New(eng.Config())
	cmds := []engine.Command{
		engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/"}},
		engine.CmdOpenChannel{Conn: 1, Num: 1},
		engine.CmdQueueDeclare{Channel: engine.ChannelID{Conn: 1, Num: 1}, Declare: engine.QueueDeclare{Queue: "q", Durable: true}},
		engine.CmdBasicPublish{Channel: engine.ChannelID{Conn: 1, Num: 1}, Publish: engine.BasicPublish{RoutingKey: "q", Body: []byte("old"), Props: &engine.Properties{DeliveryMode: 2}}},
	}
	for _, c := range cmds {
		if r := old.Apply(c); r.Err != nil {
			t.Fatal(r.Err)
		}
		rec, err := engine.AppendCommand(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := startOnDir(t, dir)
	if got := readyBodies(b, "q"); len(got) != 1 || got[0] != "old" {
		t.Fatalf("q from the old log: %v", got)
	}
	stopOnDir(t, b)
	b, _ = startOnDir(t, dir)
	defer stopOnDir(t, b)
	if got := readyBodies(b, "q"); len(got) != 1 || got[0] != "old" {
		t.Fatalf("q after a second start: %v", got)
	}
}

// TestCheckpointsCarryWhatRecordsDoNot: a policy has no record of its
// own; the broker logs a checkpoint for it shortly after, with nothing
// more happening. The messages a delayed-message exchange holds (all of
// which a restart keeps) have records, and a persistent one's confirm
// waits for them: LogEnd is the last. Both come back after a restart.
func TestCheckpointsCarryWhatRecordsDoNot(t *testing.T) {
	dir := t.TempDir()
	b, st := startOnDir(t, dir)
	ch := openChannel(t, b)
	before := st.Stats().Appended
	mustApply(t, b, engine.CmdSetPolicy{Policy: engine.Policy{Vhost: "/", Name: "ttl", Pattern: "^q", ApplyTo: "queues", Definition: engine.Table{"message-ttl": int32(3600_000)}}})
	deadline := time.Now().Add(5 * time.Second)
	for st.Stats().Appended == before {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint logged for the policy")
		}
		time.Sleep(5 * time.Millisecond)
	}
	mustApply(t, b,
		engine.CmdExchangeDeclare{Channel: ch, Declare: engine.ExchangeDeclare{Exchange: "later", Type: engine.KindDelayed, Durable: true, Args: engine.Table{"x-delayed-type": "direct"}}},
		engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "q", Durable: true}},
		engine.CmdQueueBind{Channel: ch, Bind: engine.QueueBind{Queue: "q", Exchange: "later", RoutingKey: "q"}},
		engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{Exchange: "later", RoutingKey: "q", Body: []byte("held"),
			Props: &engine.Properties{DeliveryMode: 2, Headers: engine.Table{"x-delay": int32(3600_000)}}}},
	)
	end := b.LogEnd()
	if got := uint64(st.Stats().Appended); got != end {
		t.Fatalf("LogEnd %d, last record %d: the delayed message's checkpoint is not the position confirms wait for", end, got)
	}
	stopOnDir(t, b)

	b, _ = startOnDir(t, dir)
	defer stopOnDir(t, b)
	var policies, held int
	b.locked(func() {
		for _, v := range b.eng.Snapshot().Vhosts {
			policies += len(v.Policies)
			for _, x := range v.Exchanges {
				held += x.HeldCount
			}
		}
	})
	if policies != 1 || held != 1 {
		t.Fatalf("after the restart: %d policies, %d delayed messages; want 1 and 1", policies, held)
	}
}
