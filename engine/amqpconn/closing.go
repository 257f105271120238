package amqpconn

import (
	"warren/engine"
	"warren/engine/amqp"
)

// The closing handshake, as rabbit_reader runs it. Once either side has
// sent connection.close the connection is closing: the server discards
// every frame but connection.close (answered with close-ok again) and
// connection.close-ok (which ends the connection), and otherwise waits for
// the client to close its socket, for at most CloseWait. Closing the socket
// at once after close-ok instead races the client: amqp091-go's reader saw
// EOF before its Close had finished and reported "501 EOF" to NotifyClose,
// and amqplib's close callback never fired.

// Closing timeouts from rabbit_reader, in milliseconds: before tune-ok it
// waits NORMAL_TIMEOUT; after it, the negotiated heartbeat interval, at
// most CLOSING_TIMEOUT (which also applies when heartbeats are off).
const (
	closeWaitBeforeTuneMs = 3000
	closeWaitMaxMs        = 30000
)

// CloseWaitMs is how long the closing state lasts before the driver drops
// the socket.
func (m *Machine) CloseWaitMs() int64 {
	if !m.tuned {
		return closeWaitBeforeTuneMs
	}
	if d := int64(m.heartbeat) * 1000; d > 0 && d < closeWaitMaxMs {
		return d
	}
	return closeWaitMaxMs
}

// closing runs the closing state: only the closing handshake counts.
func (m *Machine) inClosing(in amqp.Command) {
	if in.Channel != 0 {
		return
	}
	switch in.Method.(type) {
	case *amqp.ConnectionCloseOk:
		m.ended = true
	case *amqp.ConnectionClose:
		m.send(Out{Method: &amqp.ConnectionCloseOk{}})
	}
}

// closeConnection queues connection.close and enters the closing state.
// It does not touch the engine (see fail).
func (m *Machine) closeConnection(code int, text string, meth engine.Method) {
	m.dead = true
	m.send(Out{Method: &amqp.ConnectionClose{ReplyCode: uint16(code), ReplyText: ShortText(text), FailingClassID: meth.Class, FailingMethodID: meth.ID}})
	m.closing = true
}

// fail raises a connection exception found by the machine: the engine
// closes the connection (requeueing, deleting exclusive queues) and the
// client is sent connection.close. Nothing happens if the connection is
// already closing.
func (m *Machine) fail(code int, text string, meth engine.Method) {
	if m.dead {
		return
	}
	if m.phase == phaseOpen && !m.gone {
		m.command(engine.CmdCloseConnection{Conn: m.id}, pending{kind: pendNone})
		m.gone = true
	}
	m.closeConnection(code, text, meth)
}

// clientClosed answers the client's connection.close: the engine closes
// the connection, close-ok goes out, and the connection waits in the
// closing state for the client to close its socket.
func (m *Machine) clientClosed() {
	if !m.dead {
		m.dead = true
		if !m.gone {
			m.command(engine.CmdCloseConnection{Conn: m.id}, pending{kind: pendNone})
			m.gone = true
		}
	}
	m.send(Out{Method: &amqp.ConnectionCloseOk{}})
	m.closing = true
}

// ForceClose closes the connection from the server's side with 320
// CONNECTION_FORCED and text (a server shutdown, a shared session's end):
// the engine's connection closes and connection.close goes out, and the
// transport closes once it is written.
//
// The close goes out first, ahead of the command: the broker may have
// ended (a shared session's end), and the client is told either way.
func (m *Machine) ForceClose(text string) {
	m.send(Out{Method: &amqp.ConnectionClose{ReplyCode: engine.ConnectionForced, ReplyText: ShortText(text)}, CloseAfter: true})
	if !m.dead && m.phase == phaseOpen && !m.gone {
		m.command(engine.CmdCloseConnection{Conn: m.id}, pending{kind: pendNone})
		m.gone = true
	}
	m.dead = true
}

// Shutdown is the connection's end, whatever the reason (the socket
// closed, the closing handshake finished): it returns the command that
// closes the engine's connection if that is still open, and the machine
// takes it as closed.
func (m *Machine) Shutdown() (engine.Command, bool) {
	open := m.phase == phaseOpen && !m.gone
	m.gone, m.dead = true, true
	if !open {
		return nil, false
	}
	return engine.CmdCloseConnection{Conn: m.id}, true
}

// FrameError handles a codec error: a connection error (or any error
// before connection.open) closes the connection; a channel error (a
// message over the size limit) closes its channel, and is rabbit_channel's
// "expected 'channel.open'" on a channel not open.
func (m *Machine) FrameError(err *amqp.Error) {
	if m.closing || m.ended {
		return
	}
	meth := engine.Method{Class: err.ClassID, ID: err.MethodID}
	if err.ConnectionError() || m.phase != phaseOpen {
		if m.phase == phaseOpen {
			m.fail(int(err.Code), err.Text, meth)
		} else {
			m.closeConnection(int(err.Code), err.Text, meth)
		}
		return
	}
	if m.dead || m.gone {
		return
	}
	n := err.Channel
	switch m.chans.get(n) {
	case chanOpen:
		m.command(engine.CmdChannelException{Channel: engine.ChannelID{Conn: m.id, Num: n}, Err: &engine.Error{Code: int(err.Code), Text: err.Text, Method: meth}}, pending{kind: pendNone})
		m.chans.set(n, chanClosing)
	case chanClosing:
	default:
		m.fail(engine.ChannelError, "CHANNEL_ERROR - expected 'channel.open'", meth)
	}
}
