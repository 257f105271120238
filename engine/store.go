package engine

// entry is one message copy ready in a queue. Entries are stored by value in
// chunks, so a queued message costs its Message plus this.
type entry struct {
	msg         *Message
	via         *Via   // the binding that routed the copy here (via.go)
	seq         uint64 // queue-local arrival order; requeue restores by it
	enqueuedAt  Time
	expiresAt   Time  // Never when the copy has no TTL
	deliveries  int32 // times returned to the queue (quorum delivery-limit)
	priority    uint8
	redelivered bool
}

// deque is a FIFO of entries, in chunks (see chunked): a queue that
// holds 400,000 messages is never copied to grow.
type deque struct{ chunked[entry] }

func (d *deque) front() *entry {
	if d.n == 0 {
		return nil
	}
	return d.at(0)
}

func (d *deque) pop() entry {
	e := *d.at(0)
	d.dropFront()
	return e
}

// store holds a queue's ready messages: one level for a plain queue, one
// per priority level for a priority queue (highest level served first).
type store struct {
	levels []level // index = priority level
	n      int
	bytes  int64
	// returnSeq numbers the copies a quorum queue takes back, which it
	// serves in the order they came back (see returnInOrder).
	returnSeq uint64
	// work counts the entry moves and key comparisons spent keeping
	// returned copies in order, so that a test can hold requeueing to
	// O(k log n) by counting rather than timing.
	work int
	// totals are the vhost's and the broker's running sums of ready
	// messages and bytes, kept here where every change happens, for the
	// per-vhost message limit and the server's memory alarm.
	vhostTotal, brokerTotal *tally
	// jq is the queue, when it is durable and the broker keeps a durable
	// log (durable.go): the store tells it of every copy that comes and
	// goes. nil otherwise, which costs the hot path one check.
	jq *queue
}

// level is one priority level's ready copies in delivery order: those
// returned to the queue after a delivery come first, lowest key first,
// then those never delivered, oldest first.
//
// A classic queue keys a returned copy by its arrival number, which puts it
// back at its original position: every copy ever delivered from a level
// arrived before every copy that level still holds undelivered, because
// delivery always takes the level's head and new arrivals join the back.
// So "in front of all fresh copies, among the returned ones by arrival" is
// exactly the original position, and finding it costs O(log returned)
// instead of a walk and a shift along the whole queue (a channel closing
// with 10,000 unacked messages in front of 390,000 once held the broker
// for 5.3 s doing that).
type level struct {
	returns returnHeap
	fresh   deque
}

func (l *level) len() int { return l.returns.len() + l.fresh.len() }

