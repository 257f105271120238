package engine

// listing holds what a management list shows about every object of a kind
// (queue names, connection references), so that a reader holding the
// server's broker lock takes all of it in O(n/listingChunk) and reads it
// after letting go.
//
// The items live in chunks of listingChunk. borrow hands out the chunks
// themselves, cut to their current length, and marks them shared; before
// the engine next writes into a shared chunk where a reader may look, it
// copies the chunk (copy on write), so a reader never sees a change and
// the engine pays at most one chunk copy per chunk per borrow. Appending
// past a borrowed chunk's length writes where no reader looks, so it needs
// no copy. Adding and removing cost O(1): a removal moves the last item
// into the gap, so the order is arrival order shuffled by removals, and
// readers sort.
type listing[T any] struct {
	chunks [][]T // every chunk but the last is full
	shared []bool
	n      int
}

// listingChunk is the items per chunk: a borrow of 100,000 queue names
// copies 98 slice headers, a copy on write 16 KiB.
const listingChunk = 1024

// firstChunk is the room a listing's first chunk starts with; appends
// grow it to listingChunk. A connection that opens and closes a channel
// at a time (the management API's sessions, a client that opens a channel
// per operation) empties the channels listing each time, and a full first
// chunk would be 56 KB made and cleared for every channel.
const firstChunk = 8

// add appends v and returns its index, which its owner keeps for remove.
func (l *listing[T]) add(v T) int {
	if l.n == len(l.chunks)*listingChunk {
		room := listingChunk
		if len(l.chunks) == 0 {
			room = firstChunk
		}
		l.chunks = append(l.chunks, make([]T, 0, room))
		l.shared = append(l.shared, false)
	}
	c := len(l.chunks) - 1
	l.chunks[c] = append(l.chunks[c], v)
	l.n++
	return l.n - 1
}

// remove takes out the item at i. When another item moves into i, it is
// returned with ok true, so that its owner can record its new index.
func (l *listing[T]) remove(i int) (moved T, ok bool) {
	last := l.n - 1
	ci, cl := i/listingChunk, last/listingChunk
	l.own(ci)
	l.own(cl)
	var zero T
	if i != last {
		moved, ok = l.chunks[cl][last%listingChunk], true
		l.chunks[ci][i%listingChunk] = moved
	}
	l.chunks[cl][last%listingChunk] = zero
	l.chunks[cl] = l.chunks[cl][:last%listingChunk]
	if len(l.chunks[cl]) == 0 {
		l.chunks[cl] = nil
		l.chunks, l.shared = l.chunks[:cl], l.shared[:cl]
	}
	l.n--
	return moved, ok
}

// own copies chunk c if a reader may hold it, before the engine writes
// into it.
func (l *listing[T]) own(c int) {
	if !l.shared[c] {
		return
	}
	old := l.chunks[c]
	l.chunks[c] = append(make([]T, 0, listingChunk), old...)
	l.shared[c] = false
}

// borrow returns the items, in chunks, for reading on any goroutine: the
// engine will not change them.
func (l *listing[T]) borrow() [][]T {
	out := make([][]T, len(l.chunks))
	for i, c := range l.chunks {
		out[i] = c[:len(c):len(c)]
		l.shared[i] = true
	}
	return out
}
