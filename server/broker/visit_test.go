package broker

import (
	"errors"
	"testing"

	"warren/engine"
)

// engineCode is err's AMQP reply code, 0 when it is no engine error.
func engineCode(err error) uint16 {
	var ee *engine.Error
	if errors.As(err, &ee) {
		return uint16(ee.Code)
	}
	return 0
}

// TestVisit applies visits' steps on connections the owner opens for
// them, and checks each step's outcome and that no connection outlives
// its visit.
func TestVisit(t *testing.T) {
	declare := func(q string) engine.Command {
		return engine.CmdQueueDeclare{Declare: engine.QueueDeclare{Queue: q}}
	}
	passive := func(q string) engine.Command {
		return engine.CmdQueueDeclare{Declare: engine.QueueDeclare{Queue: q, Passive: true}}
	}
	get := func(q string) engine.Command { return engine.CmdBasicGet{Get: engine.BasicGet{Queue: q}} }
	type want struct {
		code    uint16 // the step's engine reply code, 0 for none
		noVhost bool
		skipped bool
	}
	for _, tc := range []struct {
		name   string
		visit  Visit
		steps  []Step
		want   []want
		queues int // queues in "/" afterwards
	}{
		{name: "a command without a channel and two on one",
			steps: []Step{{Cmd: engine.CmdAddVhost{Name: "v"}}, {Vhost: "v", Cmd: declare("a")}, {Vhost: "/", Cmd: declare("b")}},
			want:  []want{{}, {}, {}}, queues: 1},
		{name: "a vhost that does not exist",
			steps: []Step{{Vhost: "nowhere", Cmd: declare("a")}, {Vhost: "nowhere", Unless: passive("a"), Cmd: declare("a")}},
			want:  []want{{noVhost: true}, {noVhost: true}}},
		{name: "a channel exception does not fail the next step",
			steps: []Step{{Vhost: "/", Cmd: passive("missing")}, {Vhost: "/", Cmd: declare("a")}},
			want:  []want{{code: 404}, {}}, queues: 1},
		{name: "unless it exists",
			steps: []Step{{Vhost: "/", Unless: passive("a"), Cmd: declare("a")},
				{Vhost: "/", Unless: passive("a"), Cmd: engine.CmdQueueDeclare{Declare: engine.QueueDeclare{Queue: "a", Durable: true}}}},
			want: []want{{}, {skipped: true}}, queues: 1},
		{name: "a checked visit carries the user's permissions, a probe none",
			visit: Visit{User: "nobody", Checked: true},
			steps: []Step{{Vhost: "/", Cmd: declare("a")}, {Vhost: "/", Probe: true, Cmd: passive("missing")}, {Vhost: "/", Unless: passive("b"), Cmd: declare("b")}},
			want:  []want{{code: 403}, {code: 404}, {code: 403}}},
		{name: "a get after one that fetched nothing is skipped",
			steps: []Step{{Vhost: "/", Cmd: declare("a")}, {Vhost: "/", Cmd: get("a")}, {Vhost: "/", AfterGot: true, Cmd: get("a")}, {Vhost: "/", Cmd: get("a")}},
			want:  []want{{}, {}, {skipped: true}, {}}, queues: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Start(engine.Config{}, nil)
			defer b.Stop()
			res, err := b.Visit(tc.visit, tc.steps, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != len(tc.want) {
				t.Fatalf("%d results, want %d", len(res), len(tc.want))
			}
			for i, w := range tc.want {
				r := res[i]
				if got := engineCode(r.Err); got != w.code || (r.Err == ErrNoVhost) != w.noVhost || r.Skipped != w.skipped {
					t.Errorf("step %d: err %v skipped %v, want code %d no vhost %v skipped %v", i, r.Err, r.Skipped, w.code, w.noVhost, w.skipped)
				}
			}
			r := b.Reader(nil)
			if conns := r.ConnectionRefs(); len(conns) != 0 {
				t.Errorf("connections outlived the visit: %v", conns)
			}
			if tot, _ := r.VhostTotals("/"); tot.Queues != tc.queues {
				t.Errorf("%d queues in /, want %d", tot.Queues, tc.queues)
			}
		})
	}
}

// TestVisitStepEvents: a step that asks gets the events its command
// caused on the visit's channel, and only those: a mandatory publish in
// confirm mode that no queue takes is returned, then confirmed.
func TestVisitStepEvents(t *testing.T) {
	b := Start(engine.Config{}, nil)
	defer b.Stop()
	pub := engine.CmdBasicPublish{Publish: engine.BasicPublish{RoutingKey: "nowhere", Mandatory: true, Body: []byte("x")}}
	res, err := b.Visit(Visit{}, []Step{{Vhost: "/", Cmd: engine.CmdConfirmSelect{}}, {Vhost: "/", Cmd: pub, Events: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []engine.EventKind
	for _, ev := range res[1].Events {
		if ev.Kind == engine.EvReturned || ev.Kind == engine.EvConfirmed || ev.Kind == engine.EvNacked {
			kinds = append(kinds, ev.Kind)
		}
		if ev.Msg != nil {
			t.Errorf("%v carries its message out of the turn", ev.Kind)
		}
	}
	if len(kinds) != 2 || kinds[0] != engine.EvReturned || kinds[1] != engine.EvConfirmed || res[1].DurableAt != 0 {
		t.Errorf("events %v, durable at %d; want returned, confirmed, 0", kinds, res[1].DurableAt)
	}
	if len(res[0].Events) != 0 {
		t.Errorf("a step that did not ask got events: %v", res[0].Events)
	}
}

// TestVisitRefusesAChannelCommandItCannotPlace: a step in a vhost whose
// command has no channel is a programmer's error.
func TestVisitRefusesAChannelCommandItCannotPlace(t *testing.T) {
	b := Start(engine.Config{}, nil)
	defer b.Stop()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	b.Visit(Visit{}, []Step{{Vhost: "/", Cmd: engine.CmdAddVhost{Name: "v"}}}, nil)
}

// TestReaderAfterStop: a Reader's methods return nothing once the broker
// has stopped, and Err says why.
func TestReaderAfterStop(t *testing.T) {
	b := Start(engine.Config{}, nil)
	r := b.Reader(nil)
	if vs := r.Vhosts(); len(vs) != 1 || r.Err() != nil {
		t.Fatalf("vhosts %v, err %v", vs, r.Err())
	}
	b.Stop()
	if vs := r.Vhosts(); vs != nil || !errors.Is(r.Err(), ErrStopped) {
		t.Errorf("after Stop: vhosts %v, err %v", vs, r.Err())
	}
	if _, err := b.ApplyOne(engine.CmdAddVhost{Name: "v"}); !errors.Is(err, ErrStopped) {
		t.Errorf("ApplyOne after Stop: %v", err)
	}
	if _, err := b.Visit(Visit{}, []Step{{Cmd: engine.CmdAddVhost{Name: "v"}}}, nil); !errors.Is(err, ErrStopped) {
		t.Errorf("Visit after Stop: %v", err)
	}
}
