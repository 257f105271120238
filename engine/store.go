package engine

// entry is one message copy ready in a queue. Entries are stored by value in
// ring-free slices, so a queued message costs its Message plus this.
type entry struct {
	msg         *Message
	seq         uint64 // queue-local arrival order; requeue restores by it
	enqueuedAt  Time
	expiresAt   Time  // Never when the copy has no TTL
	deliveries  int32 // times returned to the queue (quorum delivery-limit)
	priority    uint8
	redelivered bool
	returned    bool // in a quorum queue's returns, at the head (see insertReturned)
}

// deque is a FIFO of entries: a slice with a moving head.
type deque struct {
	buf  []entry
	head int
}

func (d *deque) len() int { return len(d.buf) - d.head }

func (d *deque) push(e entry) {
	if d.head > 0 && len(d.buf) == cap(d.buf) && d.head*2 >= len(d.buf) {
		n := copy(d.buf, d.buf[d.head:])
		clear(d.buf[n:])
		d.buf = d.buf[:n]
		d.head = 0
	}
	d.buf = append(d.buf, e)
}

func (d *deque) front() *entry {
	if d.head == len(d.buf) {
		return nil
	}
	return &d.buf[d.head]
}

func (d *deque) pop() entry {
	e := d.buf[d.head]
	d.buf[d.head] = entry{}
	d.head++
	if d.head == len(d.buf) {
		d.buf = d.buf[:0]
		d.head = 0
	}
	return e
}

// insertBySeq puts a requeued entry back at its original position: before
// the first entry with a higher sequence number. Requeued messages usually
// belong near the head, so the front part is shifted.
func (d *deque) insertBySeq(e entry) {
	live := d.buf[d.head:]
	i := 0
	for i < len(live) && live[i].seq < e.seq {
		i++
	}
	d.insertAt(i, e)
}

// insertReturned puts an entry a quorum queue takes back at the end of the
// returned entries at the head, so that returns are delivered first, in the
// order they came back (rabbit_fifo keeps them in a separate returns queue
// served before the messages never delivered).
func (d *deque) insertReturned(e entry) {
	live := d.buf[d.head:]
	i := 0
	for i < len(live) && live[i].returned {
		i++
	}
	d.insertAt(i, e)
}

// insertAt inserts e before the i-th live entry.
func (d *deque) insertAt(i int, e entry) {
	if d.head > 0 {
		d.head--
		copy(d.buf[d.head:d.head+i], d.buf[d.head+1:d.head+1+i])
		d.buf[d.head+i] = e
		return
	}
	d.buf = append(d.buf, entry{})
	copy(d.buf[i+1:], d.buf[i:len(d.buf)-1])
	d.buf[i] = e
}

// filter keeps the entries for which keep returns true, in order.
func (d *deque) filter(keep func(*entry) bool) {
	out := d.buf[:0]
	for i := d.head; i < len(d.buf); i++ {
		if keep(&d.buf[i]) {
			out = append(out, d.buf[i])
		}
	}
	clear(d.buf[len(out):])
	d.buf = out
	d.head = 0
}

// store holds a queue's ready messages: one deque for a plain queue, one per
// priority level for a priority queue (highest level served first, FIFO
// within a level).
type store struct {
	levels []deque // index = priority level
	n      int
	bytes  int64
	// totals are the vhost's and the broker's running sums of ready
	// messages and bytes, kept here where every change happens, for the
	// per-vhost message limit and the server's memory alarm.
	vhostTotal, brokerTotal *tally
}

// tally is a running count of messages and their body bytes.
type tally struct {
	msgs  int64
	bytes int64
}

// add records a change of dn messages and db bytes.
func (t *tally) add(dn int, db int64) {
	t.msgs += int64(dn)
	t.bytes += db
}

func newStore(maxPriority int, vhostTotal, brokerTotal *tally) store {
	return store{levels: make([]deque, maxPriority+1), vhostTotal: vhostTotal, brokerTotal: brokerTotal}
}

// account records a change of dn messages and db bytes.
func (s *store) account(dn int, db int64) {
	s.n += dn
	s.bytes += db
	if s.vhostTotal != nil {
		s.vhostTotal.msgs += int64(dn)
		s.vhostTotal.bytes += db
	}
	if s.brokerTotal != nil {
		s.brokerTotal.msgs += int64(dn)
		s.brokerTotal.bytes += db
	}
}

func (s *store) len() int { return s.n }

func (s *store) level(p uint8) int {
	if int(p) >= len(s.levels) {
		return len(s.levels) - 1
	}
	return int(p)
}

func (s *store) push(e entry) {
	s.levels[s.level(e.priority)].push(e)
	s.account(1, int64(len(e.msg.Body)))
}

func (s *store) insertBySeq(e entry) {
	s.levels[s.level(e.priority)].insertBySeq(e)
	s.account(1, int64(len(e.msg.Body)))
}

func (s *store) insertReturned(e entry) {
	s.levels[s.level(e.priority)].insertReturned(e)
	s.account(1, int64(len(e.msg.Body)))
}

// head returns the entry that would be delivered next, or nil.
func (s *store) head() *entry {
	for l := len(s.levels) - 1; l >= 0; l-- {
		if e := s.levels[l].front(); e != nil {
			return e
		}
	}
	return nil
}

// pop removes the head entry; the store must not be empty.
func (s *store) pop() entry {
	for l := len(s.levels) - 1; l >= 0; l-- {
		if s.levels[l].len() > 0 {
			return s.popLevel(l)
		}
	}
	panic("engine: pop from empty store")
}

func (s *store) popLevel(l int) entry {
	e := s.levels[l].pop()
	s.account(-1, -int64(len(e.msg.Body)))
	return e
}

// each calls fn for every entry in delivery order.
func (s *store) each(fn func(*entry)) {
	for l := len(s.levels) - 1; l >= 0; l-- {
		d := &s.levels[l]
		for i := d.head; i < len(d.buf); i++ {
			fn(&d.buf[i])
		}
	}
}

// filter keeps the entries for which keep returns true.
func (s *store) filter(keep func(*entry) bool) {
	for l := range s.levels {
		s.levels[l].filter(keep)
	}
	n, bytes := 0, int64(0)
	s.each(func(e *entry) { n++; bytes += int64(len(e.msg.Body)) })
	s.account(n-s.n, bytes-s.bytes)
}

// clear removes everything and returns the entries in delivery order.
func (s *store) drain() []entry {
	out := make([]entry, 0, s.n)
	s.each(func(e *entry) { out = append(out, *e) })
	for l := range s.levels {
		s.levels[l] = deque{}
	}
	s.account(-s.n, -s.bytes)
	return out
}
