package conn

import "time"

// The closing handshake is the machine's (engine/amqpconn's closing.go):
// once either side has sent connection.close, the machine discards every
// command but close and close-ok, and ends at the client's close-ok. The
// connection adds the timer: it waits for the client to close its socket
// for at most the machine's CloseWaitMs, then closes it.

// beginClosing arms the closing timer, once.
func (c *conn) beginClosing() {
	c.owner.check()
	if c.terminate != nil {
		return
	}
	c.terminate = time.AfterFunc(time.Duration(c.m.CloseWaitMs())*time.Millisecond, func() { c.t.Close() })
}

// stopClosingTimer cancels the closing timer when the connection ends
// first.
func (c *conn) stopClosingTimer() {
	if c.terminate != nil {
		c.terminate.Stop()
	}
}
