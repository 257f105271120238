package amqpconn

import (
	"warren/engine"
	"warren/engine/amqp"
)

// pendKind is what a pending entry waits to do.
type pendKind uint8

const (
	pendNone  pendKind = iota // a command whose result needs no reply
	pendReply                 // a command whose success sends reply
	pendOut                   // an Out that waits behind earlier replies
	pendFail                  // a connection exception raised in order
)

// pending is one entry of the queue between commands handed out and their
// results (Recv, Results).
type pending struct {
	kind pendKind
	// cmd says the entry consumed a command, whose result it takes.
	cmd bool
	// in is the client's command the entry came from, mapped again if an
	// earlier command failed; has says there is one.
	in  amqp.Command
	has bool
	// sync: the entry came from a command that waits for its reply, so
	// later inputs wait for its result (Recv).
	sync bool
	// out indexes Machine.pendOuts: a pendOut's Out, kept apart so that
	// an entry stays small (an Out holds an event's EventFrames).
	out int32
	// reply builds the -ok from the result; nil for none.
	reply   func(r *engine.Result) amqp.Method
	channel uint16
	effect  chanEffect
	// code, text and meth are a pendFail's exception.
	code int
	text string
	meth engine.Method
}

// chanEffect is what a command's success does to its channel's state.
type chanEffect uint8

const (
	effectNone chanEffect = iota
	effectOpen
	effectForget
)

// Recv takes one command the client sent (heartbeats need not be
// passed). A command is mapped at once when nothing it could depend on
// is outstanding: always when no commands await results, and a pipelined
// one (basic.publish, ack, nack, reject) behind other pipelined ones.
// Anything else waits for the results it depends on, in order.
func (m *Machine) Recv(in amqp.Command) {
	if len(m.waiting) > 0 || !m.canMap(in) {
		m.waiting = append(m.waiting, in)
		return
	}
	m.handle(in)
}

// canMap reports whether in may be mapped now (see Recv).
func (m *Machine) canMap(in amqp.Command) bool {
	if len(m.pend) == 0 {
		return true
	}
	return Pipelined(in) && m.barriers == 0
}

// Pipelined reports whether a command has no synchronous reply, so the
// client need not wait for it and a driver may gather many in one turn:
// basic.publish and the acknowledgements. Their errors reach the client as
// channel.close through the events either way.
func Pipelined(in amqp.Command) bool {
	if in.Channel == 0 {
		return false
	}
	switch in.Method.(type) {
	case *amqp.BasicPublish, *amqp.BasicAck, *amqp.BasicNack, *amqp.BasicReject:
		return true
	}
	return false
}

// Busy reports whether commands handed out await their results, or inputs
// wait to be mapped.
func (m *Machine) Busy() bool { return len(m.pend) > 0 || len(m.waiting) > 0 }

// handle maps one input.
func (m *Machine) handle(in amqp.Command) {
	if m.ended {
		return
	}
	if m.closing {
		m.inClosing(in)
		return
	}
	if m.phase != phaseOpen {
		m.handshake(in)
		return
	}
	if in.Channel == 0 {
		switch in.Method.(type) {
		case *amqp.ConnectionClose:
			m.clientClosed()
			return
		case *amqp.ConnectionUpdateSecret:
			m.sendMethod(0, &amqp.ConnectionUpdateSecretOk{})
			return
		}
		// rabbit_reader's handle_method0 for any other method while the
		// connection runs.
		m.failInOrder(in, engine.ChannelError, "CHANNEL_ERROR - unexpected method in connection state running", methodOf(in.Method))
		return
	}
	m.channelCommand(in)
}

// command hands out c, with p the entry that takes its result.
func (m *Machine) command(c engine.Command, p pending) {
	p.cmd = true
	if p.sync {
		m.barriers++
	}
	if p.kind != pendNone {
		m.speaking++
	}
	m.ready.Commands = append(m.ready.Commands, c)
	m.pend = append(m.pend, p)
}

// failInOrder is fail behind the replies still waiting for results.
func (m *Machine) failInOrder(in amqp.Command, code int, text string, meth engine.Method) {
	if len(m.pend) > 0 {
		m.pend = append(m.pend, pending{kind: pendFail, in: in, has: true, code: code, text: text, meth: meth})
		m.barriers++
		m.speaking++
		return
	}
	m.fail(code, text, meth)
}

// Results takes the results of the commands handed out, in order. The
// driver applies them until one fails: res then ends with it, and the
// inputs whose commands were not applied are mapped again (that command's
// channel is closing now, so they are discarded) and may hand out more.
func (m *Machine) Results(res []engine.Result) {
	clear(m.ready.Commands) // applied: these are their results
	m.ready.Commands = m.ready.Commands[:0]
	clear(m.pubs) // nothing points into them now; let go of the bodies
	m.pubs, m.acks = m.pubs[:0], m.acks[:0]
	old, oldOuts := m.pend, m.pendOuts
	m.pend, m.pendOuts = nil, m.spareOuts[:0]
	m.barriers, m.speaking = 0, 0
	var redo []amqp.Command
	i, stopped := 0, false
	for k := range old {
		p := &old[k]
		if p.cmd && i >= len(res) {
			stopped = true // an earlier command failed: not applied
		}
		switch {
		case p.kind == pendOut:
			m.send(oldOuts[p.out]) // an event's, or an answer made in order
		case stopped:
			if p.has {
				redo = append(redo, p.in)
			}
		case p.kind == pendFail:
			m.fail(p.code, p.text, p.meth)
		default:
			r := &res[i]
			i++
			m.resolve(p, r)
		}
	}
	clear(old)
	if m.pend == nil {
		m.pend = old[:0]
	}
	clear(oldOuts)
	m.spareOuts = oldOuts[:0]
	// What waited goes after what must be mapped again, in order.
	waiting := m.waiting
	m.waiting = m.spare[:0]
	queue := append(redo, waiting...)
	for _, in := range queue {
		m.Recv(in)
	}
	clear(waiting)
	m.spare = waiting[:0]
}

// resolve handles one command's result.
func (m *Machine) resolve(p *pending, r *engine.Result) {
	if r.Err != nil {
		if ee, ok := r.Err.(*engine.Error); ok && ee.Connection {
			m.gone = true
			return
		}
		// A channel exception: the engine has closed the channel; its
		// ChannelClosed event tells the client.
		if m.chans.get(p.channel) == chanOpen {
			m.chans.set(p.channel, chanClosing)
		}
		return
	}
	switch p.effect {
	case effectOpen:
		m.chans.set(p.channel, chanOpen)
	case effectForget:
		m.chans.forget(p.channel)
	}
	if p.reply != nil {
		if meth := p.reply(r); meth != nil {
			m.sendMethod(p.channel, meth)
		}
	}
}