func (l *level) front() *entry {
	if l.returns.len() > 0 {
		return &l.returns.at(0).e
	}
	return l.fresh.front()
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
	return store{levels: make([]level, maxPriority+1), vhostTotal: vhostTotal, brokerTotal: brokerTotal}
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

// push appends a copy that arrives at the queue.
func (s *store) push(e entry) {
	s.levels[s.level(e.priority)].fresh.push(e)
	s.account(1, int64(len(e.msg.Body)))
	if s.jq != nil {
		s.jq.durablePut(&e, 0, 0)
	}
}

// returnBySeq puts a copy a classic queue takes back at its original
// position (see level).
func (s *store) returnBySeq(e entry) {
	s.work += s.levels[s.level(e.priority)].returns.push(returned{key: e.seq, e: e})
	s.account(1, int64(len(e.msg.Body)))
	if s.jq != nil {
		s.jq.durablePut(&e, 1, e.seq)
	}
}

// returnInOrder puts a copy a quorum queue takes back after the copies
// returned before it, ahead of those never delivered: rabbit_fifo keeps
// returns in a queue of their own, served before the messages never
// delivered.
func (s *store) returnInOrder(e entry) {
	s.returnSeq++
	s.work += s.levels[s.level(e.priority)].returns.push(returned{key: s.returnSeq, e: e})
	s.account(1, int64(len(e.msg.Body)))
	if s.jq != nil {
		s.jq.durablePut(&e, 2, s.returnSeq)
	}
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
	lv := &s.levels[l]
	var e entry
	if lv.returns.len() > 0 {
		var work int
		e, work = lv.returns.pop()
		s.work += work
	} else {
		e = lv.fresh.pop()
	}
	s.account(-1, -int64(len(e.msg.Body)))
	if s.jq != nil {
		s.jq.durableTake(&e)
	}
	return e
}

// each calls fn for every entry in delivery order. It sorts each level's
// returned copies in place (a sorted slice is still a heap), so it costs
// O(n + r log r) for r returned copies; only views and bulk changes use it.
func (s *store) each(fn func(*entry)) {
	s.eachWhile(func(e *entry) bool { fn(e); return true })
}

// eachWhile is each, stopping after the first entry for which fn returns
// false.
func (s *store) eachWhile(fn func(*entry) bool) {
	for l := len(s.levels) - 1; l >= 0; l-- {
		lv := &s.levels[l]
		s.work += lv.returns.sort()
		for i := 0; i < lv.returns.len(); i++ {
			if !fn(&lv.returns.at(i).e) {
				return
			}
		}
		for i := 0; i < lv.fresh.len(); i++ {
			if !fn(lv.fresh.at(i)) {
				return
			}
		}
	}
}

// eachBackWhile calls fn for the entries from the last to be delivered
// towards the first, stopping after the first for which fn returns
// false. Like each, it sorts the returned copies of the levels it reaches.
func (s *store) eachBackWhile(fn func(*entry) bool) {
	for l := range s.levels {
		lv := &s.levels[l]
		for i := lv.fresh.len() - 1; i >= 0; i-- {
			if !fn(lv.fresh.at(i)) {
				return
			}
		}
		s.work += lv.returns.sort()
		for i := lv.returns.len() - 1; i >= 0; i-- {
			if !fn(&lv.returns.at(i).e) {
				return
			}
		}
	}
}

// unshare gives the store its own copy of the fresh entries a snapshot
// still reads (chunked.share), before a change to them in place.
func (s *store) unshare() {
	for l := range s.levels {
		s.levels[l].fresh.unshare()
	}
}

// eachInPlace calls fn for every entry, in no particular order, without
// sorting anything: for changes that do not depend on the order (a
// change to the fresh entries calls unshare first).
func (s *store) eachInPlace(fn func(*entry)) {
	for l := range s.levels {
		lv := &s.levels[l]
		for i := 0; i < lv.returns.len(); i++ {
			fn(&lv.returns.at(i).e)
		}
		for i := 0; i < lv.fresh.len(); i++ {
			fn(lv.fresh.at(i))
		}
	}
}

// frontOver returns how many entries must leave from the head, in
// delivery order, for the rest to be at most maxLen entries and maxBytes
// body bytes (a negative limit is none). By count alone it reads no entry;
// by bytes it reads those that leave or those that stay, whichever side
// is smaller by bytes.
func (s *store) frontOver(maxLen, maxBytes int64) int {
	k := 0
	if maxLen >= 0 && int64(s.n) > maxLen {
		k = s.n - int(maxLen)
	}
	if maxBytes < 0 || s.bytes <= maxBytes {
		return k
	}
	i := 0
	if excess := s.bytes - maxBytes; excess <= maxBytes {
		// Fewer bytes leave than stay: from the head, until what
		// left covers the excess.
		s.eachWhile(func(e *entry) bool {
			if excess <= 0 {
				return false
			}
			excess -= int64(len(e.msg.Body))
			i++
			return true
		})
		return max(k, i)
	}
	// Fewer stay: from the tail, while they fit.
	kept := int64(0)
	s.eachBackWhile(func(e *entry) bool {
		if kept+int64(len(e.msg.Body)) > maxBytes {
			return false
		}
		kept += int64(len(e.msg.Body))
		i++
		return true
	})
	return max(k, s.n-i)
}

// takeFront moves the k entries to be delivered first (there must be as
// many) into a store of their own, counted in no totals, and returns it:
// a length limit's drop-head of many (bulkend.go). Never-delivered copies
// move a chunk at a time (chunked.takeFront); returned copies are sorted,
// and a sorted array is still a heap, so each side keeps its part, also a
// chunk at a time. Only summing the bytes taken reads entries: those
// taken or those left, whichever are fewer.
func (s *store) takeFront(k int) store {
	out := store{levels: make([]level, len(s.levels))}
	out.n = k
	sumOut := k <= s.n-k
	bytes := s.bytes
	for l := len(s.levels) - 1; l >= 0 && k > 0; l-- {
		lv, o := &s.levels[l], &out.levels[l]
		if r := lv.returns.len(); r > 0 {
			s.work += lv.returns.sort()
			m := min(k, r)
			o.returns = returnHeap{lv.returns.c.takeFront(m)}
			k -= m
		}
		m := min(k, lv.fresh.len())
		o.fresh = deque{lv.fresh.takeFront(m)}
		k -= m
	}
	if sumOut {
		out.eachInPlace(func(e *entry) { out.bytes += int64(len(e.msg.Body)) })
	} else {
		left := int64(0)
		s.eachInPlace(func(e *entry) { left += int64(len(e.msg.Body)) })
		out.bytes = bytes - left
	}
	s.account(-out.n, -out.bytes)
	if s.jq != nil {
		s.jq.durableTakeAll(&out)
	}
	return out
}
