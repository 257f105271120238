package conn

import (
	"time"

	"warren/engine"
	"warren/engine/amqp"
)

// The closing handshake, as rabbit_reader runs it. Once either side has
// sent connection.close the connection is closing: the server discards
// every frame but connection.close (answered with close-ok again) and
// connection.close-ok (which ends the connection), and otherwise waits for
// the client to close its socket, for at most closeWait. Closing the socket
// at once after close-ok instead races the client: amqp091-go's reader saw
// EOF before its Close had finished and reported "501 EOF" to NotifyClose,
// and amqplib's close callback never fired.

// Closing timeouts from rabbit_reader: before tune-ok it waits
// NORMAL_TIMEOUT; after it, the negotiated heartbeat interval, at most
// CLOSING_TIMEOUT (which also applies when heartbeats are off).
const (
	closeWaitBeforeTune = 3 * time.Second
	closeWaitMax        = 30 * time.Second
)

// tunedCloseWait is how long a tuned connection with this heartbeat waits
// in the closing state.
func tunedCloseWait(heartbeatSec uint16) time.Duration {
	if d := time.Duration(heartbeatSec) * time.Second; d > 0 && d < closeWaitMax {
		return d
	}
	return closeWaitMax
}

// beginClosing enters the closing state, once: from now on the connection
// goroutine reads only to discard (see closed), and a timer ends the
// connection if the client neither answers nor closes its socket. It may
// run on any goroutine; closeWait is set before the connection opens, so
// the backend's Do reads it after that.
func (c *conn) beginClosing() {
	c.endMu.Lock()
	defer c.endMu.Unlock()
	if c.closeSent.Load() || c.ended {
		return
	}
	c.closeSent.Store(true)
	c.terminate = time.AfterFunc(c.closeWait, func() { c.t.Close() })
}

// stopClosingTimer cancels the closing timer when the connection ends
// first.
func (c *conn) stopClosingTimer() {
	c.endMu.Lock()
	defer c.endMu.Unlock()
	c.ended = true
	if c.terminate != nil {
		c.terminate.Stop()
	}
}

// sendClose queues connection.close and enters the closing state. It does
// not touch the engine (see failConnection).
func (c *conn) sendClose(code int, text string, m engine.Method) {
	c.out.push(outItem{method: &amqp.ConnectionClose{ReplyCode: uint16(code), ReplyText: shortText(text), FailingClassID: m.Class, FailingMethodID: m.ID}})
	c.beginClosing()
}

// failConnection raises a connection exception found by the connection
// layer. It runs inside the backend's Do: the engine closes the
// connection (requeueing, deleting exclusive queues) and the client is
// sent connection.close. Nothing happens if the connection is already
// closing.
func (c *conn) failConnection(e *engine.Broker, code int, text string, m engine.Method) {
	if c.dead {
		return
	}
	c.dead = true
	if c.opened {
		e.CloseConnection(c.id)
	}
	c.sendClose(code, text, m)
}

// connectionError is failConnection from the connection goroutine.
func (c *conn) connectionError(code int, text string, m engine.Method) {
	if !c.opened {
		// No engine connection yet, and nothing inside the backend's Do
		// knows of this one.
		c.sendClose(code, text, m)
		return
	}
	c.b.Do(func(e *engine.Broker) { c.failConnection(e, code, text, m) })
}

// clientClosed answers the client's connection.close: the engine closes
// the connection, close-ok goes out, and the connection waits in the
// closing state for the client to close its socket.
func (c *conn) clientClosed() {
	c.b.Do(func(e *engine.Broker) {
		if !c.dead {
			c.dead = true
			e.CloseConnection(c.id)
		}
	})
	c.out.push(outItem{method: &amqp.ConnectionCloseOk{}})
	c.beginClosing()
}

// closed runs the closing state until the connection ends: the client's
// close-ok, its socket closing, a frame that cannot be read, or the timer
// closing the transport.
func (c *conn) closed(r *reader) error {
	for {
		cmd, err := r.next()
		if err != nil {
			return err
		}
		if cmd.channel != 0 {
			continue
		}
		switch cmd.method.(type) {
		case *amqp.ConnectionCloseOk:
			return nil
		case *amqp.ConnectionClose:
			c.out.push(outItem{method: &amqp.ConnectionCloseOk{}})
		}
	}
}
