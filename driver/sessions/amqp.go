package sessions

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"strconv"

	"warren/driver/conn"
	"warren/driver/sink"
	"warren/engine"
	"warren/engine/hub"
)

// Real AMQP clients join a session's broker by logging in, over the
// server's AMQP listener (TCP or WebSocket), with the session's own user
// and password. The Manager is the server's conn.Router: a login that
// names a session's user goes to that session, everything else to the
// server's own users. Each connection then runs its commands through the
// session's hub (hub.Session.Apply), so they are entries of the session's
// log like any participant's line, and every page shows and animates
// them.

// newAMQPUser returns a fresh user name for a session: short enough to
// type, random so that one session's user says nothing about another's.
func newAMQPUser() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "session-" + hex.EncodeToString(b)
}

// amqpLogin makes a new session's login for real clients.
func (m *Manager) amqpLogin() *hub.AMQPLogin {
	if m.cfg.AMQPPort == 0 && m.cfg.AMQPWebSocket == "" {
		return nil
	}
	return &hub.AMQPLogin{User: newAMQPUser(), Password: newID(), Vhost: "/", Port: m.cfg.AMQPPort, WebSocket: m.cfg.AMQPWebSocket}
}

// Route sends a login with a session's user and password to that
// session's broker (conn.Router).
func (m *Manager) Route(user, pass string, remote net.Addr) (*conn.Home, conn.Backend, bool) {
	m.mu.Lock()
	s := m.byUser[user]
	m.mu.Unlock()
	if s == nil {
		return nil, nil, false
	}
	var ok bool
	var name string
	if !s.call(func(int64) {
		if ok = s.hub.CheckAMQPLogin(user, pass); ok {
			s.nextConn++
			name = "amqp-" + strconv.Itoa(s.nextConn)
		}
	}) || !ok {
		return nil, nil, false
	}
	return s.home, &amqpConn{s: s, origin: hub.Origin{Kind: hub.OriginAMQP, Connection: name}, addr: remote.String(), user: user}, true
}

// amqpConn is one AMQP connection's way into its session's broker
// (conn.Backend): its commands run on the session's goroutine through
// hub.Session.Apply, so what they record is an entry of origin the
// connection.
type amqpConn struct {
	s      *session
	origin hub.Origin
	addr   string
	user   string
}

// OpenConnection opens the connection as its input: a session's own user
// may do anything in its broker, so it carries no permissions.
func (a *amqpConn) OpenConnection(o engine.ConnectionOpen) (engine.Result, error) {
	res, err := a.Apply([]engine.Command{engine.CmdOpenConnection{Open: o}}, nil)
	if err != nil || len(res) == 0 {
		return engine.Result{}, err
	}
	return res[0], nil
}

// Apply applies the connection's commands as its input (hub.Session.Apply)
// and waits for their results. The events they caused reach the sinks
// before it returns, as conn.Backend requires: the session delivers its
// Ready inside the call.
func (a *amqpConn) Apply(cmds []engine.Command, res []engine.Result) ([]engine.Result, error) {
	var err error
	if !a.s.call(func(now int64) {
		res, err = a.s.hub.Apply(now, a.origin, cmds, res)
		a.s.deliver()
	}) {
		return res, conn.ErrStopped
	}
	return res, err
}

// Attach routes the connection's events to s, and shows the
// connection in the session's presence: it has just opened.
func (a *amqpConn) Attach(id engine.ConnID, s sink.Sink) {
	a.s.call(func(int64) {
		a.s.sinks[id] = connSink{sink: s, origin: a.origin}
		a.s.hub.ConnectionOpened(hub.Connection{ID: a.origin.Connection, Client: clientName(a.s.hub.Broker(), id), Address: a.addr, User: a.user})
	})
}

// Detach stops routing the connection's events and takes it out of
// presence.
func (a *amqpConn) Detach(id engine.ConnID) {
	a.s.call(func(int64) {
		delete(a.s.sinks, id)
		a.s.hub.ConnectionClosed(a.origin.Connection)
	})
}

// LogEnd is 0: a session keeps its log in memory, so no confirm waits for
// a disk.
func (a *amqpConn) LogEnd() uint64 { return 0 }

// AfterDurable runs f at once (see LogEnd).
func (a *amqpConn) AfterDurable(_ uint64, f func()) { f() }

// connSink is an AMQP connection's sink in its session, with the
// connection's origin.
type connSink struct {
	sink   sink.Sink
	origin hub.Origin
}

// clientName is how presence names a connection: the connection_name the
// client gave, else its product and version ("amqp091-go 1.10.0").
func clientName(b *engine.Broker, id engine.ConnID) string {
	views := b.ConnectionSummaries([]engine.ConnID{id})
	if len(views) == 0 {
		return ""
	}
	props := views[0].ClientProperties
	if name, ok := props["connection_name"].(string); ok && name != "" {
		return name
	}
	product, _ := props["product"].(string)
	if version, ok := props["version"].(string); ok && product != "" {
		return product + " " + version
	}
	return product
}

// dispatch hands the events of a Ready to the AMQP connections they
// belong to, in order. A sink issues no command: a connection that falls
// behind pauses itself with a command of its own (Apply).
func (s *session) dispatch(evs []engine.Event) {
	if len(s.sinks) == 0 || len(evs) == 0 {
		return
	}
	byConn := map[engine.ConnID][]engine.Event{}
	var order []engine.ConnID
	for _, ev := range evs {
		id := ev.Channel.Conn
		if _, ok := s.sinks[id]; !ok {
			continue
		}
		if byConn[id] == nil {
			order = append(order, id)
		}
		byConn[id] = append(byConn[id], ev)
	}
	for _, id := range order {
		s.sinks[id].sink.Events(byConn[id])
	}
}

// endText is the text of the 320 CONNECTION_FORCED the session's AMQP
// clients get when it ends.
func endText(reason *hub.Error) string {
	if reason == nil || reason.Key == hub.KeyShutdown {
		return "CONNECTION_FORCED - broker forced connection closure with reason 'shutdown'"
	}
	return "CONNECTION_FORCED - the shared session has ended: " + reason.Error()
}
