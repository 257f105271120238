package engine

// eventChunk is the size, in events, of the chunks a large burst of events
// is kept in.
const eventChunk = 4096

// eventLog holds the events not yet drained. Small bursts live in one slice
// that is reused from drain to drain. A large burst (a million messages
// expiring in one AdvanceTo makes three million events) is kept in
// fixed-size chunks instead, so that it is never copied to grow the slice:
// appending to one slice would copy the whole burst several times over.
type eventLog struct {
	cur  []Event   // the slice being filled
	full [][]Event // filled chunks, oldest first, before cur
	// stale is how far cur's array still holds drained events, which the
	// next events overwrite; only the part they do not reach is cleared.
	stale int
}

func (l *eventLog) add(e Event) {
	if len(l.cur) == cap(l.cur) && cap(l.cur) >= eventChunk {
		l.full = append(l.full, l.cur)
		l.cur = make([]Event, 0, eventChunk)
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

// drain appends the events to dst, growing it at most once, and empties the
// log. The slice kept for reuse is cleared so that it does not keep drained
// messages alive.
func (l *eventLog) drain(dst []Event) []Event {
	if len(l.full) > 0 {
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
	}
	dst = append(dst, l.cur...)
	if n := len(l.cur); n < l.stale {
		clear(l.cur[n:l.stale])
	}
	l.stale = len(l.cur)
	l.cur = l.cur[:0]
	return dst
}
