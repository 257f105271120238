package conn

import (
	"bytes"
	"fmt"
	"net"
	"strconv"

	"warren/engine"
	"warren/engine/amqp"
	"warren/engine/amqpconn"
)

// serverProperties is what connection.start advertises, shaped like
// RabbitMQ's: clients read capabilities from here.
func (c *conn) serverProperties() amqp.Table {
	return amqp.Table{
		"product":      c.cfg.Product,
		"version":      c.cfg.Version,
		"platform":     "Go",
		"cluster_name": "warren",
		"copyright":    "Warren authors",
		"information":  "A RabbitMQ-semantics broker for learning and light use",
		"capabilities": amqp.Table{
			"publisher_confirms":           true,
			"exchange_exchange_bindings":   true,
			"basic.nack":                   true,
			"consumer_cancel_notify":       true,
			"connection.blocked":           true,
			"consumer_priorities":          true,
			"authentication_failure_close": true,
			"per_consumer_qos":             true,
			"direct_reply_to":              true,
		},
	}
}

func (c *conn) sendStart() {
	c.out.push(outItem{method: &amqp.ConnectionStart{VersionMajor: 0, VersionMinor: 9, ServerProperties: c.serverProperties(),
		Mechanisms: "PLAIN AMQPLAIN", Locales: "en_US"}})
}

// refuse closes the connection the way RabbitMQ refuses a login: with
// authentication_failure_close, connection.close 403 ACCESS_REFUSED.
func (c *conn) refuse(mechanism string) {
	c.out.push(outItem{method: &amqp.ConnectionClose{ReplyCode: engine.AccessRefused,
		ReplyText:      shortText("ACCESS_REFUSED - Login was refused using authentication mechanism " + mechanism + ". For details see the broker logfile."),
		FailingClassID: 10, FailingMethodID: 11}, closeAfter: true})
}

// credentials decodes a start-ok response for PLAIN ("\x00user\x00pass")
// or AMQPLAIN (a field table with LOGIN and PASSWORD, without its length).
func credentials(mechanism string, response []byte) (user, pass string, ok bool) {
	switch mechanism {
	case "PLAIN":
		parts := bytes.Split(response, []byte{0})
		if len(parts) != 3 {
			return "", "", false
		}
		return string(parts[1]), string(parts[2]), true
	case "AMQPLAIN":
		t, err := decodeAMQPLAIN(response)
		if err != nil {
			return "", "", false
		}
		u, _ := t["LOGIN"].(string)
		p, _ := t["PASSWORD"].(string)
		return u, p, true
	}
	return "", "", false
}

