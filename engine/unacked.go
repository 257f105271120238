package engine

import "sort"

// unackedList is a channel's deliveries awaiting acknowledgement, in
// delivery-tag order. Settled deliveries are marked done and dropped from
// the front (trim). It is chunked (see chunked) so that a channel given
// 400,000 deliveries never copies them; and elements do not move while
// pointers to them are held, since collect's callers settle before anything
// is pushed.
type unackedList struct{ chunked[delivery] }

// trim drops settled deliveries from the front.
func (l *unackedList) trim() {
	if l.n == 1 && len(l.chunks) == 1 {
		// One delivery in one chunk, the usual case after an ack of a
		// consumer that keeps up: dropFrontN's work without its loop.
		if c := l.chunks[0]; c[l.head].done {
			c[l.head] = delivery{}
			l.chunks[0], l.head, l.n = c[:0], 0, 0
		}
		return
	}
	k := 0
	for k < l.n && l.at(k).done {
		k++
	}
	l.dropFrontN(k)
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
