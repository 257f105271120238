package store

import (
	"sync/atomic"
	"time"
)

// A write+sync that tells the Go scheduler it is in a system call wakes
// the runtime's sysmon thread whenever every P was idle before it, which
// is the case at each confirm that waits for its own fsync (window 1):
// sysmon then checks every 20 µs for as long as the disk works. Profiled
// in the durability benchmark that was a third of the broker's CPU for a
// persistent message (docs/durability.md, "Window 1"). A raw call skips
// the scheduler, and so sysmon, but keeps its thread's P while the disk
// works: a stop-the-world (the collector's two a cycle) waits for the
// disk, and nothing else runs on that P.
//
// rawBet is that trade, taken while the disk answers quickly: a raw
// write+sync that takes longer than rawSlow makes the ones in the next
// rawPause go through the scheduler, so a slow disk holds up a
// stop-the-world at most once a rawPause, and by one sync.
type rawBet struct {
	offUntil atomic.Int64 // Unix nanoseconds; before it, no raw calls
}

const (
	rawSlow  = time.Millisecond
	rawPause = time.Second
)

// take reports whether a write+sync starting at now may be raw.
func (b *rawBet) take(now time.Time) bool {
	return now.UnixNano() >= b.offUntil.Load()
}

// took notes that a raw write+sync started at start and lasted d.
func (b *rawBet) took(start time.Time, d time.Duration) {
	if d > rawSlow {
		b.offUntil.Store(start.Add(d + rawPause).UnixNano())
	}
}
