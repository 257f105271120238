package broker

import (
	"runtime"
	"time"

	"warren/engine"
)

// A Reader reads the engine for a driver that shows its state (the
// management API, the auth.Store's copy of the users). Its methods are the
// engine's read methods of the same names and signatures: each takes the
// lock for one turn, runs that one method, and returns what the engine
// returns, which is the caller's to keep (copies, or chunks the engine
// lends and copies before it writes into them again: engine/listing.go).
//
// Reads take this form, and not a closure run under the lock, so that no
// driver code runs while it owns the engine: a driver's work between two
// reads (filtering, sorting, rendering) holds nobody up, and one turn is
// one method, so a driver that reads in batches (the management API's
// lists, readBatch views per call) bounds each turn by its batch. Two
// calls are two turns: what a command changes between them shows in the
// second, as RabbitMQ's management reads, which are not snapshots either,
// can show.
//
// After Stop every method returns its zero value and Err returns
// ErrStopped; a Reader is for one goroutine, one request at a time.
type Reader struct {
	b *Broker
	// turn, when set, is told after each turn how long its method took
	// (the management API's readStats).
	turn func(time.Duration)
	err  error
}

// Reader returns a Reader of b. turn, when not nil, is told how long each
// call held the engine.
func (b *Broker) Reader(turn func(time.Duration)) *Reader { return &Reader{b: b, turn: turn} }

// Err returns ErrStopped once a read found the broker stopped.
func (r *Reader) Err() error { return r.err }

// read runs f, one of the engine's read methods, in a turn of its own,
// and then yields its processor (yieldAfterRead).
func (r *Reader) read(f func(e *engine.Broker)) {
	if r.err != nil {
		return
	}
	defer yieldAfterRead()
	if r.turn == nil {
		r.err = r.b.own(func() { f(r.b.eng) })
		return
	}
	var took time.Duration
	r.err = r.b.own(func() {
		start := time.Now()
		f(r.b.eng)
		took = time.Since(start)
	})
	if r.err == nil {
		r.turn(took) // after the turn: the driver's code runs with the engine free
	}
}

// yieldAfterRead lets a goroutine that the turn's unlock made ready (a
// client's connection waiting for the engine) run now, on this P, ahead
// of the reader's next turn. A reader is background work that takes
// turn after turn: a listing of 100,000 queues takes hundreds. Outside a
// collection an idle P steals the waiter within microseconds; during the
// collector's mark phase its idle workers hold every idle P and steal
// nothing, and the waiter sat in this P's run queue until the runtime
// preempted the reader: 6 to 14 ms, again and again, in a trace of that
// listing (docs/server.md).
func yieldAfterRead() { runtime.Gosched() }

// Now is engine.Broker.Now.
func (r *Reader) Now() (t engine.Time) { r.read(func(e *engine.Broker) { t = e.Now() }); return }

// Vhosts is engine.Broker.Vhosts.
func (r *Reader) Vhosts() (vs []string) { r.read(func(e *engine.Broker) { vs = e.Vhosts() }); return }

// VhostTotals is engine.Broker.VhostTotals.
func (r *Reader) VhostTotals(vhost string) (t engine.VhostTotals, ok bool) {
	r.read(func(e *engine.Broker) { t, ok = e.VhostTotals(vhost) })
	return
}

// UserTotals is engine.Broker.UserTotals.
func (r *Reader) UserTotals(vhost, user string) (connections, channels int) {
	r.read(func(e *engine.Broker) { connections, channels = e.UserTotals(vhost, user) })
	return
}

// Policies is engine.Broker.Policies.
func (r *Reader) Policies(vhost string) (ps []engine.Policy) {
	r.read(func(e *engine.Broker) { ps = e.Policies(vhost) })
	return
}

// OperatorPolicies is engine.Broker.OperatorPolicies.
func (r *Reader) OperatorPolicies(vhost string) (ps []engine.Policy) {
	r.read(func(e *engine.Broker) { ps = e.OperatorPolicies(vhost) })
	return
}

// QueueNames is engine.Broker.QueueNames.
func (r *Reader) QueueNames(vhost string) (ns [][]string) {
	r.read(func(e *engine.Broker) { ns = e.QueueNames(vhost) })
	return
}

// ExchangeNames is engine.Broker.ExchangeNames.
func (r *Reader) ExchangeNames(vhost string) (ns [][]string) {
	r.read(func(e *engine.Broker) { ns = e.ExchangeNames(vhost) })
	return
}

// QueueSummaries is engine.Broker.QueueSummaries.
func (r *Reader) QueueSummaries(vhost string, names []string) (vs []engine.QueueView) {
	r.read(func(e *engine.Broker) { vs = e.QueueSummaries(vhost, names) })
	return
}

