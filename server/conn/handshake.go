package conn

import (
	"bytes"
	"net"
	"strconv"

	"warren/engine"
	"warren/server/amqp"
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
		if _, good := c.cfg.Users.Authenticate(user, pass); !good || (c.cfg.Users.LoopbackOnly(user) && !isLoopback(c.t.RemoteAddr())) {
			c.refuse(m.Mechanism)
			return true, nil
		}
		c.user = user
		if caps, ok := m.ClientProperties["capabilities"].(amqp.Table); ok {
			c.caps = caps
		}
		c.out.push(outItem{method: &amqp.ConnectionTune{ChannelMax: c.cfg.ChannelMax, FrameMax: c.cfg.FrameMax, Heartbeat: c.cfg.Heartbeat}})
	case *amqp.ConnectionTuneOk:
		if m.ChannelMax != 0 && m.ChannelMax < c.channelMax {
			c.channelMax = m.ChannelMax
		}
		if m.FrameMax != 0 && m.FrameMax < c.frameMax {
			if m.FrameMax < 4096 {
				c.connectionError(engine.NotAllowed, "NOT_ALLOWED - frame_max=4096 is below the minimum", engine.Method{Class: 10, ID: 31})
				return false, nil
			}
			c.frameMax = m.FrameMax
		}
		c.r.setFrameMax(c.frameMax)
		c.heartbeat = m.Heartbeat
		c.closeWait = tunedCloseWait(m.Heartbeat)
	case *amqp.ConnectionOpen:
		if c.user == "" {
			c.connectionError(engine.CommandInvalid, "COMMAND_INVALID - connection.open before connection.start-ok", engine.Method{Class: 10, ID: 40})
			return false, nil
		}
		if !c.cfg.Users.CanAccessVhost(c.user, m.VirtualHost) {
			c.connectionError(engine.NotAllowed, "NOT_ALLOWED - access to vhost '"+m.VirtualHost+"' refused for user '"+c.user+"'", engine.Method{Class: 10, ID: 40})
			return false, nil
		}
		if max := c.cfg.MaxConnections; max > 0 && c.cfg.shared.open.Load() >= int64(max) {
			c.connectionError(engine.NotAllowed, "NOT_ALLOWED - access to vhost '"+m.VirtualHost+"' refused for user '"+c.user+"': connection limit ("+itoa(max)+") is reached", engine.Method{Class: 10, ID: 40})
			return false, nil
		}
		perms := c.cfg.Users.Grants(c.user, m.VirtualHost)
		var openErr error
		c.b.Do(func(e *engine.Broker) {
			id, err := e.OpenConnection(engine.ConnectionOpen{Vhost: m.VirtualHost, User: c.user, Name: c.t.RemoteAddr().String() + " -> " + c.t.LocalAddr().String(),
				Perms: perms})
			if err != nil {
				openErr = err
				return
			}
			c.id, c.opened, c.vhost = id, true, m.VirtualHost
			c.cfg.Alarm.conns[c] = true
		})
		if openErr != nil {
			var ee *engine.Error
			if errorsAs(openErr, &ee) {
				c.connectionError(ee.Code, ee.Text, ee.Method)
			}
			return false, nil
		}
		c.cfg.shared.open.Add(1)
		c.b.Attach(c.id, sink{c})
		c.out.push(outItem{method: &amqp.ConnectionOpenOk{}})
		c.startHeartbeats()
	case *amqp.ConnectionClose:
		c.out.push(outItem{method: &amqp.ConnectionCloseOk{}, closeAfter: true})
		return true, nil
	default:
		c.connectionError(engine.ChannelError, "CHANNEL_ERROR - expected 'connection.open'", engine.Method{Class: cmd.method.ClassID(), ID: cmd.method.MethodID()})
	}
	return false, nil
}

func itoa(n int) string { return strconv.Itoa(n) }
