package engine

// eventChunk is the size, in events, of the chunks a large burst of events
// is kept in.
const eventChunk = 4096

// eventLog holds the events not yet drained.
//
// Draining is on every message's path, so it avoids copying: when the
// caller passes an empty slice (the previous one re-sliced to zero length,
// as DrainEvents suggests) the filled slice itself is handed over and the
// caller's takes its place, to be overwritten by the next events. What the
// caller's slice still holds beyond them is cleared at the next drain, so
// the log never keeps drained messages alive for long.
//
// A large burst (a million messages expiring in one AdvanceTo makes three
// million events) is kept in fixed-size chunks instead of one slice, so that
// it is not copied over and over as the slice grows; draining it copies once.
type eventLog struct {
	cur  []Event   // the slice being filled
	full [][]Event // filled chunks, oldest first, before cur
	// stale is how far cur's array may still hold events drained earlier.
	stale int
	// handed and handedLen identify the slice the last drain returned, so
	// that a caller passing it back is known to hold exactly that many.
	handed    *Event
	handedLen int
}

func (l *eventLog) add(e Event) {
	if len(l.cur) == cap(l.cur) && cap(l.cur) >= eventChunk {
		l.full = append(l.full, l.cur)
		l.cur = make([]Event, 0, eventChunk)
		l.stale = 0
	}
	l.cur = append(l.cur, e)
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
	if n := len(l.cur); n < l.stale {
		clear(l.cur[n:l.stale])
	}
	var out []Event
	switch {
	case len(l.full) > 0:
		out = l.drainChunks(dst)
	case cap(dst) > 0 && cap(l.cur) > 0 && &dst[:1][0] == &l.cur[:1][0]:
		// The caller passed back a slice the log owns again (an older
		// one than the last it was given): hand the events over in it.
		out = l.cur
		l.cur, l.stale = nil, 0
	case len(dst) == 0 && len(l.cur) > 0:
		out = l.cur
		l.cur = dst[:0]
		l.stale = cap(dst)
		if cap(dst) > 0 && &dst[:1][0] == l.handed {
			l.stale = l.handedLen
		}
	default:
		out = append(dst, l.cur...)
		clear(l.cur)
		l.cur, l.stale = l.cur[:0], 0
	}
	l.handed, l.handedLen = nil, len(out)
	if len(out) > 0 {
		l.handed = &out[0]
	}
	return out
}

// drainChunks copies a burst kept in chunks into dst, growing it at most
// once; the chunks are dropped and cur is cleared for reuse.
func (l *eventLog) drainChunks(dst []Event) []Event {
	if n := l.len(); cap(dst)-len(dst) < n {
		grown := make([]Event, len(dst), len(dst)+n)
		copy(grown, dst)
		dst = grown
	}
	for i, c := range l.full {
		dst = append(dst, c...)
		l.full[i] = nil
	}
	l.full = l.full[:0]
	dst = append(dst, l.cur...)
	clear(l.cur)
	l.cur, l.stale = l.cur[:0], 0
	return dst
}
