// Package netwatch keeps a thread watching the network while goroutines
// work without parking.
//
// A goroutine that keeps working without parking holds its P, and the Go
// runtime looks for network events only when some P looks for
// work, or from sysmon once they have gone unpolled for 10 ms (the
// runtime's behaviour golang/go#51651 describes). A TCP connection that
// streams never parks: its reads find bytes, or wait in ppoll with the P
// held (readwait_linux.go). The other P is then idle with no thread on
// it, nobody waits in epoll, and another client's request sits in its
// socket up to 10 ms before its goroutine is even runnable: the pause
// benchmark's healthy client saw 7 to 9 ms gaps while one connection
// published a burst, with one P idle throughout (docs/benchmarks.md).
//
// So a goroutine that has gone Every without parking starts a goroutine
// that does nothing (Nudge). Starting a goroutine wakes a thread for an
// idle P, if there is one and no thread is already looking for work
// (runtime.wakep): that thread looks for work, polls the network on its
// way, runs what it finds and then waits in epoll, where the next request
// wakes it at once. It costs the busy connection a goroutine's start and
// a thread's wake-up every Every, a few microseconds, and nothing to a
// connection that parks between its reads. The TCP transport (server/tcp)
// and the management API's long replies (server/mgmt) use it.
package netwatch

import (
	"sync/atomic"
	"time"
)

// Every is how long a goroutine works without parking before it nudges.
const Every = 500 * time.Microsecond

// last is when a goroutine last woke a thread (Unix nanoseconds): several
// busy ones need only one.
var last atomic.Int64

// Nudge wakes a thread for an idle P, unless one was woken less than half
// of Every ago. It returns whether it did.
func Nudge(now time.Time) bool {
	ns := now.UnixNano()
	l := last.Load()
	if ns-l < int64(Every)/2 || !last.CompareAndSwap(l, ns) {
		return false
	}
	go func() {}()
	return true
}

// Watch is one goroutine's part: when it last parked or nudged.
type Watch struct{ since time.Time }

// Parked notes that the goroutine waited in the netpoller: its thread
// looked for work then.
func (w *Watch) Parked(now time.Time) { w.since = now }

// Working is called as the goroutine works (a connection: on each read):
// after Every without parking it nudges. It returns whether it did.
func (w *Watch) Working(now time.Time) bool {
	if w.since.IsZero() {
		w.since = now
	}
	if now.Sub(w.since) < Every {
		return false
	}
	w.since = now
	return Nudge(now)
}
