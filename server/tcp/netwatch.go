package tcp

import (
	"sync/atomic"
	"time"
)

// A connection goroutine that keeps working without parking holds its P,
// and the Go runtime looks for network events only when some P looks for
// work, or from sysmon once they have gone unpolled for 10 ms (the
// runtime's behaviour golang/go#51651 describes). A TCP connection that
// streams never parks: its reads find bytes, or wait in ppoll with the P
// held (readwait_linux.go). The other P is then idle with no thread on
// it, nobody waits in epoll, and another client's request sits in its
// socket up to 10 ms before its goroutine is even runnable: the pause
// benchmark's healthy client saw 7 to 9 ms gaps while one connection
// published a burst, with one P idle throughout (docs/benchmarks.md).
//
// So a connection that has gone netWatchEvery without parking starts a
// goroutine that does nothing. Starting a goroutine wakes a thread for an
// idle P, if there is one and no thread is already looking for work
// (runtime.wakep): that thread looks for work, polls the network on its
// way, runs what it finds and then waits in epoll, where the next request
// wakes it at once. It costs the busy connection a goroutine's start and
// a thread's wake-up every netWatchEvery, a few microseconds, and nothing
// to a connection that parks between its reads.
const netWatchEvery = 500 * time.Microsecond

// lastNetWatch is when a connection last woke a thread (Unix nanoseconds):
// several busy connections need only one.
var lastNetWatch atomic.Int64

// netWatch is one connection's part: when it last parked or woke a thread.
type netWatch struct{ since time.Time }

// parked notes that the connection's goroutine waited in the netpoller:
// its thread looked for work then.
func (w *netWatch) parked(now time.Time) { w.since = now }

// working is called on each read: after netWatchEvery without parking it
// wakes a thread, unless another connection just did.
func (w *netWatch) working(now time.Time) {
	if w.since.IsZero() {
		w.since = now
		return
	}
	if now.Sub(w.since) < netWatchEvery {
		return
	}
	w.since = now
	ns := now.UnixNano()
	last := lastNetWatch.Load()
	if ns-last < int64(netWatchEvery)/2 || !lastNetWatch.CompareAndSwap(last, ns) {
		return
	}
	go func() {}()
}
