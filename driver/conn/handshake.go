package conn

import (
	"errors"
	"net"
	"strconv"

	"warren/engine"
)

// The machine runs the handshake (engine/amqpconn's handshake.go); the
// connection answers its decisions: whether a login is good and where it
// goes (login), the negotiated limits' effect on the reader and transport
// (tuned), and the connection's opening in the engine (open).

func isLoopback(a net.Addr) bool {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		host = a.String()
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// login checks a start-ok's credentials: a Router's (a shared session's
// own user, which moves the connection to the session's broker) or the
// server's users, with guest's loopback rule.
func (c *conn) login(user, pass string) bool {
	c.owner.check()
	if r := c.cfg.Router; r != nil {
		if home, b, ok := r.Route(user, pass, c.t.RemoteAddr()); ok {
			c.home, c.b = home, b
			return true
		}
	}
	if c.cfg.Users == nil {
		return false
	}
	return c.cfg.Users.LogIn(user, pass, isLoopback(c.t.RemoteAddr()))
}

// tuned applies the negotiated frame_max to the reader and the
// transport's message bound.
func (c *conn) tuned() {
	frameMax, _, _ := c.m.Tuned()
	c.frameMax = frameMax
	c.r.setFrameMax(frameMax)
	boundMessages(c.t, frameMax, c.cfg.MaxMessageSize)
}

// open opens the connection in the engine for connection.open of vhost,
// after the node connection limit and the user's access to the vhost. An
// error means the backend has ended.
func (c *conn) open(vhost string) error {
	c.owner.check()
	m := c.m
	// The node connection limit, checked before vhost access as RabbitMQ
	// 3.11's rabbit_reader does, with its text. The count is of
	// connections past connection.open, this one included (see
	// Config.MaxConnections).
	c.counted = true
	if n := c.cfg.shared.opened.Add(1); c.cfg.MaxConnections > 0 && n > int64(c.cfg.MaxConnections) {
		c.uncount()
		m.OpenFailed(engine.NotAllowed, "NOT_ALLOWED - connection refused: node connection limit ("+itoa(c.cfg.MaxConnections)+") is reached", engine.MethodConnectionOpen)
		return nil
	}
	own := c.home == c.cfg.shared.home
	if own && !c.cfg.Users.CanAccessVhost(m.User(), vhost) {
		c.uncount()
		m.OpenFailed(engine.NotAllowed, "NOT_ALLOWED - access to vhost '"+vhost+"' refused for user '"+m.User()+"'", engine.MethodConnectionOpen)
		return nil
	}
	o := m.ConnectionOpen(vhost)
	o.Name = c.t.RemoteAddr().String() + " -> " + c.t.LocalAddr().String()
	res, err := c.b.OpenConnection(o)
	if err != nil {
		return err // the broker (a shared session) has ended
	}
	if res.Err != nil {
		c.uncount()
		var ee *engine.Error
		if errors.As(res.Err, &ee) {
			m.OpenFailed(ee.Code, ee.Text, ee.Method)
			return nil
		}
		return res.Err
	}
	m.Opened(res.Conn, vhost)
	c.connID, c.vhost = res.Conn, vhost
	c.notifyCancel = m.Capability("consumer_cancel_notify")
	c.notifyBlock = m.Capability("connection.blocked")
	c.home.Alarm.add(c)
	c.r.opened()
	if c.admission != nil {
		// Logged in and open: no longer one of the connections before
		// login, whose bounds are the server's.
		c.admission.Release()
	}
	c.b.Attach(res.Conn, eventSink{c})
	c.watchHome()
	c.startHeartbeats()
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }
