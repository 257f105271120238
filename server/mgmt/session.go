package mgmt

import (
	"errors"
	"net/http"
	"strings"

	"warren/engine"
	"warren/server/broker"
)

// session is one broker.Do's worth of management work. Queue, exchange and
// binding commands need a channel, so the session opens an internal
// connection and channel per vhost on first use and closes them all when
// the Do ends: no management connection outlives its request or shows in
// /api/connections.
//
// The connections carry the requesting user's permissions, so the engine
// refuses over HTTP exactly what it refuses over AMQP (RabbitMQ's
// management plugin also acts through a connection as the user). Probes
// that only ask whether something exists use unchecked connections:
// RabbitMQ answers those from its database, 404 before any permission.
type session struct {
	e    *engine.Broker
	user string
	// checked says the connections carry the user's permissions, as the
	// engine has them (engine.Broker.UserGrants); false checks none.
	checked bool
	chans   map[string]engine.ChannelID
	probes  map[string]engine.ChannelID // unchecked, for probes
}

// internalConnName names the management's internal connections in events.
const internalConnName = "management"

var errUnavailable = &apiError{status: http.StatusServiceUnavailable, kind: "service_unavailable", reason: "the broker has stopped"}

// do runs f on the broker goroutine with a fresh session acting for user.
func (a *api) do(user string, f func(s *session) error) error {
	return a.doWith(user, true, f)
}

// doUnchecked runs f with a session whose connections check no
// permissions: for the API's own look-ups, and for the definitions import,
// which RabbitMQ applies without per-resource checks (only administrators
// may import).
func (a *api) doUnchecked(user string, f func(s *session) error) error {
	return a.doWith(user, false, f)
}

func (a *api) doWith(user string, checked bool, f func(s *session) error) error {
	var err error
	derr := a.turn(func(e *engine.Broker) {
		s := &session{e: e, user: user, checked: checked, chans: map[string]engine.ChannelID{}, probes: map[string]engine.ChannelID{}}
		defer s.close()
		err = f(s)
	})
	if errors.Is(derr, broker.ErrStopped) {
		return errUnavailable
	}
	return err
}

// hasVhost reports whether a vhost exists, in O(1): an import asks for
// each of its items.
func (s *session) hasVhost(name string) bool {
	_, found := s.e.VhostTotals(name)
	return found
}

// run runs a channel command in vhost. An engine exception closes the
// channel, so the session forgets it and the next command gets a new one.
func (s *session) run(vhost string, f func(ch engine.ChannelID) error) error {
	return s.runOn(true, vhost, f)
}

// probe is run on a channel that checks no permissions.
func (s *session) probe(vhost string, f func(ch engine.ChannelID) error) error {
	return s.runOn(false, vhost, f)
}

func (s *session) runOn(checked bool, vhost string, f func(ch engine.ChannelID) error) error {
	chans := s.probes
	if checked {
		chans = s.chans
	}
	ch, err := s.channel(chans, vhost, checked)
	if err != nil {
		return err
	}
	if err := f(ch); err != nil {
		s.e.CloseConnection(ch.Conn)
		delete(chans, vhost)
		return err
	}
	return nil
}

func (s *session) channel(chans map[string]engine.ChannelID, vhost string, checked bool) (engine.ChannelID, error) {
	if ch, ok := chans[vhost]; ok {
		return ch, nil
	}
	if !s.hasVhost(vhost) {
		return engine.ChannelID{}, errNotFound
	}
	o := engine.ConnectionOpen{Vhost: vhost, User: s.user, Name: internalConnName}
	if checked && s.checked {
		o.Perms = s.e.UserGrants(s.user, vhost)
	}
	id, err := s.e.OpenConnection(o)
	if err != nil {
		return engine.ChannelID{}, err
	}
	ch, err := s.e.OpenChannel(id, 1)
	if err != nil {
		return engine.ChannelID{}, err
	}
	chans[vhost] = ch
	return ch, nil
}

func (s *session) close() {
	for _, chans := range []map[string]engine.ChannelID{s.chans, s.probes} {
		for _, ch := range chans {
			s.e.CloseConnection(ch.Conn)
		}
		clear(chans)
	}
}

// pathVhost returns the {vhost} path value (already URL-decoded: "%2F" is
// "/") and whether the path has one.
func (c *call) pathVhost() (string, bool) {
	return c.r.PathValue("vhost"), strings.Contains(c.r.Pattern, "{vhost}")
}
