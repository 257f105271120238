package broker

import (
	"errors"
	"math"
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
// were, then the broker goes on with its durable log, whose first records
// (the restart's: the copy a channel held put back) follow the old ones
// and replay on the state they rebuild, at every later start too.
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
		engine.CmdBasicPublish{Channel: engine.ChannelID{Conn: 1, Num: 1}, Publish: engine.BasicPublish{RoutingKey: "q", Body: []byte("old2"), Props: &engine.Properties{DeliveryMode: 2}}},
		engine.CmdQueueDeclare{Channel: engine.ChannelID{Conn: 1, Num: 1}, Declare: engine.QueueDeclare{Queue: "t"}},
		engine.CmdBasicGet{Channel: engine.ChannelID{Conn: 1, Num: 1}, Get: engine.BasicGet{Queue: "q"}},
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
	for start := 1; start <= 3; start++ {
		b, _ := startOnDir(t, dir)
		if got := readyBodies(b, "q"); len(got) != 2 || got[0] != "old+" || got[1] != "old2" {
			t.Fatalf("start %d: q from the old log: %v, want [old+ old2]", start, got)
		}
		ch := openChannel(t, b)
		res, err := b.Apply([]engine.Command{engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "t", Passive: true}}}, nil)
		if err != nil || res[0].Err == nil {
			t.Fatalf("start %d: the transient queue is back", start)
		}
		stopOnDir(t, b)
	}
}

// startOnDirWith is startOnDir with the store's options.
func startOnDirWith(t *testing.T, dir string, opts store.Options) (*Broker, *store.Store) {
	t.Helper()
	st, rec, err := store.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := Recover(engine.Config{}, time.Now(), ClockLive, st, rec)
	if err != nil {
		t.Fatal(err)
	}
	return StartDurable(eng, Options{Store: st}), st
}

// TestWholeStateChangesAreRecords: a policy that trims and re-times a
// durable queue, a vhost's deletion and a start are records of what they
// changed, never the whole state (engine/durable.go), so they work with a
// state larger than the store's record limit, which a checkpoint (the
// whole state as one record) did not: with MaxRecordBytes 4096 and 40 KB
// of persistent messages, everything comes back, nothing is refused, and
// a start with nothing to change appends nothing.
func TestWholeStateChangesAreRecords(t *testing.T) {
	dir := t.TempDir()
	opts := store.Options{MaxRecordBytes: 4096}
	b, st := startOnDirWith(t, dir, opts)
	ch := openChannel(t, b)
	body := make([]byte, 200)
	cmds := []engine.Command{
		engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "q", Durable: true}},
		engine.CmdAddVhost{Name: "v2"},
	}
	for i := range 200 {
		body[0] = byte(i)
		cmds = append(cmds, engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "q", Body: append([]byte(nil), body...), Props: &engine.Properties{DeliveryMode: 2}}})
	}
	mustApply(t, b, cmds...)
	conn := mustApply(t, b, engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "v2"}})[0].Conn
	ch2 := mustApply(t, b, engine.CmdOpenChannel{Conn: conn, Num: 1})[0].Channel
	mustApply(t, b,
		engine.CmdQueueDeclare{Channel: ch2, Declare: engine.QueueDeclare{Queue: "q", Durable: true}},
		engine.CmdBasicPublish{Channel: ch2, Publish: engine.BasicPublish{RoutingKey: "q", Body: body, Props: &engine.Properties{DeliveryMode: 2}}})
	before := st.Stats().Appended
	mustApply(t, b,
		engine.CmdSetPolicy{Policy: engine.Policy{Vhost: "/", Name: "lim", Pattern: "^q$", ApplyTo: "queues", Definition: engine.Table{"max-length": int32(50), "message-ttl": int32(3600_000)}}},
		engine.CmdDeleteVhost{Name: "v2"})
	var refused error
	b.locked(func() { refused = b.refused })
	if refused != nil {
		t.Fatal(refused)
	}
	// A record for the policy, the queue's taking it up, 150 takes; one
	// for the vhost.
	if n := st.Stats().Appended - before; n < 150 || n > 160 {
		t.Fatalf("the policy and the deletion appended %d records, want about 153", n)
	}
	stopOnDir(t, b)

	b, st = startOnDirWith(t, dir, opts)
	got := readyBodies(b, "q")
	var policies int
	var vhosts []string
	b.locked(func() {
		vhosts = b.eng.Vhosts()
		policies = len(b.eng.Policies("/"))
	})
	if len(got) != 50 || got[0][0] != 150 || policies != 1 || len(vhosts) != 1 {
		t.Fatalf("after the restart: %d messages in q (first %d), %d policies, vhosts %v; want the last 50, 1 policy, only /", len(got), got[0][0], policies, vhosts)
	}
	appended := st.Stats().Appended
	stopOnDir(t, b)
	b, st = startOnDirWith(t, dir, opts)
	defer stopOnDir(t, b)
	if got := st.Stats().Appended; got != appended {
		t.Fatalf("a start with nothing to change appended %d records", got-appended)
	}
	if got := readyBodies(b, "q"); len(got) != 50 {
		t.Fatalf("after a second restart: %d messages", len(got))
	}
}

// TestRefusedRecordIsNotConfirmed: a record past MaxRecordBytes (a
// message larger than the limit, which only a limit below the default
// allows) is refused by the store. Nothing is confirmed from then on,
// publishers are blocked with the reason, and a snapshot takes the state
// to disk, so the message comes back after a restart.
func TestRefusedRecordIsNotConfirmed(t *testing.T) {
	dir := t.TempDir()
	b, st := startOnDirWith(t, dir, store.Options{MaxRecordBytes: 4096})
	blocked := make(chan error, 4)
	b.OnDiskError(func(err error) { blocked <- err })
	ch := openChannel(t, b)
	snaps := st.Stats().SnapshotTime
	mustApply(t, b,
		engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "q", Durable: true}},
		engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "q", Body: make([]byte, 8192), Props: &engine.Properties{DeliveryMode: 2}}})
	select {
	case err := <-blocked:
		if !errors.Is(err, store.ErrTooLarge) {
			t.Fatalf("publishers blocked with %v, want the refusal", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("publishers were not blocked")
	}
	if end := b.LogEnd(); end != math.MaxUint64 {
		t.Fatalf("LogEnd %d after a refused record: a confirm would not wait", end)
	}
	deadline := time.Now().Add(10 * time.Second)
	for st.Stats().SnapshotTime.Equal(snaps) {
		if time.Now().After(deadline) {
			t.Fatal("no snapshot after the refused record")
		}
		time.Sleep(5 * time.Millisecond)
	}
	stopOnDir(t, b)
	b, _ = startOnDirWith(t, dir, store.Options{MaxRecordBytes: 4096})
	defer stopOnDir(t, b)
	if got := readyBodies(b, "q"); len(got) != 1 || len(got[0]) != 8192 {
		t.Fatalf("after the restart: %d messages, want the refused one", len(got))
	}
}
