package mgmt

import (
	"errors"
	"sync/atomic"
	"time"

	"warren/engine"
	"warren/server/broker"
)

// readStats count what the API's work costs the engine's owner, which
// every AMQP connection waits on while the API holds it: tests hold
// requests to a bounded amount of work per turn, and benchmarks report
// the time. A turn here is one of the API's reads (api.read: a batch,
// which takes the engine for a few short turns, one per read method it
// calls) or one change (a broker.Visit); the times are the engine's turns.
type readStats struct {
	turns atomic.Int64 // reads and visits made
	nanos atomic.Int64 // time spent holding the engine
	// longest is the longest single hold of the engine, in nanoseconds.
	longest atomic.Int64
	// slow counts the holds longer than slowTurn.
	slow  atomic.Int64
	views atomic.Int64 // queue, exchange, connection and channel views built
	// most is the most items one turn handled: views built, bindings or
	// definitions copied, or weighted import steps applied (see note).
	most atomic.Int64
}

// slowTurn is issue 8's bound: a pause of the engine's owner longer than
// this is a bug.
const slowTurn = 10 * time.Millisecond

// note records that a turn handled n items.
func (r *readStats) note(n int) {
	for {
		old := r.most.Load()
		if int64(n) <= old || r.most.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}

// took records that the API held the engine for d.
func (r *readStats) took(d time.Duration) {
	r.nanos.Add(int64(d))
	if d > slowTurn {
		r.slow.Add(1)
	}
	for {
		old := r.longest.Load()
		if int64(d) <= old || r.longest.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}

// engineReads is what the API reads of the engine: the engine's own read
// methods, which a broker.Reader runs a turn each, returning copies, so
// that none of the API's code runs while it holds the engine (see
// server/broker's Reader). An *engine.Broker has them too.
type engineReads interface {
	Vhosts() []string
	VhostTotals(vhost string) (engine.VhostTotals, bool)
	UserTotals(vhost, user string) (connections, channels int)
	Policies(vhost string) []engine.Policy
	OperatorPolicies(vhost string) []engine.Policy
	QueueNames(vhost string) [][]string
	ExchangeNames(vhost string) [][]string
	QueueSummaries(vhost string, names []string) []engine.QueueView
	AppendQueueSummaries(dst []engine.QueueView, vhost string, names []string) []engine.QueueView
	ExchangeSummaries(vhost string, names []string) []engine.ExchangeView
	ConnectionRefs() [][]engine.ConnRef
	ConnectionSummaries(ids []engine.ConnID) []engine.ConnectionView
	ChannelRefs() [][]engine.ChannelRef
	ChannelSummaries(ids []engine.ChannelID) []engine.ChannelView
	Bindings(vhost string) []engine.BindingView
	BindingsBetween(vhost string, ends engine.BindingEnds) []engine.BindingView
	BindingCount(vhost, exchange string) int
	AppendBindings(dst []engine.BindingView, c *engine.BindingCursor, limit int) ([]engine.BindingView, int)
	UserGrants(user, vhost string) *engine.Permissions
}

// read runs f here with the engine's read methods, each call one turn.
// It returns errUnavailable when the broker has stopped.
func (a *api) read(f func(e engineReads)) error {
	a.reads.turns.Add(1)
	r := a.b.Reader(a.reads.took)
	f(r)
	if errors.Is(r.Err(), broker.ErrStopped) {
		return errUnavailable
	}
	return r.Err()
}

// scopeNames is scope over vhost names: the one in the path, which must
// exist and be visible, or every vhost the user can see. It runs on the
// vhosts lists the vhosts.
func (c *call) scopeNames(vhosts []string) ([]string, error) {
	name, one := c.pathVhost()
	if one {
		found := false
		for _, v := range vhosts {
			found = found || v == name
		}
		if !found {
			return nil, errNotFound
		}
		if err := c.requireSee(name); err != nil {
			return nil, err
		}
		return []string{name}, nil
	}
	out := vhosts[:0:0]
	for _, v := range vhosts {
		if c.canSee(v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// policyViews are a vhost's policies as a VhostView carries them, for the
// effective_policy_definition of its queues.
func policyViews(e engineReads, vhost string) *engine.VhostView {
	return &engine.VhostView{Name: vhost, Policies: e.Policies(vhost), OperatorPolicies: e.OperatorPolicies(vhost)}
}
