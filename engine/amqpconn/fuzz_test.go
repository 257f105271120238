package amqpconn_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"warren/engine"
	"warren/engine/amqp"
	"warren/engine/amqpconn"
)

// FuzzMachineAgreesWithEngine drives a machine with random commands on a
// few channels, some read in one turn (pipelined), against a real engine,
// and checks that the machine's view of its channels never drifts from
// the engine's: the machine hands the engine a command only for a channel
// it holds open, so the engine never answers "expected 'channel.open'"
// (which would close the whole connection where AMQP wants the command
// discarded), and nothing panics.
func FuzzMachineAgreesWithEngine(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte{0, 16, 3, 19, 7, 7, 7, 2, 6, 0, 5})
	f.Fuzz(func(t *testing.T, ops []byte) {
		b := engine.New(engine.Config{Seed: 1})
		m := amqpconn.New(amqpconn.Config{ChannelMax: 3, FrameMax: 131072, Heartbeat: 60})
		m.Start()
		r := b.Apply(engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "guest"}})
		drive := func() {
			for range 100 {
				rd := m.Ready()
				cmds := rd.Commands
				m.Advance()
				if len(cmds) == 0 {
					return
				}
				var res []engine.Result
				for _, c := range cmds {
					rr := b.Apply(c)
					res = append(res, rr)
					if ee, ok := rr.Err.(*engine.Error); ok && ee.Connection && strings.Contains(ee.Text, "expected 'channel.open'") {
						t.Fatalf("the engine refused %s on a channel the machine held open: %v", engine.KindOf(c), rr.Err)
					}
					if rr.Err != nil {
						break
					}
				}
				m.Events(b.DrainEvents(nil))
				m.Results(res)
			}
			t.Fatal("the machine kept handing out commands")
		}
		fuzzHandshake(m, r.Conn)
		m.Advance()
		for i, in := range fuzzInputs(ops) {
			m.Recv(in)
			if i%3 != 0 { // two of three read in the same turn as the next
				continue
			}
			drive()
		}
		drive()
	})
}

// fuzzInputs makes a client's commands from a fuzzer's bytes: a few
// channels, publishes (one to a missing exchange), consumes, acks, gets,
// closes.
func fuzzInputs(ops []byte) []amqp.Command {
	var ins []amqp.Command
	for _, op := range ops {
		ch := uint16(op>>4)%3 + 1
		var meth amqp.Method
		var props *amqp.Properties
		switch op % 12 {
		case 0:
			meth = &amqp.ChannelOpen{}
		case 1:
			meth = &amqp.QueueDeclare{Queue: "q"}
		case 2:
			meth, props = &amqp.BasicPublish{RoutingKey: "q"}, &amqp.Properties{}
		case 3:
			meth, props = &amqp.BasicPublish{Exchange: "missing"}, &amqp.Properties{}
		case 4:
			meth = &amqp.BasicConsume{Queue: "q"}
		case 5:
			meth = &amqp.BasicAck{DeliveryTag: uint64(op>>4) + 1}
		case 6:
			meth = &amqp.ChannelClose{}
		case 7:
			meth = &amqp.ChannelCloseOk{}
		case 8:
			meth = &amqp.ConfirmSelect{}
		case 9:
			meth = &amqp.BasicGet{Queue: "q"}
		case 10:
			meth = &amqp.BasicNack{DeliveryTag: 1, Multiple: true, Requeue: true}
		case 11:
			meth = &amqp.QueueDelete{Queue: "q"}
		}
		ins = append(ins, amqp.Command{Channel: ch, Method: meth, Props: props})
	}
	return ins
}

// FuzzEventsGoNowKeepsOrder: a driver that sends the stateless events
// of its commands at once, ahead of their results, whenever EventsGoNow
// said so before it applied them (driver/conn's sink), sends exactly
// what one that hands every event to the machine sends, in the same
// order: no reply is overtaken.
func FuzzEventsGoNowKeepsOrder(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
	f.Add([]byte{0, 1, 8, 4, 2, 2, 2, 5, 2, 9, 2, 3, 2, 6, 7, 0, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		ins := fuzzInputs(ops)
		ref, direct := sentBy(t, ins, false), sentBy(t, ins, true)
		if !slices.Equal(ref, direct) {
			t.Fatalf("sent with events at once:\n%s\nthrough the machine:\n%s", strings.Join(direct, "\n"), strings.Join(ref, "\n"))
		}
	})
}

// sentBy runs ins through a machine over a fresh engine, three in a
// turn, and returns what it sends; with goNow, a turn whose commands
// EventsGoNow allowed it sends their stateless events itself.
func sentBy(t *testing.T, ins []amqp.Command, goNow bool) []string {
	b := engine.New(engine.Config{Seed: 1})
	m := amqpconn.New(amqpconn.Config{ChannelMax: 3, FrameMax: 131072, Heartbeat: 60})
	m.Start()
	r := b.Apply(engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "guest"}})
	var sent []string
	send := func(o *amqpconn.Out) {
		s := fmt.Sprintf("ch=%d %T", o.Channel, o.Method)
		if o.Event.Kind != 0 {
			s = fmt.Sprintf("ch=%d %s tag=%d", o.Channel, o.Event.Kind, o.Event.DeliveryTag)
		}
		sent = append(sent, s)
	}
	flush := func() {
		rd := m.Ready()
		for i := range rd.Out {
			send(&rd.Out[i])
		}
		m.Advance()
	}
	drive := func() {
		for range 100 {
			flush()
			cmds := m.Ready().Commands
			if len(cmds) == 0 {
				return
			}
			now := goNow && m.EventsGoNow()
			var res []engine.Result
			for _, c := range cmds {
				rr := b.Apply(c)
				res = append(res, rr)
				if rr.Err != nil {
					break
				}
			}
			evs := b.DrainEvents(nil)
			if now {
				kept := evs[:0]
				for i := range evs {
					ev := &evs[i]
					if ev.Channel.Conn != r.Conn || !amqpconn.Stateless(ev.Kind) {
						kept = append(kept, *ev)
					} else if o, ok := amqpconn.EventOut(ev, false); ok {
						send(&o)
					}
				}
				evs = kept
			}
			m.Events(evs)
			m.Results(res)
		}
		t.Fatal("the machine kept handing out commands")
	}
	fuzzHandshake(m, r.Conn)
	flush()
	for i, in := range ins {
		m.Recv(in)
		if i%3 != 0 {
			continue
		}
		drive()
	}
	drive()
	return sent
}

// fuzzHandshake takes m through the handshake as the driver answers it:
// guest logs in, channel-max 3, the default vhost, opened as conn.
func fuzzHandshake(m *amqpconn.Machine, conn engine.ConnID) {
	m.Recv(amqp.Command{Method: &amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest"}})
	m.LoggedIn(true)
	m.Recv(amqp.Command{Method: &amqp.ConnectionTuneOk{ChannelMax: 3, FrameMax: 131072}})
	m.Recv(amqp.Command{Method: &amqp.ConnectionOpen{VirtualHost: "/"}})
	m.Opened(conn, "/")
}
