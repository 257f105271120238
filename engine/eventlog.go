package engine

// eventChunk is the size, in events, of the chunks a large burst of events
// is kept in.
const eventChunk = 4096

// maxFreeChunks is how many drained chunks the log keeps, cleared, for the
// next burst to fill. A fanout or a batch of publishes fills a chunk or
// two every turn; allocating them afresh each time made the collector
// run, and clear, a megabyte a chunk. A burst larger than this gives the
// rest back to the collector.
const maxFreeChunks = 2

// eventLog holds the events not yet drained.
//
// Draining is on every message's path, so it avoids copying: when the
// caller passes an empty slice (the previous one re-sliced to zero length,
// as DrainEvents suggests) the filled slice itself is handed over and the
// caller's takes its place, cleared at once so that the log never keeps
// drained messages alive. The slice being filled is therefore always zero
// beyond its length, and an event is written in place, field by field.
//
// A large burst (a million messages expiring in one AdvanceTo makes three
// million events) is kept in fixed-size chunks instead of one slice, so that
// it is not copied over and over as the slice grows; draining it copies once.
type eventLog struct {
	cur  []Event   // the slice being filled; zero beyond its length
	full [][]Event // filled chunks, oldest first, before cur
	// handed and handedLen identify the slice the last drain returned, so
	// that when the caller passes it back only that much needs clearing.
	handed    *Event
	handedLen int
	// spare is a cleared slice for drainTo to fill next while it hands
	// the current one out.
	spare []Event
	// free holds cleared chunks a drained burst left (maxFreeChunks).
	free [][]Event
}

func (l *eventLog) add(e Event) {
	*l.next() = e
}

// next appends a zero event and returns it to be filled in. The pointer is
// good until the next event is added.
func (l *eventLog) next() *Event {
	if len(l.cur) == cap(l.cur) {
		l.grow()
	}
	n := len(l.cur)
	l.cur = l.cur[:n+1]
	return &l.cur[n]
}

// grow makes room in a full slice: by growing it while it is small, or by
// setting it aside as a chunk and starting a new one.
func (l *eventLog) grow() {
	if n := len(l.cur); n < eventChunk {
		l.cur = append(l.cur, Event{})[:n]
		return
	}
	l.full = append(l.full, l.cur)
	if n := len(l.free); n > 0 {
		l.cur, l.free[n-1] = l.free[n-1], nil
		l.free = l.free[:n-1]
		return
	}
	l.cur = make([]Event, 0, eventChunk)
}

// recycle clears a drained chunk and keeps it for the next burst, if the
// log has room for it.
func (l *eventLog) recycle(c []Event) {
	if cap(c) != eventChunk || len(l.free) == maxFreeChunks {
		return
	}
	clear(c)
	l.free = append(l.free, c[:0])
}

// at returns the i-th event not yet drained, oldest first, to be amended in
// place: basic.get's Delivered event gets the count that basic.get-ok
// reports, known only once the fetch's expiries are done (get.go).
func (l *eventLog) at(i int) *Event {
	for _, c := range l.full {
		if i < len(c) {
			return &c[i]
		}
		i -= len(c)
	}
	return &l.cur[i]
}

func (l *eventLog) len() int {
	n := len(l.cur)
	for _, c := range l.full {
		n += len(c)
	}
	return n
}

// drain appends the events to dst and empties the log.
func (l *eventLog) drain(dst []Event) []Event {
	var out []Event
	switch {
	case len(l.full) > 0:
		out = l.drainChunks(dst)
	case cap(dst) > 0 && cap(l.cur) > 0 && &dst[:1][0] == &l.cur[:1][0]:
		// The caller passed back a slice the log owns again (an older
		// one than the last it was given): hand the events over in it.
		out = l.cur
		l.cur = nil
	case len(dst) == 0 && len(l.cur) > 0:
		out = l.cur
		used := cap(dst)
		if cap(dst) > 0 && &dst[:1][0] == l.handed {
			used = min(l.handedLen, cap(dst))
		}
		clear(dst[:used])
		l.cur = dst[:0]
	default:
		out = append(dst, l.cur...)
		clear(l.cur)
		l.cur = l.cur[:0]
	}
	if len(out) == 0 {
		// Nothing was written to dst: what is known about the slice last
		// handed out still holds. Forgetting it here made every later
		// drain clear the whole of a once-large buffer (tens of MB after
		// a big queue delete) on each command.
		return out
	}
	l.handed, l.handedLen = nil, len(out)
	if len(out) > 0 {
		l.handed = &out[0]
	}
	return out
}

// drainTo hands the events to fn in order, a chunk at a time, without
// copying them. The log is emptied first, so events emitted while fn runs
// (a sink pausing a connection) are kept for the next drain. The slices are
// the log's: fn must not keep them. Afterwards the slice being filled is
// cleared and reused, and so are up to maxFreeChunks filled chunks; the
// rest are dropped.
func (l *eventLog) drainTo(fn func([]Event)) {
	full, cur := l.full, l.cur
	if len(full) == 0 && len(cur) == 0 {
		return
	}
	l.full, l.cur, l.spare = nil, l.spare[:0], nil
	l.handed, l.handedLen = nil, 0
	for _, c := range full {
		fn(c)
		l.recycle(c)
	}
	if len(l.full) == 0 && cap(full) > 0 {
		// No burst began while fn ran: keep the list's array too.
		clear(full)
		l.full = full[:0]
	}
	if len(cur) > 0 {
		fn(cur)
	}
	clear(cur)
	if l.spare == nil {
		l.spare = cur[:0]
	}
}

// drainChunks copies a burst kept in chunks into dst, growing it at most
// once; cur is cleared for reuse, and the chunks are recycled or dropped
// as drainTo's are.
func (l *eventLog) drainChunks(dst []Event) []Event {
	if n := l.len(); cap(dst)-len(dst) < n {
		grown := make([]Event, len(dst), len(dst)+n)
		copy(grown, dst)
		dst = grown
	}
	for i, c := range l.full {
		dst = append(dst, c...)
		l.full[i] = nil
		l.recycle(c)
	}
	l.full = l.full[:0]
	dst = append(dst, l.cur...)
	clear(l.cur)
	l.cur = l.cur[:0]
	return dst
}
