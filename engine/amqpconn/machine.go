package amqpconn

import (
	"unicode/utf8"

	"warren/engine"
	"warren/engine/amqp"
)

// Config is what the server proposes and says of itself.
type Config struct {
	ChannelMax       uint16 // proposed in connection.tune; RabbitMQ's default 2047
	FrameMax         uint32 // proposed; RabbitMQ's default 131072
	Heartbeat        uint16 // proposed, seconds; RabbitMQ's default 60
	Product, Version string
}

// Out is one thing to send. Either Method (with Props and Body for content
// the machine builds, never today) or, when Event.Kind is set, an event the
// writer encodes as frames (basic.deliver or get-ok with its message,
// basic.return, basic.ack or nack): kept as what those frames need of the
// event, by value (EventFrames).
type Out struct {
	Channel uint16
	Method  amqp.Method
	Event   EventFrames
	// Durable marks a publisher confirm or tx.commit-ok that may go out
	// only once the command log is on disk (the driver's durability).
	Durable bool
	// Confirm marks an Out that keeps its place behind held durable
	// confirms (basic.ack, basic.nack, tx.commit-ok).
	Confirm bool
	// CloseAfter: close the transport once this is written (a refused
	// login, close-ok to a close before connection.open).
	CloseAfter bool
}

// Login is a start-ok's credentials, for the driver to check.
type Login struct {
	Mechanism, User, Pass string
}

// Ready is what the machine wants done, drained by the driver and cleared
// by Advance.
type Ready struct {
	Out []Out
	// Commands are for engine.Apply, in order. Publishes and acks come by
	// pointer into the machine's storage (engine.Apply takes either
	// form), which Results reuses: a driver keeps none of them after.
	Commands []engine.Command
	// Login is set when start-ok arrived with readable credentials.
	Login *Login
	// Open is set when connection.open arrived after a login: the vhost
	// the client asks for.
	Open *string
	// Tuned is set when tune-ok was accepted: the driver applies the
	// negotiated frame_max (Tuned) to its reader and transport.
	Tuned bool
}

// chanState is what the connection knows of one channel number. A number
// in state 0 is closed: never opened, or closed and forgotten.
type chanState uint8

const (
	chanOpen chanState = iota + 1
	// chanClosing: the server sent channel.close (a channel exception)
	// and awaits the client's close-ok. AMQP 0-9-1 (channel.close): "After
	// sending this method, any received methods except Close and Close-OK
	// MUST be discarded." The publishes and acks a client pipelined before
	// it saw the close are dropped here, not taken for errors.
	chanClosing
)

// phase is where the handshake is.
type phase uint8

const (
	phaseStart   phase = iota // connection.start sent, awaiting start-ok
	phaseLogin                // start-ok read, the driver checks the login
	phaseTune                 // connection.tune sent
	phaseOpening              // connection.open read, the driver opens it
	phaseOpen                 // running
)

// Machine is one connection's protocol state.
type Machine struct {
	cfg   Config
	phase phase
	ready Ready

	user        string
	caps        amqp.Table
	clientProps engine.Table
	loginMech   string
	tuned       bool
	// pendingStartOk and pendingUser are the start-ok whose Login the
	// driver is checking.
	pendingStartOk *amqp.ConnectionStartOk
	pendingUser    string

	frameMax   uint32
	channelMax uint16
	heartbeat  uint16

	id    engine.ConnID
	vhost string
	chans channelTable

	// dead: the connection is closing (either side sent
	// connection.close); everything but the closing handshake is
	// discarded. gone: the engine closed the connection in a command
	// whose ConnectionClosed event has not come yet.
	dead, gone bool
	// closing: connection.close has gone out or been answered; the
	// driver reads only to discard. ended: the connection is over.
	closing, ended bool

	paused bool

	// pend are the entries made from the inputs whose commands are out
	// for applying, in order; waiting are inputs read meanwhile that wait
	// for their results (see Recv).
	pend    []pending
	waiting []amqp.Command
	// barriers counts the entries of pend that later inputs must wait
	// for: commands that wait for a reply, and exceptions raised in
	// order (Recv).
	barriers int
	// speaking counts the entries of pend that may send something once
	// the results are in (all but pendNone's: a reply, an exception, an
	// Out held in order); see Overtakes.
	speaking int
	// pendOuts are the pendOut entries' Outs; spareOuts its previous
	// array, reused.
	pendOuts, spareOuts []Out
	// spare is waiting's previous array, reused.
	spare []amqp.Command
	// pubs and acks hold the basic.publish and basic.ack commands out in
	// Ready.Commands, which point into them (engine.Apply takes a command
	// by pointer), and are reused once their results are in: a command
	// value in Commands would be copied to the heap, two allocations per
	// message published and acknowledged. An array outgrown stays with
	// the commands that point into it.
	pubs []engine.CmdBasicPublish
	acks []engine.CmdBasicAck
}

