package engine

// listing holds what a management list shows about every object of a kind
// (queue names, connection references) in one slice, so that a reader
// copies it with one memmove instead of walking a map of objects on the
// broker goroutine. Adding and removing cost O(1): a removal moves the last
// item into the gap, so the order is arrival order shuffled by removals,
// and readers sort what they copy.
type listing[T any] struct {
	items []T
}

// add appends v and returns its index, which its owner keeps for remove.
func (l *listing[T]) add(v T) int {
	l.items = append(l.items, v)
	return len(l.items) - 1
}

// remove takes out the item at i. When another item moves into i, it is
// returned with ok true, so that its owner can record its new index.
func (l *listing[T]) remove(i int) (moved T, ok bool) {
	last := len(l.items) - 1
	var zero T
	if i != last {
		l.items[i] = l.items[last]
		moved, ok = l.items[i], true
	}
	l.items[last] = zero
	l.items = l.items[:last]
	return moved, ok
}

// copy returns a copy of the items.
func (l *listing[T]) copy() []T { return append([]T(nil), l.items...) }
