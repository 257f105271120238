// Package broker is the wall-clock driver of the engine: one lock owns an
// engine.Broker, and whoever holds it runs one request at a time, in the
// order they took the lock (etcd raft's Node around its RawNode, with a
// lock for a goroutine; see "Owner" below).
//
// On every request, and whenever the engine's next deadline arrives (a
// timer goroutine of the broker's own takes the lock then), the owner
// advances the engine to the current wall time (or, on a paused or manual
// clock, towards where the clock was told to go: see clock.go), runs the
// request, drains the engine's events and hands each to the sink attached
// for its connection (and to observers). Sinks run under the lock, are
// given the events and not the engine, and must not block: a connection's
// sink appends to the connection's own inbox, and a connection whose
// outbox grows past its limit pauses itself with a command of its own
// (back-pressure, driver/conn), so one slow consumer never holds up the
// broker or any other connection.
//
// Owner: the engine was first owned by a goroutine of its own that every
// request was handed to. Each hand-off woke that goroutine, and Go's
// scheduler woke a second OS thread to run it, which cost more than the
// engine's work for a publish; a request now runs on its caller's
// goroutine, under the lock, with the same one-at-a-time order, log and
// events (5bab91e:BENCHMARKS.md, "Fewer wake-ups").
//
// Drivers: a driver (a connection, the management API, the auth.Store)
// hands the owner commands and reads, never code:
//
//  1. Changes are engine.Command values: Apply applies a batch in one
//     turn and hands back each command's Result (its error in
//     Result.Err); Visit does the same for a driver without a connection
//     of its own, opening one per vhost for the channel commands and
//     closing it in the same turn (visit.go).
//  2. Reads go through a Reader, whose methods are the engine's read
//     methods: each is one turn and returns a copy (or chunks the engine
//     lends copy-on-write), so a driver's filtering, sorting and
//     rendering run with the engine free, and a driver that reads in
//     batches bounds each turn by its batch. We chose the engine's own
//     methods over query values (a Query type the owner would answer with
//     a union of results): the methods exist, their names and results are
//     what a reader of the engine already knows, and a query language
//     would repeat each of them as a kind, a struct and a case.
//  3. A change that needs a read first (the management API's "does the
//     vhost exist", the Store's "does the user exist") is a read followed
//     by commands, two turns; what another driver does in between shows
//     as the engine's answer to the command (its 404, say). Where that
//     would change an outcome, the decision is made in the turn instead:
//     a Visit step's probe (Unless, or a probe step before the command).
//  4. The owner's own bookkeeping (attaching sinks and observers, the
//     clock's requests, the disk hooks) runs under the lock through own
//     and locked (owner.go): owner code, not a driver's.
//
// There is no way left to run a driver's closure on the engine: the
// drivers hand over commands (Apply, ApplyOne, OpenConnection, Visit) and
// read through a Reader. What still runs under the lock on a driver's
// behalf is delivery of values, never the engine itself: the sinks and
// observers of Attach and Observe are handed events (driver/sink), which
// a connection's sink puts in its inbox (driver/conn/inbox.go), and
// WatchTotals' watchers the message totals, which the memory alarm
// compares with its watermark (driver/conn/alarm.go). None of them is
// given the engine, so none can read or change it.
package broker
