package engine

import "sort"

// returned is a copy back in its queue after a delivery, with the key that
// orders it among the other returned copies of its priority level (see
// level).
type returned struct {
	key uint64
	e   entry
}

// returnHeap is a binary min-heap of returned copies by key: adding one
// and taking the lowest each cost O(log r) for r returned copies, however
// long the queue behind them. Its methods return the work they did (entry
// moves plus key comparisons) for store.work.
//
// It keeps its array in chunks (chunked), not one slice grown by append:
// a channel giving back 400,000 copies grew the slice to 25 MB, copying it
// whole at each growth, single calls of 25-55 ms (bulkreturn.go).
type returnHeap struct{ c chunked[returned] }

// len returns the number of copies held.
func (h *returnHeap) len() int { return h.c.len() }

// at returns the i-th element of the heap's array; 0 is the lowest key.
func (h *returnHeap) at(i int) *returned { return h.c.at(i) }

// swap exchanges the i-th and j-th elements.
func (h *returnHeap) swap(i, j int) {
	a, b := h.c.at(i), h.c.at(j)
	*a, *b = *b, *a
}

// push adds r.
func (h *returnHeap) push(r returned) (work int) {
	h.c.push(r)
	i := h.c.len() - 1
	for i > 0 {
		parent := (i - 1) / 2
		work++
		if h.at(parent).key <= h.at(i).key {
			break
		}
		h.swap(parent, i)
		work += 2
		i = parent
	}
	return work + 1
}

// pop removes and returns the entry with the lowest key; h must not be
// empty.
func (h *returnHeap) pop() (e entry, work int) {
	e = h.at(0).e
	last := h.c.len() - 1
	*h.at(0) = *h.at(last)
	h.c.dropBack()
	n := h.c.len()
	work = 1
	i := 0
	for {
		least, l, r := i, 2*i+1, 2*i+2
		if l < n {
			work++
			if h.at(l).key < h.at(least).key {
				least = l
			}
		}
		if r < n {
			work++
			if h.at(r).key < h.at(least).key {
				least = r
			}
		}
		if least == i {
			break
		}
		h.swap(i, least)
		work += 2
		i = least
	}
	return e, work
}

// sort orders h by key, which leaves it a valid heap, so that it can be
// walked in delivery order.
func (h *returnHeap) sort() (work int) {
	if sort.IsSorted(h) {
		return h.len()
	}
	sort.Sort(h)
	return h.len() * log2Ceil(h.len())
}

// Len, Less and Swap let package sort order the heap's array.
func (h *returnHeap) Len() int           { return h.len() }
func (h *returnHeap) Less(i, j int) bool { return h.at(i).key < h.at(j).key }
func (h *returnHeap) Swap(i, j int)      { h.swap(i, j) }

// log2Ceil is the number of bits needed to write n, a log2 bound for
// work counts.
func log2Ceil(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}