// AppendQueueSummaries is engine.Broker.AppendQueueSummaries.
func (r *Reader) AppendQueueSummaries(dst []engine.QueueView, vhost string, names []string) (vs []engine.QueueView) {
	vs = dst
	r.read(func(e *engine.Broker) { vs = e.AppendQueueSummaries(dst, vhost, names) })
	return
}

// ExchangeSummaries is engine.Broker.ExchangeSummaries.
func (r *Reader) ExchangeSummaries(vhost string, names []string) (vs []engine.ExchangeView) {
	r.read(func(e *engine.Broker) { vs = e.ExchangeSummaries(vhost, names) })
	return
}

// ConnectionRefs is engine.Broker.ConnectionRefs.
func (r *Reader) ConnectionRefs() (rs [][]engine.ConnRef) {
	r.read(func(e *engine.Broker) { rs = e.ConnectionRefs() })
	return
}

// ConnectionSummaries is engine.Broker.ConnectionSummaries.
func (r *Reader) ConnectionSummaries(ids []engine.ConnID) (vs []engine.ConnectionView) {
	r.read(func(e *engine.Broker) { vs = e.ConnectionSummaries(ids) })
	return
}

// ChannelRefs is engine.Broker.ChannelRefs.
func (r *Reader) ChannelRefs() (rs [][]engine.ChannelRef) {
	r.read(func(e *engine.Broker) { rs = e.ChannelRefs() })
	return
}

// ChannelSummaries is engine.Broker.ChannelSummaries.
func (r *Reader) ChannelSummaries(ids []engine.ChannelID) (vs []engine.ChannelView) {
	r.read(func(e *engine.Broker) { vs = e.ChannelSummaries(ids) })
	return
}

// Bindings is engine.Broker.Bindings.
func (r *Reader) Bindings(vhost string) (bs []engine.BindingView) {
	r.read(func(e *engine.Broker) { bs = e.Bindings(vhost) })
	return
}

// BindingsBetween is engine.Broker.BindingsBetween.
func (r *Reader) BindingsBetween(vhost string, ends engine.BindingEnds) (bs []engine.BindingView) {
	r.read(func(e *engine.Broker) { bs = e.BindingsBetween(vhost, ends) })
	return
}

// BindingCount is engine.Broker.BindingCount.
func (r *Reader) BindingCount(vhost, exchange string) (n int) {
	r.read(func(e *engine.Broker) { n = e.BindingCount(vhost, exchange) })
	return
}

// AppendBindings is engine.Broker.AppendBindings: the cursor is the
// caller's, moved in the turn, and so is dst, which the turn appends to.
func (r *Reader) AppendBindings(dst []engine.BindingView, c *engine.BindingCursor, limit int) (bs []engine.BindingView, work int) {
	r.read(func(e *engine.Broker) { bs, work = e.AppendBindings(dst, c, limit) })
	return
}

// Users is engine.Broker.Users.
func (r *Reader) Users() (us []engine.User) {
	r.read(func(e *engine.Broker) { us = e.Users() })
	return
}

// User is engine.Broker.User.
func (r *Reader) User(name string) (u engine.User, ok bool) {
	r.read(func(e *engine.Broker) { u, ok = e.User(name) })
	return
}

// UserPermissions is engine.Broker.UserPermissions.
func (r *Reader) UserPermissions() (ps []engine.UserPermission) {
	r.read(func(e *engine.Broker) { ps = e.UserPermissions() })
	return
}

// UserPermission is engine.Broker.UserPermission.
func (r *Reader) UserPermission(user, vhost string) (p engine.UserPermission, ok bool) {
	r.read(func(e *engine.Broker) { p, ok = e.UserPermission(user, vhost) })
	return
}

// UserGrants is engine.Broker.UserGrants.
func (r *Reader) UserGrants(user, vhost string) (p *engine.Permissions) {
	r.read(func(e *engine.Broker) { p = e.UserGrants(user, vhost) })
	return
}

// TopicPermissions is engine.Broker.TopicPermissions.
func (r *Reader) TopicPermissions() (tps []engine.UserTopicPermission) {
	r.read(func(e *engine.Broker) { tps = e.TopicPermissions() })
	return
}

// UserTopicPermissions is engine.Broker.UserTopicPermissions.
func (r *Reader) UserTopicPermissions(user, vhost string) (tps []engine.UserTopicPermission) {
	r.read(func(e *engine.Broker) { tps = e.UserTopicPermissions(user, vhost) })
	return
}

// SnapshotLimit is engine.Broker.SnapshotLimit: the whole state, with at
// most n messages per queue when n > 0. It is O(state) in one turn: for tools and
// tests that show or compare a whole broker, not for a server's paths,
// which read in batches.
func (r *Reader) SnapshotLimit(n int) (s engine.Snapshot) {
	r.read(func(e *engine.Broker) { s = e.SnapshotLimit(n) })
	return
}
