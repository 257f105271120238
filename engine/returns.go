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
type returnHeap []returned

// push adds r.
func (h *returnHeap) push(r returned) (work int) {
	*h = append(*h, r)
	s := *h
	i := len(s) - 1
	for i > 0 {
		parent := (i - 1) / 2
		work++
		if s[parent].key <= s[i].key {
			break
		}
		s[parent], s[i] = s[i], s[parent]
		work += 2
		i = parent
	}
	return work + 1
}

// pop removes and returns the entry with the lowest key; h must not be
// empty.
func (h *returnHeap) pop() (e entry, work int) {
	s := *h
	e = s[0].e
	last := len(s) - 1
	s[0] = s[last]
	s[last] = returned{}
	s = s[:last]
	*h = s
	work = 1
	i := 0
	for {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(s) {
			work++
			if s[l].key < s[least].key {
				least = l
			}
		}
		if r < len(s) {
			work++
			if s[r].key < s[least].key {
				least = r
			}
		}
		if least == i {
			break
		}
		s[i], s[least] = s[least], s[i]
		work += 2
		i = least
	}
	if len(s) == 0 && cap(s) > 1024 {
		*h = nil // let a burst's backing array go
	}
	return e, work
}

// sort orders h by key, which leaves it a valid heap, so that it can be
// walked in delivery order.
func (h returnHeap) sort() (work int) {
	less := func(i, j int) bool { return h[i].key < h[j].key }
	if sort.SliceIsSorted(h, less) {
		return len(h)
	}
	sort.Slice(h, less)
	return len(h) * log2Ceil(len(h))
}

// log2Ceil is the number of bits needed to write n, a log2 bound for
// work counts.
func log2Ceil(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}
