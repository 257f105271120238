package engine_test

import (
	"strings"
	"testing"

	"warren/engine"
)

// saveLoad is Load(Save(b)), failing the test on an error.
func saveLoad(t *testing.T, b *engine.Broker) *engine.Broker {
	t.Helper()
	b.DrainEvents(nil)
	l, err := engine.Load(b.Save())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func openChannel(t *testing.T, b *engine.Broker) engine.ChannelID {
	t.Helper()
	conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := b.OpenChannel(conn, 1)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// TestLoadSharesMessages checks that a message routed to two queues is one
// message again after Load, as before Save: the snapshot writes it once.
func TestLoadSharesMessages(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1})
	ch := openChannel(t, b)
	for _, q := range []string{"a", "b"} {
		if _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: q}); err != nil {
			t.Fatal(err)
		}
		if err := b.QueueBind(ch, engine.QueueBind{Queue: q, Exchange: "amq.fanout"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.BasicPublish(ch, engine.BasicPublish{Exchange: "amq.fanout", Body: []byte("hello")}); err != nil {
		t.Fatal(err)
	}
	l := saveLoad(t, b)
	got := map[string]*engine.Message{}
	for _, q := range []string{"a", "b"} {
		ok, found, err := l.BasicGet(ch, engine.BasicGet{Queue: q, NoAck: true})
		if err != nil || !found {
			t.Fatalf("basic.get %s: %v %v", q, found, err)
		}
		got[q] = ok.Msg
	}
	if got["a"] != got["b"] || string(got["a"].Body) != "hello" {
		t.Fatalf("after Load the queues hold %p and %p, want one shared message", got["a"], got["b"])
	}
}

// TestLoadKeepsTimerTies checks that timers due at the same millisecond
// fire after Load in the order they were armed, not in an order Load
// makes up: queue "z" was armed first, so its message expires first.
func TestLoadKeepsTimerTies(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1})
	ch := openChannel(t, b)
	for _, q := range []string{"z", "a"} {
		if _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: q, Args: engine.Table{"x-message-ttl": int32(100)}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"z", "a"} {
		if err := b.BasicPublish(ch, engine.BasicPublish{RoutingKey: q, Body: []byte(q)}); err != nil {
			t.Fatal(err)
		}
	}
	l := saveLoad(t, b)
	var want, got []string
	for _, br := range []*engine.Broker{b, l} {
		br.AdvanceTo(100)
		for _, e := range br.DrainEvents(nil) {
			if br == b {
				want = append(want, e.String())
			} else {
				got = append(got, e.String())
			}
		}
	}
	if len(want) != 2 || len(got) != len(want) || want[0] != got[0] || want[1] != got[1] {
		t.Fatalf("after Load: %q, want %q", got, want)
	}
}

// TestSaveNeedsDrainedEvents checks that Save refuses a broker whose
// events the driver has not drained: they are its output, not state.
func TestSaveNeedsDrainedEvents(t *testing.T) {
	b := engine.New(engine.Config{})
	if _, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/"}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Save with undrained events did not panic")
		}
	}()
	b.Save()
}

// TestLoadKeepsPendingDeadLetters saves a broker whose dead letters wait
// for the next flush: a transaction's rejections finished by a later
// command on the channel that flushes nothing (txcommit.go). The loaded
// broker must republish them as the original does.
func TestLoadKeepsPendingDeadLetters(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1, MaxBatch: 1})
	ch := openChannel(t, b)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "dead"})
	must(err)
	must(b.QueueBind(ch, engine.QueueBind{Queue: "dead", Exchange: "amq.fanout"}))
	_, err = b.QueueDeclare(ch, engine.QueueDeclare{Queue: "work", Args: engine.Table{"x-dead-letter-exchange": "amq.fanout"}})
	must(err)
	for range 3 {
		must(b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "work", Body: []byte("m")}))
	}
	_, err = b.BasicConsume(ch, engine.BasicConsume{Queue: "work"})
	must(err)
	b.Settle(b.Now())
	must(b.TxSelect(ch))
	for tag := uint64(1); tag <= 3; tag++ {
		must(b.Apply(engine.CmdBasicReject{Channel: ch, DeliveryTag: tag}).Err)
	}
	must(b.TxCommit(ch))
	must(b.TxRollback(ch)) // finishes the commit first, and flushes nothing
	pending := false
	for _, k := range engine.PendingWork(b) {
		pending = pending || k == "dead-letter"
	}
	if !pending {
		t.Fatal("no dead letters pending: the test no longer sets up what it means to")
	}
	l := saveLoad(t, b)
	var want, got []string
	for _, br := range []*engine.Broker{b, l} {
		br.Settle(br.Now() + 10)
		for _, e := range br.DrainEvents(nil) {
			if br == b {
				want = append(want, dumpEvent(e))
			} else {
				got = append(got, dumpEvent(e))
			}
		}
	}
	if d := strings.Join(got, "\n"); d != strings.Join(want, "\n") || len(want) == 0 {
		t.Fatalf("after Load:\n%s\nwant:\n%s", d, strings.Join(want, "\n"))
	}
}
