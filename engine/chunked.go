package engine

// chunkLen is how many elements one chunk of a chunked FIFO holds (a power
// of two; 256 unacked deliveries are about 28 KB, under Go's large-object
// size, and 256 ready entries 10 KB).
const chunkLen = 256

// chunked is a FIFO of values kept in chunks of chunkLen, which never
// copies itself. It holds a queue's ready messages (deque) and a channel's
// unacked deliveries (unackedList).
//
// One slice grown by append is copied whole at every growth: a queue or a
// channel holding 400,000 was copied tens of megabytes at a time, and the
// large allocations drew the garbage collector in, pauses of 100-300 ms in
// single commands (a publish, a batch of deliveries or dead letters;
// backlog.go); and dropping the front moved the rest down. Here only the
// newest chunk grows (to chunkLen at most), so a short FIFO costs what a
// small slice does; an emptied chunk at the front is kept for the next one
// at the back; nothing in a full chunk ever moves.
//
// Every chunk but the last is full and the first starts at head, so the
// i-th value is at head+i counted across chunks.
type chunked[T any] struct {
	chunks [][]T
	head   int // position of the first value in chunks[0]
	n      int
	spare  []T
	// shared is how many of the first chunks a reader on another
	// goroutine may still hold (share): c writes none of the values they
	// held then, neither clearing nor reusing them.
	shared int
}

// len returns the number of values held.
func (c *chunked[T]) len() int { return c.n }

// at returns the i-th value (0 is the oldest).
func (c *chunked[T]) at(i int) *T {
	j := uint(c.head + i)
	return &c.chunks[j/chunkLen][j%chunkLen]
}

// push appends v.
func (c *chunked[T]) push(v T) {
	*c.pushed() = v
}

// pushed appends a zero value and returns it to be filled in (good until
// the FIFO next changes): every delivery is pushed, and building one (112
// bytes) to copy it in cost more than writing it in place. The usual case,
// room in the last chunk, is small enough to be inlined.
func (c *chunked[T]) pushed() *T {
	if k := len(c.chunks) - 1; k >= 0 {
		if last := &c.chunks[k]; len(*last) < cap(*last) {
			n := len(*last)
			*last = (*last)[:n+1]
			c.n++
			return &(*last)[n]
		}
	}
	return c.pushGrown()
}

// pushGrown is pushed when the last chunk is full or has no room left.
func (c *chunked[T]) pushGrown() *T {
	k := len(c.chunks) - 1
	if k < 0 || len(c.chunks[k]) == chunkLen {
		next := c.spare
		if k >= 0 && cap(next) < chunkLen {
			// The FIFO has filled a chunk already: the next will fill
			// too, so it is made whole at once rather than grown
			// from 4 (which copied it six times on the way). A
			// smaller spare is kept for takeFront.
			next = make([]T, 0, chunkLen)
		} else {
			c.spare = nil
		}
		c.chunks = append(c.chunks, next)
		k++
	}
	last := c.chunks[k]
	if len(last) == cap(last) {
		grown := make([]T, len(last), min(max(2*cap(last), 4), chunkLen))
		copy(grown, last)
		last = grown
	}
	var zero T
	c.chunks[k] = append(last, zero)
	c.n++
	return &c.chunks[k][len(last)]
}

// adoptSpare takes, as c's spare when it has none, the emptied chunk of
// from, a FIFO that has been emptied and is done with: a channel's
// deliveries that multiple acks handed on (takeFront) give their chunk
// back once settled, and the next takeFront copies into it, rather than
// the channel allocating a new one for every ack.
func (c *chunked[T]) adoptSpare(from *chunked[T]) {
	if c.spare != nil || from.n != 0 || from.shared > 0 {
		return
	}
	chunk := from.spare
	if chunk == nil && len(from.chunks) == 1 && cap(from.chunks[0]) > 0 {
		chunk = from.chunks[0]
	}
	if chunk == nil {
		return
	}
	from.spare, from.chunks = nil, nil
	c.spare = chunk[:0]
}

// dropFront removes the oldest value; there must be one.
func (c *chunked[T]) dropFront() {
	if c.shared == 0 {
		var zero T
		c.chunks[0][c.head] = zero
	}
	c.head++
	c.n--
	if c.head == chunkLen || c.n == 0 {
		c.settleFront()
	}
}

// dropBack removes the newest value; there must be one. An emptied last
// chunk is kept as the spare.
func (c *chunked[T]) dropBack() {
	var zero T
	k := len(c.chunks) - 1
	if k < c.shared {
		c.unshareFrom(k) // the next push writes where this value was
	}
	last := c.chunks[k]
	last[len(last)-1] = zero
	c.chunks[k] = last[:len(last)-1]
	c.n--
	switch {
	case c.n == 0:
		c.chunks[0] = c.chunks[0][:0]
		c.chunks = c.chunks[:1]
		c.head = 0
	case len(c.chunks[k]) == 0:
		if cap(last) == chunkLen {
			c.spare = last[:0]
		}
		c.chunks[k] = nil
		c.chunks = c.chunks[:k]
	}
}

