package mgmt

import (
	"errors"
	"sync/atomic"
	"time"

	"warren/engine"
	"warren/server/broker"
)

// readStats count what the API's turns cost the broker goroutine, which
// every AMQP connection waits on while a turn runs: tests hold requests to
// a bounded amount of work per turn, and benchmarks report the time. Reads
// and changes (sessions) are both counted.
type readStats struct {
	turns atomic.Int64 // broker.Do calls made
	nanos atomic.Int64 // time spent in them on the broker goroutine
	// longest is the longest single turn, in nanoseconds.
	longest atomic.Int64
	// slow counts the turns longer than slowTurn.
	slow  atomic.Int64
	views atomic.Int64 // queue, exchange, connection and channel views built
	// most is the most items one turn handled: views built, bindings or
	// definitions copied, or weighted import steps applied (see note).
	most atomic.Int64
}

// slowTurn is issue 8's bound: a pause of the broker goroutine longer
// than this is a bug.
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

// turn runs f on the broker goroutine and records the time it took there.
func (a *api) turn(f func(e *engine.Broker)) error {
	return a.b.Do(func(e *engine.Broker) {
		start := time.Now()
		f(e)
		d := int64(time.Since(start))
		a.reads.turns.Add(1)
		a.reads.nanos.Add(d)
		if d > int64(slowTurn) {
			a.reads.slow.Add(1)
		}
		for {
			old := a.reads.longest.Load()
			if d <= old || a.reads.longest.CompareAndSwap(old, d) {
				break
			}
		}
	})
}

// read runs f on the broker goroutine, with no session (it may only read).
func (a *api) read(f func(e *engine.Broker)) error {
	err := a.turn(f)
	if errors.Is(err, broker.ErrStopped) {
		return errUnavailable
	}
	return err
}

// scopeNames is scope over vhost names: the one in the path, which must
// exist and be visible, or every vhost the user can see. It runs on the
// broker goroutine, where vhosts lists the vhosts.
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
func policyViews(e *engine.Broker, vhost string) *engine.VhostView {
	return &engine.VhostView{Name: vhost, Policies: e.Policies(vhost), OperatorPolicies: e.OperatorPolicies(vhost)}
}
