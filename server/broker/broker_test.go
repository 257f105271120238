package broker

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"warren/driver/sink"

	"warren/engine"
)

type recorder struct {
	mu  sync.Mutex
	evs []engine.Event
}

func (r *recorder) Events(evs []engine.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, evs...)
}

func (r *recorder) kinds() []engine.EventKind { return r.kindsWhere(nil) }

// kindsWhere returns the kinds of the events keep keeps (all when nil).
func (r *recorder) kindsWhere(keep func(engine.Event) bool) []engine.EventKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ks []engine.EventKind
	for _, e := range r.evs {
		if keep == nil || keep(e) {
			ks = append(ks, e.Kind)
		}
	}
	return ks
}

// TestTimersFireOnWallClock runs the driver in a synctest bubble, whose
// clock is virtual: a message with a 5 s TTL expires when 5 s have passed,
// without the test sleeping for real.
func TestTimersFireOnWallClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := Start(engine.Config{}, nil)
		defer b.Stop()
		rec := &recorder{}
		b.Observe(rec)
		ch := openChannel(t, b)
		mustApply(t, b, engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "q", Args: engine.Table{"x-message-ttl": int64(5000)}}},
			engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "q", Body: []byte("hi")}})
		time.Sleep(4999 * time.Millisecond)
		synctest.Wait()
		for _, k := range rec.kinds() {
			if k == engine.EvExpired {
				t.Fatal("expired early")
			}
		}
		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		found := false
		for _, k := range rec.kinds() {
			found = found || k == engine.EvExpired
		}
		if !found {
			t.Fatalf("no expiry after 5 s: %v", rec.kinds())
		}
	})
}

// TestEventsGoToTheirConnection checks that a connection's sink sees its
// own deliveries and not another connection's.
func TestEventsGoToTheirConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := Start(engine.Config{}, nil)
		defer b.Stop()
		a, c := &recorder{}, &recorder{}
		open := engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/"}}
		res := mustApply(t, b, open, open)
		connA, connC := res[0].Conn, res[1].Conn
		b.Attach(connA, a)
		b.Attach(connC, c)
		chA, chC := engine.ChannelID{Conn: connA, Num: 1}, engine.ChannelID{Conn: connC, Num: 1}
		mustApply(t, b, engine.CmdOpenChannel{Conn: connA, Num: 1}, engine.CmdOpenChannel{Conn: connC, Num: 1},
			engine.CmdQueueDeclare{Channel: chA, Declare: engine.QueueDeclare{Queue: "q"}},
			engine.CmdBasicConsume{Channel: chA, Consume: engine.BasicConsume{Queue: "q", NoAck: true}},
			engine.CmdBasicPublish{Channel: chC, Publish: engine.BasicPublish{RoutingKey: "q", Body: []byte("x")}})
		has := func(r *recorder, k engine.EventKind) bool {
			for _, got := range r.kinds() {
				if got == k {
					return true
				}
			}
			return false
		}
		if !has(a, engine.EvDelivered) || has(c, engine.EvDelivered) {
			t.Fatalf("a=%v c=%v", a.kinds(), c.kinds())
		}
		if !has(c, engine.EvPublished) || has(a, engine.EvPublished) {
			t.Fatalf("a=%v c=%v", a.kinds(), c.kinds())
		}
	})
}

// filtering is a recorder that wants some kinds only (a sink.Filter), and
// counts the batches it is handed.
type filtering struct {
	recorder
	want    sink.Kinds
	batches int
}

func (f *filtering) Kinds() sink.Kinds { return f.want }

func (f *filtering) Events(evs []engine.Event) {
	f.mu.Lock()
	f.batches++
	f.mu.Unlock()
	f.recorder.Events(evs)
}

// own returns the kinds of f's events that are conn's and of a kind f
// wants: what a sink.Filter acts on.
func (f *filtering) own(conn engine.ConnID) []engine.EventKind {
	return f.kindsWhere(func(e engine.Event) bool { return e.Channel.Conn == conn && f.want.Has(e.Kind) })
}

