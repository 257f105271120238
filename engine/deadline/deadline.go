// Package deadline is the engine's one timer structure: a binary min-heap of
// timers ordered by (deadline, sequence).
//
// Every time-driven rule of the broker — message expiry at a queue head,
// x-expires leases, delayed-exchange releases, delivery acknowledgement
// timeouts — arms a Timer here. Ordering by a sequence number assigned at
// arming time makes ties deterministic: two timers due at the same
// millisecond fire in the order they were armed, on every platform.
//
// Push, Remove, Reset and Pop are O(log n); Peek is O(1).
package deadline

// Timer is one armed deadline. The zero value is an unarmed timer; a Timer
// may be re-armed after it fires or is removed. Value is the owner's payload.
type Timer[V any] struct {
	At    int64 // virtual milliseconds
	Value V
	seq   uint64
	index int // position in the heap plus one; 0 means not armed
}

// Armed reports whether the timer is currently in a heap.
func (t *Timer[V]) Armed() bool { return t.index > 0 }

// Seq returns the arming sequence number that breaks ties between timers
// with the same deadline.
func (t *Timer[V]) Seq() uint64 { return t.seq }

// Heap holds armed timers. It is not safe for concurrent use; the engine is
// single-threaded by design.
type Heap[V any] struct {
	items []*Timer[V]
	seq   uint64
}

// LastSeq returns the sequence number the latest arming (Reset) was given:
// a timer whose Seq is larger was armed after this call.
func (h *Heap[V]) LastSeq() uint64 { return h.seq }

// Len returns the number of armed timers.
func (h *Heap[V]) Len() int { return len(h.items) }

// Peek returns the earliest timer, or nil.
func (h *Heap[V]) Peek() *Timer[V] {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}

// Items returns the armed timers in heap order (not sorted). The slice is
// shared; callers must not modify it.
func (h *Heap[V]) Items() []*Timer[V] { return h.items }

// Reset arms t at deadline at, or moves it there if it is already armed.
// Moving a timer gives it a fresh sequence number, as re-arming would.
func (h *Heap[V]) Reset(t *Timer[V], at int64) {
	h.seq++
	t.At = at
	t.seq = h.seq
	if t.index > 0 {
		// A timer alone in its heap has nowhere to move: no calls (a
		// channel's ack timer is re-armed this way on every delivery to an
		// emptied channel).
		if i := t.index - 1; len(h.items) > 1 && !h.up(i) {
			h.down(i)
		}
		return
	}
	h.items = append(h.items, t)
	t.index = len(h.items)
	h.up(len(h.items) - 1)
}

// Remove disarms t; removing an unarmed timer is a no-op, and costs no
// call (the engine removes a queue's dispatch timer after every ack).
func (h *Heap[V]) Remove(t *Timer[V]) {
	if t.index > 0 {
		h.remove(t)
	}
}

func (h *Heap[V]) remove(t *Timer[V]) {
	i := t.index - 1
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	h.items[last] = nil
	h.items = h.items[:last]
	t.index = 0
	if i != last {
		if !h.up(i) {
			h.down(i)
		}
	}
}

// Pop removes and returns the earliest timer, or nil.
func (h *Heap[V]) Pop() *Timer[V] {
	t := h.Peek()
	if t != nil {
		h.Remove(t)
	}
	return t
}

func (h *Heap[V]) less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if a.At != b.At {
		return a.At < b.At
	}
	return a.seq < b.seq
}

func (h *Heap[V]) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index = i + 1
	h.items[j].index = j + 1
}

// up moves item i towards the root and reports whether it moved.
func (h *Heap[V]) up(i int) bool {
	moved := false
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.swap(i, p)
		i = p
		moved = true
	}
	return moved
}

func (h *Heap[V]) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.swap(i, m)
		i = m
	}
}
