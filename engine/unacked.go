package engine

import "sort"

// unackedChunk is how many deliveries one chunk of an unacked list holds
// (a power of two; 256 deliveries are about 28 KB, under Go's large-object
// size).
const unackedChunk = 256

// unackedList is a channel's deliveries awaiting acknowledgement, in
// delivery-tag order: a FIFO of chunks. Settled deliveries are marked done
// and dropped from the front (trim).
//
// It is chunked so that it never copies itself. One slice grown by append
// was copied whole at every growth: a consumer with unlimited prefetch
// taking 400,000 deliveries copied tens of megabytes at a time, a pause of
// up to 76 ms in one batch of 2,048 deliveries (backlog.go); and dropping
// the acknowledged front moved the rest down. Here only the newest chunk
// grows (to unackedChunk at most), so a channel with a few unacked
// deliveries costs what a small slice does, and an emptied chunk at the
// front is kept for the next one at the back.
//
// Every chunk but the last is full, and the first starts at head, so the
// i-th delivery is at head+i counted across chunks. Elements never move
// while pointers to them are held: collect's callers settle before
// anything is pushed.
type unackedList struct {
	chunks [][]delivery
	head   int // position of the first delivery in chunks[0]
	n      int // deliveries from head on, settled ones included
	spare  []delivery
}

// len returns the number of deliveries listed, settled ones included.
func (l *unackedList) len() int { return l.n }

// at returns the i-th listed delivery (0 is the oldest).
func (l *unackedList) at(i int) *delivery {
	j := l.head + i
	return &l.chunks[j/unackedChunk][j%unackedChunk]
}

// push appends a delivery with a higher tag than any listed.
func (l *unackedList) push(d delivery) {
	k := len(l.chunks) - 1
	if k < 0 || len(l.chunks[k]) == unackedChunk {
		l.chunks = append(l.chunks, l.spare)
		l.spare = nil
		k++
	}
	c := l.chunks[k]
	if len(c) == cap(c) {
		grown := make([]delivery, len(c), min(max(2*cap(c), 4), unackedChunk))
		copy(grown, c)
		c = grown
	}
	l.chunks[k] = append(c, d)
	l.n++
}

// trim drops settled deliveries from the front.
func (l *unackedList) trim() {
	for l.n > 0 && l.at(0).done {
		*l.at(0) = delivery{}
		l.head++
		l.n--
		if l.head == unackedChunk {
			if cap(l.chunks[0]) == unackedChunk {
				l.spare = l.chunks[0][:0]
			}
			l.chunks[0] = nil
			l.chunks = l.chunks[1:]
			l.head = 0
		}
	}
	if l.n == 0 && len(l.chunks) == 1 {
		l.chunks[0] = l.chunks[0][:0]
		l.head = 0
	}
}

// find returns the index of the delivery with this tag, or -1.
func (l *unackedList) find(tag uint64) int {
	i := sort.Search(l.n, func(i int) bool { return l.at(i).tag >= tag })
	if i < l.n && l.at(i).tag == tag {
		return i
	}
	return -1
}

// insert puts d back in tag order (a transaction's buffered
// acknowledgement rolled back), moving those with higher tags up by one.
func (l *unackedList) insert(d delivery) {
	i := sort.Search(l.n, func(i int) bool { return l.at(i).tag >= d.tag })
	l.push(delivery{})
	for j := l.n - 1; j > i; j-- {
		*l.at(j) = *l.at(j - 1)
	}
	*l.at(i) = d
}