// TestFilteringSinksGetWholeBatches: a publish whose only delivery goes to
// another connection reaches the consumer's filtering sink as one batch,
// and the publisher's sink not at all; a publish delivered on two
// connections is sorted, each sink getting its own events of the kinds
// it wants.
func TestFilteringSinksGetWholeBatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := Start(engine.Config{}, nil)
		defer b.Stop()
		a := &filtering{want: sink.KindsOf(engine.EvDelivered)}
		c := &filtering{want: sink.KindsOf(engine.EvDelivered)}
		chA, chC := openChannel(t, b), openChannel(t, b)
		connA, connC := chA.Conn, chC.Conn
		mustApply(t, b, engine.CmdQueueDeclare{Channel: chA, Declare: engine.QueueDeclare{Queue: "qa"}},
			engine.CmdQueueDeclare{Channel: chA, Declare: engine.QueueDeclare{Queue: "qc"}},
			engine.CmdExchangeDeclare{Channel: chA, Declare: engine.ExchangeDeclare{Exchange: "both", Type: "fanout"}},
			engine.CmdQueueBind{Channel: chA, Bind: engine.QueueBind{Queue: "qa", Exchange: "both"}},
			engine.CmdQueueBind{Channel: chA, Bind: engine.QueueBind{Queue: "qc", Exchange: "both"}},
			engine.CmdBasicConsume{Channel: chA, Consume: engine.BasicConsume{Queue: "qa", NoAck: true}},
			engine.CmdBasicConsume{Channel: chC, Consume: engine.BasicConsume{Queue: "qc", NoAck: true}})
		b.Attach(connA, a)
		b.Attach(connC, c)

		mustApply(t, b, engine.CmdBasicPublish{Channel: chC, Publish: engine.BasicPublish{RoutingKey: "qa", Body: []byte("x")}})
		if a.batches != 1 || c.batches != 0 || len(a.own(connA)) != 1 {
			t.Fatalf("to qa: a got %d batches %v, c %d batches %v", a.batches, a.kinds(), c.batches, c.kinds())
		}
		if len(a.evs) < 3 {
			t.Fatalf("a was handed %v, want the publish's whole batch (published, enqueued, delivered)", a.kinds())
		}

		a.evs, a.batches = nil, 0
		mustApply(t, b, engine.CmdBasicPublish{Channel: chC, Publish: engine.BasicPublish{Exchange: "both", Body: []byte("y")}})
		for _, s := range []struct {
			name string
			f    *filtering
			conn engine.ConnID
		}{{"a", a, connA}, {"c", c, connC}} {
			if s.f.batches != 1 || len(s.f.evs) != 1 || len(s.f.own(s.conn)) != 1 {
				t.Fatalf("fanout: %s got %d batches %v, want its one delivery", s.name, s.f.batches, s.f.kinds())
			}
		}
	})
}

func TestApplyReturnsResultsInOrder(t *testing.T) {
	b := Start(engine.Config{}, nil)
	defer b.Stop()
	res, err := b.Apply([]engine.Command{
		engine.CmdOpenConnection{Open: engine.ConnectionOpen{User: "guest", Vhost: "/"}},
	}, nil)
	if err != nil || len(res) != 1 || res[0].Err != nil || res[0].Conn == 0 {
		t.Fatalf("open: %v %+v", err, res)
	}
	conn := res[0].Conn
	res, err = b.Apply([]engine.Command{
		engine.CmdOpenChannel{Conn: conn, Num: 1},
		engine.CmdQueueDeclare{Channel: engine.ChannelID{Conn: conn, Num: 1}, Declare: engine.QueueDeclare{Queue: "q"}},
	}, res[:0])
	if err != nil || len(res) != 2 || res[1].Err != nil || res[1].Declared.Queue != "q" {
		t.Fatalf("declare: %v %+v", err, res)
	}
	// A command that fails is the last applied: the publish after it was
	// for the channel it closed.
	ch := engine.ChannelID{Conn: conn, Num: 1}
	res, err = b.Apply([]engine.Command{
		engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{Exchange: "missing"}},
		engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "q"}},
	}, res[:0])
	if err != nil || len(res) != 1 || res[0].Err == nil {
		t.Fatalf("failed publish: %v %+v, want one result with its error", err, res)
	}
	b.Stop()
	if _, err := b.Apply(nil, nil); err != ErrStopped {
		t.Fatalf("after Stop: %v, want ErrStopped", err)
	}
}
