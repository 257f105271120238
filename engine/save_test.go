package engine_test

import (
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