func isLoopback(a net.Addr) bool {
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		host = a.String()
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// handshake handles the connection-class methods before connection.open
// completes. It reports whether the connection must end.
func (c *conn) handshake(cmd command) (bool, error) {
	switch m := cmd.method.(type) {
	case *amqp.ConnectionStartOk:
		user, pass, ok := credentials(m.Mechanism, []byte(m.Response))
		if !ok {
			c.refuse(m.Mechanism)
			return true, nil
		}
		if !c.login(user, pass) {
			c.refuse(m.Mechanism)
			return true, nil
		}
		c.user = user
		c.clientProps = amqpconn.ToEngineTable(m.ClientProperties)
		if caps, ok := m.ClientProperties["capabilities"].(amqp.Table); ok {
			c.caps = caps
		}
		c.out.push(outItem{method: &amqp.ConnectionTune{ChannelMax: c.cfg.ChannelMax, FrameMax: c.cfg.FrameMax, Heartbeat: c.cfg.Heartbeat}})
	case *amqp.ConnectionTuneOk:
		if c.user == "" {
			// Only a logged-in client may raise frame_max above the
			// 4096 bytes that bound what an anonymous one can send.
			return c.notLoggedIn(engine.Method{Class: 10, ID: 31})
		}
		if text := negotiated("frame_max", 4096, uint32(c.frameMax), m.FrameMax); text != "" {
			return c.handshakeError(engine.NotAllowed, text, engine.Method{Class: 10, ID: 30})
		}
		if text := negotiated("channel_max", 1, uint32(c.channelMax), uint32(m.ChannelMax)); text != "" {
			return c.handshakeError(engine.NotAllowed, text, engine.Method{Class: 10, ID: 30})
		}
		if m.ChannelMax != 0 {
			c.channelMax = m.ChannelMax
		}
		if m.FrameMax != 0 {
			c.frameMax = m.FrameMax
		}
		c.r.setFrameMax(c.frameMax)
		boundMessages(c.t, c.frameMax, c.cfg.MaxMessageSize)
		c.heartbeat = m.Heartbeat
		c.closeWait = tunedCloseWait(m.Heartbeat)
	case *amqp.ConnectionOpen:
		if c.user == "" {
			return c.notLoggedIn(engine.Method{Class: 10, ID: 40})
		}
		// The node connection limit, checked before vhost access as
		// RabbitMQ 3.11's rabbit_reader does, with its text. The count
		// is of connections past connection.open, this one included
		// (see Config.MaxConnections).
		c.counted = true
		if n := c.cfg.shared.opened.Add(1); c.cfg.MaxConnections > 0 && n > int64(c.cfg.MaxConnections) {
			c.uncount()
			return c.handshakeError(engine.NotAllowed, "NOT_ALLOWED - connection refused: node connection limit ("+itoa(c.cfg.MaxConnections)+") is reached", engine.Method{Class: 10, ID: 40})
		}
		if c.home == c.cfg.shared.home && !c.cfg.Users.CanAccessVhost(c.user, m.VirtualHost) {
			c.uncount()
			return c.handshakeError(engine.NotAllowed, "NOT_ALLOWED - access to vhost '"+m.VirtualHost+"' refused for user '"+c.user+"'", engine.Method{Class: 10, ID: 40})
		}
		var openErr error
		doErr := c.b.Do(func(e *engine.Broker) {
			// The user's permissions as the engine has them when the
			// connection opens: a change after this reaches the
			// connection, one before it is already in them. A shared
			// session's own user may do anything in its broker.
			var perms *engine.Permissions
			if c.home == c.cfg.shared.home {
				perms = e.UserGrants(c.user, m.VirtualHost)
			}
			id, err := e.OpenConnection(engine.ConnectionOpen{Vhost: m.VirtualHost, User: c.user, Name: c.t.RemoteAddr().String() + " -> " + c.t.LocalAddr().String(),
				ClientProperties: c.clientProps, Perms: perms})
			if err != nil {
				openErr = err
				return
			}
			c.id, c.opened, c.vhost = id, true, m.VirtualHost
			c.home.Alarm.conns[c] = true
		})
		if doErr != nil {
			return true, doErr // the broker (a shared session) has ended
		}
		if openErr != nil {
			c.uncount()
			var ee *engine.Error
			if errorsAs(openErr, &ee) {
				return c.handshakeError(ee.Code, ee.Text, ee.Method)
			}
			return true, openErr
		}
		c.r.opened()
		if c.admission != nil {
			// Logged in and open: no longer one of the connections
			// before login, whose bounds are the server's.
			c.admission.Release()
		}
		c.b.Attach(c.id, sink{c})
		c.watchHome()
		c.out.push(outItem{method: &amqp.ConnectionOpenOk{}})
		c.startHeartbeats()
	case *amqp.ConnectionClose:
		c.out.push(outItem{method: &amqp.ConnectionCloseOk{}, closeAfter: true})
		return true, nil
	default:
		return c.handshakeError(engine.ChannelError, "CHANNEL_ERROR - expected 'connection.open'", engine.Method{Class: cmd.method.ClassID(), ID: cmd.method.MethodID()})
	}
	return false, nil
}

// login checks a start-ok's credentials: a Router's (a shared session's
// own user, which moves the connection to the session's broker) or the
// server's users, with guest's loopback rule.
func (c *conn) login(user, pass string) bool {
	if r := c.cfg.Router; r != nil {
		if home, b, ok := r.Route(user, pass, c.t.RemoteAddr()); ok {
			c.routeMu.Lock()
			c.home, c.b = home, b
			c.routeMu.Unlock()
			return true
		}
	}
	if c.cfg.Users == nil {
		return false
	}
	_, good := c.cfg.Users.Authenticate(user, pass)
	return good && !(c.cfg.Users.LoopbackOnly(user) && !isLoopback(c.t.RemoteAddr()))
}

// notLoggedIn refuses a method that needs a successful connection.start-ok
// first, with rabbit_reader's text for a method out of its state.
func (c *conn) notLoggedIn(m engine.Method) (bool, error) {
	return c.handshakeError(engine.ChannelError, "CHANNEL_ERROR - unexpected method in connection state starting", m)
}

// handshakeError sends connection.close and puts the connection in the
// closing state (closing.go), which ends it at the client's close-ok or
// after the closing timeout, so that a refused connection does not hold
// its place until the handshake timeout.
func (c *conn) handshakeError(code int, text string, m engine.Method) (bool, error) {
	c.connectionError(code, text, m)
	return false, nil
}

// negotiated checks a tune-ok value as rabbit_reader's
// validate_negotiated_integer_value does: below min, or 0 ("no limit") or
// above what the server proposed when the server has a limit, is refused
// with its text (observed, RabbitMQ 3.10.8's log: "negotiated frame_max =
// 0 is higher than the maximum allowed value (131072)"). It returns "" for
// a value the server accepts.
func negotiated(field string, min, server, client uint32) string {
	if client != 0 && client < min {
		return fmt.Sprintf("NOT_ALLOWED - negotiated %s = %d is lower than the minimum allowed value (%d)", field, client, min)
	}
	if server != 0 && (client == 0 || client > server) {
		detail := ""
		if field == "channel_max" && client == 0 {
			detail = " (no limit)"
		}
		return fmt.Sprintf("NOT_ALLOWED - negotiated %s = %d%s is higher than the maximum allowed value (%d)", field, client, detail, server)
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }
