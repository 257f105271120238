package deadline

// Restoring a saved heap.
//
// A broker saved and loaded again must fire its timers in the same order
// as the original: by deadline, then by the sequence number each timer was
// armed with. Re-arming them with Reset would number them afresh, so ties
// could break differently and AdvanceTo's "armed by this call" test
// (LastSeq) would see old timers as new. Restore puts a timer back with
// its saved number instead.

// Restore arms t at deadline at with the arming sequence number seq, as a
// saved heap had it. Timers restored in (deadline, sequence) order make a
// heap without moving (a sorted array is a heap); any order is accepted.
// t must not be armed.
func (h *Heap[V]) Restore(t *Timer[V], at int64, seq uint64) {
	t.At = at
	t.seq = seq
	h.items = append(h.items, t)
	t.index = len(h.items)
	h.up(len(h.items) - 1)
}

// RestoreLastSeq sets the sequence number the next Reset counts on from:
// the saved heap's LastSeq.
func (h *Heap[V]) RestoreLastSeq(seq uint64) { h.seq = seq }
