package hub

// History is a session's log kept whole, as a driver keeps it to export
// it (duty 6): the broker's state it starts from and every entry since,
// within bounds. The hub itself keeps only its latest snapshot and the
// entries after it. Like the Session, a History does no I/O and has one
// owner, the session's: the native driver's goroutine, or the edge's
// Durable Object.
//
// A History shares its memory with the session's: the start state is
// the hub's snapshot and the records are the entries' own, so what it
// adds is the entries the hub has let go. When an entry would take it
// past a bound, it lets them go too: it starts again from the hub's
// latest snapshot and the entries after it, and its script says from
// which entry it starts (Script). A driver that starts one after the
// session's first entries gets the same: it starts from what the hub
// keeps.
type History struct {
	lim HistoryLimits
	// start is the broker's state the history starts from, as of entry
	// start.Seq (0: the session's creation); Entries is unused.
	start   Snapshot
	entries []Entry
	bytes   int64 // of the entries' records
	// conns are the AMQP connections the entries name, as presence
	// showed them, for the script's comments.
	conns map[string]Connection
}

// HistoryLimits bound what a History keeps. A zero field takes the
// default named beside it.
type HistoryLimits struct {
	// MaxEntries bounds the entries kept. The default keeps a script
	// within the 10,000 lines the playground replays (one line an
	// entry, a hash line every Config.HashEvery entries, the first
	// line), with room for the reader's own.
	MaxEntries int
	// MaxBytes bounds the bytes of the entries' command records (the
	// script holds them in base64, a third more).
	MaxBytes int64
}

// The defaults of HistoryLimits' zero fields.
const (
	DefaultHistoryEntries = 9000
	DefaultHistoryBytes   = 16 << 20
)

// NewHistory returns a history of s from what the hub keeps: at a
// session's creation, its starting state and no entries. lim's zero
// fields take their defaults.
func NewHistory(s *Session, lim HistoryLimits) *History {
	setDefault(&lim.MaxEntries, DefaultHistoryEntries)
	setDefault(&lim.MaxBytes, DefaultHistoryBytes)
	h := &History{lim: lim, conns: map[string]Connection{}}
	h.restart(s)
	return h
}

// Limits returns the history's bounds, defaults filled in.
func (h *History) Limits() HistoryLimits { return h.lim }

// Add keeps the entries of one Ready (Ready.Entries), taken from s just
// before. Entries it has already (those NewHistory started with) are
// skipped; a gap (a Ready the driver did not pass on) or a bound passed
// makes it start again from what s keeps, which is whole.
func (h *History) Add(s *Session, entries []Entry) {
	for i := range entries {
		e := &entries[i]
		switch last := h.Last(); {
		case e.Seq <= last:
			continue
		case e.Seq != last+1:
			h.restart(s)
			return
		}
		h.entries = append(h.entries, *e)
		h.bytes += recordBytes(e)
		if e.Origin.Kind == OriginAMQP {
			h.noteConnection(s, e.Origin.Connection)
		}
	}
	if len(h.entries) > h.lim.MaxEntries || h.bytes > h.lim.MaxBytes {
		h.restart(s)
	}
}

// First returns the number of the entry the history starts after: 0
// when it holds the session's whole log, else the entry whose state it
// starts from.
func (h *History) First() uint64 { return h.start.Seq }

// Last returns the number of the last entry kept.
func (h *History) Last() uint64 {
	if len(h.entries) == 0 {
		return h.start.Seq
	}
	return h.entries[len(h.entries)-1].Seq
}

// Len returns the number of entries kept.
func (h *History) Len() int { return len(h.entries) }

// restart starts the history again from the hub's snapshot and the
// entries after it.
func (h *History) restart(s *Session) {
	h.start = Snapshot{Seq: s.snap.Seq, State: s.snap.State}
	h.entries = append(make([]Entry, 0, len(s.tail)), s.tail...)
	h.bytes = 0
	kept := map[string]Connection{}
	for i := range h.entries {
		e := &h.entries[i]
		h.bytes += recordBytes(e)
		if c, ok := h.conns[e.Origin.Connection]; ok && e.Origin.Kind == OriginAMQP {
			kept[c.ID] = c
		}
	}
	h.conns = kept
}

// noteConnection remembers how presence shows an AMQP connection, once
// the driver has registered it.
func (h *History) noteConnection(s *Session, id string) {
	if _, ok := h.conns[id]; ok {
		return
	}
	for _, c := range s.conns {
		if c.ID == id {
			h.conns[id] = c
			return
		}
	}
}

func recordBytes(e *Entry) int64 {
	var n int64
	for _, r := range e.Records {
		n += int64(len(r))
	}
	return n
}
