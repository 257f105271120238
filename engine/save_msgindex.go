package engine

// msgIndex numbers the messages a snapshot has written, so that a message
// several queues share is written once. A million queued messages made a
// Go map of pointers the bulk of Save's time (a cache miss per lookup);
// this table is keyed by message id instead, with ids close together in
// slots close together: a queue's messages mostly arrive in id order, so
// its lookups walk the table nearly in order. Runs of 64 ids are spread
// by a multiplicative hash, so that ids with a large common stride do not
// pile up. The engine never gives two messages one id; a message that
// shares one anyway (a damaged snapshot loaded) falls back to a map.
type msgIndex struct {
	ids   []uint64 // 0: empty slot (ids start at 1)
	nums  []uint32
	msgs  []*Message
	mask  uint64
	other map[*Message]uint64
}

// newMsgIndex makes an index for about hint messages. The hint is the
// broker's running totals, which a damaged snapshot loaded may make
// anything: it only sizes the table to start with, within bounds.
func newMsgIndex(hint int64) *msgIndex {
	hint = min(max(hint, 0), 1<<20)
	size := uint64(1024)
	for size < uint64(hint)*2 {
		size <<= 1
	}
	return &msgIndex{ids: make([]uint64, size), nums: make([]uint32, size), mask: size - 1}
}

func (x *msgIndex) slot(id uint64) uint64 {
	return ((id>>6)*0x9E3779B97F4A7C15<<6 | id&63) & x.mask
}

// lookup returns m's number, or adds m and reports false.
func (x *msgIndex) lookup(m *Message) (uint64, bool) {
	if m.ID == 0 || len(x.msgs) >= 1<<32-1 {
		return x.lookupOther(m)
	}
	i := x.slot(m.ID)
	for ; x.ids[i] != 0; i = (i + 1) & x.mask {
		if x.ids[i] == m.ID {
			n := uint64(x.nums[i])
			if x.msgs[n] == m {
				return n, true
			}
			return x.lookupOther(m)
		}
	}
	n := uint64(len(x.msgs))
	x.ids[i], x.nums[i] = m.ID, uint32(n)
	x.msgs = append(x.msgs, m)
	if uint64(len(x.msgs))*2 > x.mask {
		x.grow()
	}
	return n, false
}

func (x *msgIndex) lookupOther(m *Message) (uint64, bool) {
	if x.other == nil {
		x.other = map[*Message]uint64{}
	}
	if n, ok := x.other[m]; ok {
		return n, true
	}
	n := uint64(len(x.msgs))
	x.other[m] = n
	x.msgs = append(x.msgs, m)
	return n, false
}

// reserve makes room for n more messages, so that adding them does not
// grow the table on the way.
func (x *msgIndex) reserve(n int) {
	for uint64(len(x.msgs)+n)*2 > x.mask {
		x.grow()
	}
}

func (x *msgIndex) grow() {
	ids, nums := x.ids, x.nums
	size := uint64(len(ids)) * 2
	x.ids, x.nums, x.mask = make([]uint64, size), make([]uint32, size), size-1
	for j, id := range ids {
		if id == 0 {
			continue
		}
		i := x.slot(id)
		for x.ids[i] != 0 {
			i = (i + 1) & x.mask
		}
		x.ids[i], x.nums[i] = id, nums[j]
	}
}
