package amqpconn

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"

	"warren/engine"
	"warren/engine/amqp"
)

// serverProperties is what connection.start advertises, shaped like
// RabbitMQ's: clients read capabilities from here.
func (m *Machine) serverProperties() amqp.Table {
	return amqp.Table{
		"product":      m.cfg.Product,
		"version":      m.cfg.Version,
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

// Start sends connection.start, once the client's protocol header has
// been read.
func (m *Machine) Start() {
	m.send(Out{Method: &amqp.ConnectionStart{VersionMajor: 0, VersionMinor: 9, ServerProperties: m.serverProperties(),
		Mechanisms: "PLAIN AMQPLAIN", Locales: "en_US"}})
}

// handshake handles the connection-class methods before connection.open
// completes, as rabbit_reader does.
func (m *Machine) handshake(in amqp.Command) {
	switch meth := in.Method.(type) {
	case *amqp.ConnectionStartOk:
		user, pass, ok := credentials(meth.Mechanism, []byte(meth.Response))
		if !ok {
			m.refuse(meth.Mechanism)
			return
		}
		m.phase = phaseLogin
		m.loginMech = meth.Mechanism
		m.ready.Login = &Login{Mechanism: meth.Mechanism, User: user, Pass: pass}
		m.pendingStartOk, m.pendingUser = meth, user
	case *amqp.ConnectionTuneOk:
		if m.user == "" {
			// Only a logged-in client may raise frame_max above the
			// 4096 bytes that bound what an anonymous one can send.
			m.notLoggedIn(engine.Method{Class: 10, ID: 31})
			return
		}
		if text := negotiated("frame_max", 4096, m.frameMax, meth.FrameMax); text != "" {
			m.closeConnection(engine.NotAllowed, text, engine.Method{Class: 10, ID: 30})
			return
		}
		if text := negotiated("channel_max", 1, uint32(m.channelMax), uint32(meth.ChannelMax)); text != "" {
			m.closeConnection(engine.NotAllowed, text, engine.Method{Class: 10, ID: 30})
			return
		}
		if meth.ChannelMax != 0 {
			m.channelMax = meth.ChannelMax
		}
		if meth.FrameMax != 0 {
			m.frameMax = meth.FrameMax
		}
		m.heartbeat = meth.Heartbeat
		m.tuned = true
		m.ready.Tuned = true
	case *amqp.ConnectionOpen:
		if m.user == "" {
			m.notLoggedIn(engine.Method{Class: 10, ID: 40})
			return
		}
		m.phase = phaseOpening
		vhost := meth.VirtualHost
		m.ready.Open = &vhost
	case *amqp.ConnectionClose:
		m.send(Out{Method: &amqp.ConnectionCloseOk{}, CloseAfter: true})
		m.ended = true
	default:
		m.closeConnection(engine.ChannelError, "CHANNEL_ERROR - expected 'connection.open'", methodOf(in.Method))
	}
}

// LoggedIn answers Login: ok says the credentials are good (and the user
// may log in from where the client is). A good login is sent
// connection.tune; a bad one is refused as RabbitMQ refuses it.
func (m *Machine) LoggedIn(ok bool) {
	so := m.pendingStartOk
	m.pendingStartOk = nil
	if so == nil || m.phase != phaseLogin {
		panic("amqpconn: LoggedIn without a Login")
	}
	if !ok {
		m.refuse(so.Mechanism)
		return
	}
	m.user = m.pendingUser
	m.clientProps = ToEngineTable(so.ClientProperties)
	if caps, ok := so.ClientProperties["capabilities"].(amqp.Table); ok {
		m.caps = caps
	}
	m.phase = phaseTune
	m.send(Out{Method: &amqp.ConnectionTune{ChannelMax: m.cfg.ChannelMax, FrameMax: m.cfg.FrameMax, Heartbeat: m.cfg.Heartbeat}})
}

// ConnectionOpen is the engine's connection.open for the vhost asked for,
// with the start-ok's client properties; the driver adds the name and the
// user's permissions, applies it, and answers with Opened or OpenFailed.
func (m *Machine) ConnectionOpen(vhost string) engine.ConnectionOpen {
	return engine.ConnectionOpen{Vhost: vhost, User: m.user, ClientProperties: m.clientProps}
}

// Opened says the engine opened the connection as id: connection.open-ok
// goes out and channels may open.
func (m *Machine) Opened(id engine.ConnID, vhost string) {
	m.id, m.vhost, m.phase = id, vhost, phaseOpen
	m.send(Out{Method: &amqp.ConnectionOpenOk{}})
}

// OpenFailed refuses connection.open with a connection.close (the node
// connection limit, vhost access, the engine's own refusal).
func (m *Machine) OpenFailed(code int, text string, meth engine.Method) {
	m.phase = phaseTune
	m.closeConnection(code, text, meth)
}

// refuse closes the connection the way RabbitMQ refuses a login: with
// authentication_failure_close, connection.close 403 ACCESS_REFUSED.
func (m *Machine) refuse(mechanism string) {
	m.send(Out{Method: &amqp.ConnectionClose{ReplyCode: engine.AccessRefused,
		ReplyText:      ShortText("ACCESS_REFUSED - Login was refused using authentication mechanism " + mechanism + ". For details see the broker logfile."),
		FailingClassID: 10, FailingMethodID: 11}, CloseAfter: true})
	m.ended = true
}

// notLoggedIn refuses a method that needs a successful connection.start-ok
// first, with rabbit_reader's text for a method out of its state.
func (m *Machine) notLoggedIn(meth engine.Method) {
	m.closeConnection(engine.ChannelError, "CHANNEL_ERROR - unexpected method in connection state starting", meth)
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

// decodeAMQPLAIN reads an AMQPLAIN response: a field table's fields
// without the table's length prefix.
func decodeAMQPLAIN(resp []byte) (amqp.Table, error) {
	b := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(resp)), uint32(len(resp)))
	return amqp.DecodeTable(append(b, resp...))
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

// LargestPublish is the size in bytes of a publish with a body of
// maxMessageSize bytes framed under frameMax: a method frame and a content
// header frame of at most frameMax+8 bytes each, and body frames carrying
// frameMax-8 bytes each plus 8 of overhead. A WebSocket transport bounds
// a client's messages with it once the connection is tuned, since
// @cloudamqp/amqp-client 4 sends a whole publish in one message.
func LargestPublish(frameMax uint32, maxMessageSize uint64) int64 {
	chunk := uint64(frameMax - 8)
	bodyFrames := (maxMessageSize + chunk - 1) / chunk
	return int64(2*(uint64(frameMax)+8) + maxMessageSize + 8*bodyFrames)
}
