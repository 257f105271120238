package hub

import (
	"hash/fnv"
	"strconv"

	"warren/engine"
)

// commit ends an input: it takes the command records the broker logged
// and the events it emitted (evs, when a runner already drained them;
// the broker's own otherwise), tells every participant's runner but
// except's about the events, and appends an entry for the records, or
// for a clock mode change, to the log. It returns the entry's number, 0
// when the input changed nothing.
func (s *Session) commit(origin Origin, evs []engine.Event, drained bool, except *participant, mode ClockMode) uint64 {
	s.recs = s.recs[:0]
	s.b.DrainCommands(func(rec []byte) {
		s.recs = append(s.recs, append([]byte(nil), rec...))
	})
	if !drained {
		evs = s.b.DrainEvents(nil)
	}
	for _, p := range s.parts {
		if p != except {
			p.runner.Observe(evs)
		}
	}
	s.ready.Events = append(s.ready.Events, evs...)
	if len(s.recs) == 0 && mode == "" {
		return 0
	}
	s.seq++
	e := Entry{Seq: s.seq, Origin: origin, Clock: mode, NowMs: int64(s.b.Now())}
	if len(s.recs) > 0 {
		e.Records = append([][]byte(nil), s.recs...)
	}
	if len(s.tail)+1 >= s.cfg.SnapshotEvery {
		// The entry becomes part of a new snapshot; the log before it
		// is no longer kept.
		s.takeSnapshot()
		s.tail = s.tail[:0]
	} else {
		s.tail = append(s.tail, e)
	}
	if s.seq%s.cfg.HashEvery == 0 {
		e.Hash = formatHash(s.hashNow())
	}
	s.ready.Entries = append(s.ready.Entries, e)
	s.broadcast(&Message{Type: OutEntry, Entry: &e})
	return s.seq
}

// takeSnapshot saves the broker as of the last entry.
func (s *Session) takeSnapshot() {
	state := s.b.Save()
	s.snap = Snapshot{Seq: s.seq, State: state}
	s.keepHash(s.seq, hashBytes(state))
}

// snapshot returns what a joiner starts from: the snapshot and the
// entries after it.
func (s *Session) snapshot() *Snapshot {
	snap := s.snap
	snap.Entries = append([]Entry(nil), s.tail...)
	return &snap
}

// hashNow returns the state hash as of the last entry, computing it once
// per entry.
func (s *Session) hashNow() uint64 {
	if h, ok := s.hashAt(s.seq); ok {
		return h
	}
	h := HashState(s.b)
	s.keepHash(s.seq, h)
	return h
}

func (s *Session) hashAt(seq uint64) (uint64, bool) {
	for _, sh := range s.hashes {
		if sh.seq == seq {
			return sh.hash, true
		}
	}
	return 0, false
}

func (s *Session) keepHash(seq, h uint64) {
	if _, ok := s.hashAt(seq); ok {
		return
	}
	if len(s.hashes) == keptHashes {
		copy(s.hashes, s.hashes[1:])
		s.hashes = s.hashes[:keptHashes-1]
	}
	s.hashes = append(s.hashes, seqHash{seq, h})
}

// HashState returns the state hash of a broker: FNV-64a of its Save
// bytes. Two brokers that applied the same log from the same snapshot
// have the same hash, natively and in wasm. Like Save, it needs the
// broker's events and command records drained.
func HashState(b *engine.Broker) uint64 { return hashBytes(b.Save()) }

func hashBytes(state []byte) uint64 {
	h := fnv.New64a()
	h.Write(state)
	return h.Sum64()
}

// formatHash writes a hash as the protocol does: 16 hexadecimal digits.
func formatHash(h uint64) string {
	s := strconv.FormatUint(h, 16)
	for len(s) < 16 {
		s = "0" + s
	}
	return s
}

// parseHash reads a hash formatHash wrote.
func parseHash(s string) (uint64, bool) {
	if len(s) != 16 {
		return 0, false
	}
	h, err := strconv.ParseUint(s, 16, 64)
	return h, err == nil
}

// FormatHash writes a state hash as the protocol does, for a page that
// reports its own.
func FormatHash(h uint64) string { return formatHash(h) }
