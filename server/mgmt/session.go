package mgmt

import (
	"errors"
	"net/http"
	"strings"

	"warren/engine"
	"warren/server/broker"
)

// session is one request's management work, acting for a user. Queue,
// exchange and binding commands need a channel, so each goes to the broker
// as a broker.Visit step, and the owner opens an internal connection and
// channel for it and closes them in the same turn: no management
// connection outlives its turn or shows in /api/connections.
//
// The connections carry the requesting user's permissions, so the engine
// refuses over HTTP exactly what it refuses over AMQP (RabbitMQ's
// management plugin also acts through a connection as the user). Probes
// that only ask whether something exists use unchecked connections:
// RabbitMQ answers those from its database, 404 before any permission.
//
// A request that reads and then changes (a probe, then a delete) takes a
// turn for each, so another request may run in between: the change then
// fails as it would have failed had it come second (the engine's 404),
// as RabbitMQ's management API, which reads and writes in separate
// transactions, can too.
type session struct {
	a    *api
	user string
	// checked says the connections carry the user's permissions, as the
	// engine has them (engine.Broker.UserGrants); false checks none.
	checked bool
	// r reads for the session (hasVhost).
	r *broker.Reader
}

// internalConnName names the management's internal connections in events
// (broker.Visit's).
const internalConnName = "management"

var errUnavailable = &apiError{status: http.StatusServiceUnavailable, kind: "service_unavailable", reason: "the broker has stopped"}

// do runs f with a fresh session acting for user.
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
	s := &session{a: a, user: user, checked: checked, r: a.b.Reader(a.reads.took)}
	err := f(s)
	if errors.Is(err, broker.ErrStopped) || errors.Is(s.r.Err(), broker.ErrStopped) {
		return errUnavailable
	}
	return err
}

// visit applies steps in one turn, as the session's user.
func (s *session) visit(steps []broker.Step, res []broker.StepResult) ([]broker.StepResult, error) {
	s.a.reads.turns.Add(1)
	return s.a.b.Visit(broker.Visit{User: s.user, Name: internalConnName, Checked: s.checked, Turn: s.a.reads.took}, steps, res)
}

// step applies one step and returns its result, with its error: the
// engine's, errNotFound for a vhost that does not exist, or
// broker.ErrStopped.
func (s *session) step(st broker.Step) (engine.Result, error) {
	res, err := s.visit([]broker.Step{st}, nil)
	if err != nil {
		return engine.Result{}, err
	}
	r := res[0].Result
	if r.Err == broker.ErrNoVhost {
		return r, errNotFound
	}
	return r, r.Err
}

// probed applies, in one turn, a probe of vhost's object (a passive
// declare, on an unchecked channel) and then cmd, and returns whether the
// probe found the object and cmd's result; err is the probe's error other
// than 404 (errNotFound for a missing vhost), or broker.ErrStopped. cmd
// is applied whatever the probe found: a caller that wants a missing
// object to be 404 (a delete) ignores cmd's result then, which is the
// engine's refusal with nothing changed.
func (s *session) probed(vhost string, probe, cmd engine.Command) (found bool, r engine.Result, err error) {
	res, err := s.visit([]broker.Step{{Vhost: vhost, Probe: true, Cmd: probe}, {Vhost: vhost, Cmd: cmd}}, nil)
	if err != nil {
		return false, r, err
	}
	p, r := res[0].Err, res[1].Result
	switch {
	case p == broker.ErrNoVhost:
		return false, r, errNotFound
	case isEngineCode(p, engine.NotFound):
		return false, r, nil
	case p != nil:
		return false, r, p
	}
	return true, r, nil
}

// probedDelete applies a delete (or purge) of the object probe finds, in
// one turn: 404 when the probe does not find it, else the delete's error.
func (s *session) probedDelete(vhost string, probe, cmd engine.Command) error {
	found, r, err := s.probed(vhost, probe, cmd)
	switch {
	case err != nil:
		return err
	case !found:
		return errNotFound
	}
	return r.Err
}

// hasVhost reports whether a vhost exists, in O(1).
func (s *session) hasVhost(name string) bool {
	_, found := s.r.VhostTotals(name)
	return found
}

// apply applies a command that needs no channel (AddVhost, SetPolicy ...).
func (s *session) apply(c engine.Command) (engine.Result, error) {
	return s.step(broker.Step{Cmd: c})
}

// run applies a channel command in vhost, on a channel carrying the
// session's permissions. An engine exception closes the channel, and the
// next command gets a new one.
func (s *session) run(vhost string, c engine.Command) (engine.Result, error) {
	return s.step(broker.Step{Vhost: vhost, Cmd: c})
}

// pathVhost returns the {vhost} path value (already URL-decoded: "%2F" is
// "/") and whether the path has one.
func (c *call) pathVhost() (string, bool) {
	return c.r.PathValue("vhost"), strings.Contains(c.r.Pattern, "{vhost}")
}