// New returns the machine of a connection whose protocol header has just
// been read; Start sends connection.start.
func New(cfg Config) *Machine {
	return &Machine{cfg: cfg, frameMax: cfg.FrameMax, channelMax: cfg.ChannelMax}
}

// Ready returns what the machine wants done.
func (m *Machine) Ready() *Ready { return &m.ready }

// Advance clears Ready's Out, Login, Open and Tuned once the driver has
// handled them; Commands are cleared by Results.
func (m *Machine) Advance() {
	clear(m.ready.Out)
	m.ready.Out = m.ready.Out[:0]
	m.ready.Login, m.ready.Open, m.ready.Tuned = nil, nil, false
}

// Conn is the engine's id of the connection once it has opened.
func (m *Machine) Conn() engine.ConnID { return m.id }

// Opened reports whether connection.open succeeded.
func (m *Machine) IsOpen() bool { return m.phase == phaseOpen }

// User is the logged-in user; Vhost the vhost opened.
func (m *Machine) User() string  { return m.user }
func (m *Machine) Vhost() string { return m.vhost }

// Capability reports whether the client announced a capability in
// start-ok (connection.blocked, consumer_cancel_notify, ...).
func (m *Machine) Capability(name string) bool { return m.caps[name] == true }

// Tuned is the negotiated frame_max, channel_max and heartbeat.
func (m *Machine) Tuned() (frameMax uint32, channelMax uint16, heartbeatSec uint16) {
	return m.frameMax, m.channelMax, m.heartbeat
}

// Closing reports whether the connection is in the closing handshake; Ended
// whether it is over (the client's close-ok to the server's close).
func (m *Machine) Closing() bool { return m.closing }
func (m *Machine) Ended() bool   { return m.ended }

// Paused reports whether back-pressure has paused the connection.
func (m *Machine) Paused() bool { return m.paused }

// EventsGoNow reports whether a stateless event's frames (Stateless,
// EventOut) may go out now, ahead of the results of the commands handed
// out: none of those results sends anything (they are all pipelined
// publishes and acks, whose errors come as events) and nothing waits in
// order behind them, so no reply can be overtaken. A driver may then
// send the events those commands cause as they come, as it sends those
// that come while no command is out.
func (m *Machine) EventsGoNow() bool { return m.speaking == 0 }

// send queues an Out behind the replies still waiting for results.
func (m *Machine) send(o Out) {
	if len(m.pend) > 0 {
		m.pendOuts = append(m.pendOuts, o)
		m.pend = append(m.pend, pending{kind: pendOut, out: int32(len(m.pendOuts) - 1)})
		m.speaking++
		return
	}
	m.ready.Out = append(m.ready.Out, o)
}

func (m *Machine) sendMethod(ch uint16, meth amqp.Method) { m.send(Out{Channel: ch, Method: meth}) }

// ShortText fits a reply text in a shortstr (255 bytes), as RabbitMQ
// truncates long ones; the cut falls between characters, so that a text
// naming a queue in UTF-8 stays UTF-8.
func ShortText(s string) string {
	if len(s) <= 255 {
		return s
	}
	n := 252
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

func methodOf(m amqp.Method) engine.Method {
	return engine.Method{Class: m.ClassID(), ID: m.MethodID()}
}