// dropFrontN removes the k oldest values; there must be as many. The
// values are cleared a chunk's run at a time, so that a channel acking
// all of 400,000 deliveries clears them as fast as one slice would.
func (c *chunked[T]) dropFrontN(k int) {
	for k > 0 {
		run := min(k, len(c.chunks[0])-c.head)
		if c.shared == 0 {
			clear(c.chunks[0][c.head : c.head+run])
		}
		c.head += run
		c.n -= run
		k -= run
		c.settleFront()
	}
}

// settleFront lets go of a first chunk that has been dropped entirely,
// keeping it as the spare, and starts an emptied FIFO from the front of
// its one chunk.
func (c *chunked[T]) settleFront() {
	if c.head == chunkLen {
		if c.shared > 0 {
			c.shared--
		} else if cap(c.chunks[0]) == chunkLen {
			c.spare = c.chunks[0][:0]
		}
		c.chunks[0] = nil
		c.chunks = c.chunks[1:]
		c.head = 0
	}
	if c.n == 0 && len(c.chunks) == 1 {
		if c.shared > 0 {
			// Its values stay as they were for the reader; the next
			// push starts a chunk of its own.
			c.chunks, c.shared = nil, 0
		} else {
			c.chunks[0] = c.chunks[0][:0]
		}
		c.head = 0
	}
}

// takeFront moves the k oldest values (there must be as many) into a FIFO
// of their own and returns it. Full chunks move whole; only the values of
// a chunk shared with what stays are copied, at most two chunks' worth, so
// a channel acknowledging 400,000 deliveries hands them on in O(chunks).
func (c *chunked[T]) takeFront(k int) chunked[T] {
	var out chunked[T]
	for k > 0 {
		first := c.chunks[0]
		run := min(k, len(first)-c.head)
		if len(first) == chunkLen && run == chunkLen-c.head {
			// The whole rest of a full chunk moves. Only the last step
			// copies (below), so out's chunks but its last stay full.
			if out.n == 0 {
				out.head = c.head
			}
			if c.shared > 0 {
				// The shared chunks move first, so out's are its
				// first too.
				c.shared--
				out.shared++
			}
			out.chunks = append(out.chunks, first)
			out.n += run
			c.chunks[0] = nil
			c.chunks = c.chunks[1:]
			c.head = 0
			c.n -= run
			k -= run
			continue
		}
		if len(out.chunks) == 0 {
			out.chunks = append(out.chunks, c.loanFor(run))
		}
		for _, v := range first[c.head : c.head+run] {
			out.push(v)
		}
		c.dropFrontN(run)
		k -= run
	}
	return out
}

// loanFor returns an empty chunk for takeFront to copy n values into: c's
// spare when it has room for them, which adoptSpare gives back once they
// are settled; else a new one of the next power of two, the too small
// spare let go so that the new one comes back in its place. (Grown from 4
// by push instead, a channel acking 25 deliveries at a time made four
// arrays and three copies of them for every ack: 60 % of what Warren
// allocated at 10,000 msgs/s, 5bab91e:BENCHMARKS.md.)
func (c *chunked[T]) loanFor(n int) []T {
	if cap(c.spare) >= n {
		chunk := c.spare[:0]
		c.spare = nil
		return chunk
	}
	c.spare = nil
	size := 4
	for size < n && size < chunkLen {
		size *= 2
	}
	return make([]T, 0, size)
}

// share returns the values as slices of c's own chunks, oldest first, for
// a reader on another goroutine (Broker.SaveShared's finish), and marks
// those chunks shared: until they leave the front, c clears none of
// their values (the collector frees them with the chunk), reuses none of
// them as its spare, and copies a chunk before it changes a value in it
// (dropBack, unshare). Pushing goes on after the values shared, outside
// the slices. Copying the values instead, 48 bytes a ready message, held
// the broker 50 ms at 300,000 queued messages (the persistent scenario of
// warren-bench pauses) while the collector ran.
func (c *chunked[T]) share() [][]T {
	if c.n == 0 {
		return nil
	}
	out := make([][]T, len(c.chunks))
	for i, ch := range c.chunks {
		out[i] = ch[:len(ch):len(ch)]
	}
	out[0] = out[0][c.head:]
	c.shared = len(c.chunks)
	return out
}

// unshare gives c its own copy of every chunk it shares, for a change to
// its values in place (queue.retime).
func (c *chunked[T]) unshare() { c.unshareFrom(0) }

// unshareFrom copies the shared chunks from the k-th on, the last ones
// shared, so that those before it stay the shared prefix.
func (c *chunked[T]) unshareFrom(k int) {
	for i := k; i < c.shared; i++ {
		own := make([]T, len(c.chunks[i]), cap(c.chunks[i]))
		copy(own, c.chunks[i])
		c.chunks[i] = own
	}
	c.shared = min(c.shared, k)
}
