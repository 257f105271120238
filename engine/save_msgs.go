package engine

import (
	"slices"
	"sort"
)

// Messages, their shared parts, and the lists that hold them, as Save
// writes them.
//
// A message, a death history (msgExtra) and a Via are each written where
// the snapshot first names them and referred to by number after: 0 for
// nil, 1 for "defined here", n+2 for the n-th already defined. Entries
// and deliveries are written as deltas from the one before them in their
// list (arrival numbers, times, tags), which a long queue keeps small.

func (s *saver) msg(m *Message) {
	if m == nil {
		s.uvarint(0)
		return
	}
	if i, seen := s.msgs.lookup(m); seen {
		s.uvarint(i + 2)
		return
	}
	s.uvarint(1)
	s.varint(int64(m.ID - s.lastID))
	s.lastID = m.ID
	s.str(m.Exchange)
	s.str(m.RoutingKey)
	s.props(m.Props)
	s.body(m.Body)
	s.extra(m.extra)
}

// Properties present, one bit each. Snapshots written before presence
// was kept set a bit for each non-zero property; read as presence, that is
// what the engine then took them to be. propClusterID came later.
const (
	propContentType = 1 << iota
	propContentEncoding
	propHeaders
	propDeliveryMode
	propPriority
	propCorrelationID
	propReplyTo
	propExpiration
	propMessageID
	propTimestamp
	propType
	propUserID
	propAppID
	propClusterID
	propsEnd // past the last
)

// propBits pairs each snapshot bit with its property flag, in the order
// the snapshot writes the string properties.
var propStrBits = [...]struct {
	bit  uint64
	flag PropertyFlags
}{{propContentType, FlagContentType}, {propContentEncoding, FlagContentEncoding}, {propCorrelationID, FlagCorrelationID},
	{propReplyTo, FlagReplyTo}, {propExpiration, FlagExpiration}, {propMessageID, FlagMessageID}, {propType, FlagType},
	{propUserID, FlagUserID}, {propAppID, FlagAppID}, {propClusterID, FlagClusterID}}

// propOtherBits are the rest, written after the strings.
var propOtherBits = [...]struct {
	bit  uint64
	flag PropertyFlags
}{{propHeaders, FlagHeaders}, {propDeliveryMode, FlagDeliveryMode}, {propPriority, FlagPriority}, {propTimestamp, FlagTimestamp}}

// propStrs returns p's string properties in propStrBits' order.
func propStrs(p *Properties) [len(propStrBits)]*string {
	return [...]*string{&p.ContentType, &p.ContentEncoding, &p.CorrelationID, &p.ReplyTo, &p.Expiration, &p.MessageID,
		&p.Type, &p.UserID, &p.AppID, &p.ClusterID}
}

// propsKey is a Properties without its headers: what a snapshot interns
// properties by. Most messages carry the same few (delivery mode 2, a
// content type), and messages never change after routing, so a loaded
// broker may share one Properties among them all.
type propsKey struct {
	contentType, contentEncoding, correlationID, replyTo, expiration, messageID, typ, userID, appID, clusterID string
	deliveryMode, priority                                                                                     uint8
	flags                                                                                                      PropertyFlags
	timestamp                                                                                                  Timestamp
}

// props writes p: 0 for nil, n+2 for the n-th interned one, or 1, the
// bits of the properties present, and their values; those without
// headers are interned by value.
func (s *saver) props(p *Properties) {
	if p == nil {
		s.uvarint(0)
		return
	}
	if p == s.lastProps {
		s.uvarint(s.lastPropsIx + 2)
		return
	}
	f := p.Flags()
	if f&FlagHeaders == 0 && s.propsIx != nil {
		k := propsKey{p.ContentType, p.ContentEncoding, p.CorrelationID, p.ReplyTo, p.Expiration, p.MessageID, p.Type, p.UserID, p.AppID,
			p.ClusterID, p.DeliveryMode, p.Priority, f, p.Timestamp}
		i, ok := s.propsIx[k]
		if !ok {
			i = uint64(len(s.propsIx))
			s.propsIx[k] = i
		}
		// Publishers repeat their properties: the next message often
		// has the same pointer.
		s.lastProps, s.lastPropsIx = p, i
		if ok {
			s.uvarint(i + 2)
			return
		}
	}
	s.uvarint(1)
	var bits uint64
	for _, b := range propStrBits {
		if f&b.flag != 0 {
			bits |= b.bit
		}
	}
	for _, b := range propOtherBits {
		if f&b.flag != 0 {
			bits |= b.bit
		}
	}
	s.uvarint(bits)
	for i, v := range propStrs(p) {
		if f&propStrBits[i].flag != 0 {
			s.str(*v)
		}
	}
	if f&FlagHeaders != 0 {
		s.table(p.Headers, 0) // nil when present and empty, as it was
	}
	if f&FlagDeliveryMode != 0 {
		s.byte1(p.DeliveryMode)
	}
	if f&FlagPriority != 0 {
		s.byte1(p.Priority)
	}
	if f&FlagTimestamp != 0 {
		s.varint(int64(p.Timestamp))
	}
}

func (s *saver) extra(x *msgExtra) {
	if x == nil {
		s.uvarint(0)
		return
	}
	if i, ok := s.extras[x]; ok {
		s.uvarint(i + 2)
		return
	}
	s.extras[x] = uint64(len(s.extras))
	s.uvarint(1)
	s.strs(x.keys)
	s.uvarint(uint64(len(x.deaths)))
	for _, d := range x.deaths {
		s.str(d.Queue)
		s.str(d.Reason)
		s.varint(d.Count)
		s.varint(int64(d.Time))
		s.str(d.Exchange)
		s.strs(d.RoutingKeys)
		s.str(d.OriginalExpiration)
	}
	s.str(x.firstQueue)
	s.str(x.firstReason)
	s.str(x.firstExchange)
	s.str(x.lastExchange)
}

func (s *saver) strs(list []string) {
	s.uvarint(uint64(len(list)))
	for _, v := range list {
		s.str(v)
	}
}

func (s *saver) via(v *Via) {
	if v == nil {
		s.uvarint(0)
		return
	}
	if i, ok := s.vias[v]; ok {
		s.uvarint(i + 2)
		return
	}
	s.vias[v] = uint64(len(s.vias))
	s.uvarint(1)
	s.str(v.Exchange)
	s.str(v.Type)
	s.str(v.Key)
	s.table(v.Args, 0)
	s.boolean(v.Alternate)
}

// Entry flags.
const (
	entryExpires = 1 << iota
	entryRedelivered
	entryDeliveries
	entryPriority
)

// entryCtx is what the previous entry of a list was, for deltas.
type entryCtx struct {
	seq uint64
	at  Time
}

func (s *saver) entry(e *entry, c *entryCtx) {
	flags := entryFlags(e)
	s.byte1(flags)
	s.msg(e.msg)
	s.via(e.via)
	s.varint(int64(e.seq - c.seq))
	s.varint(int64(e.enqueuedAt - c.at))
	c.seq, c.at = e.seq, e.enqueuedAt
	s.entryOptional(e, flags)
}

// entryFlags says which of an entry's optional fields it has.
func entryFlags(e *entry) byte {
	var flags byte
	if e.expiresAt != Never {
		flags |= entryExpires
	}
	if e.redelivered {
		flags |= entryRedelivered
	}
	if e.deliveries != 0 {
		flags |= entryDeliveries
	}
	if e.priority != 0 {
		flags |= entryPriority
	}
	return flags
}

// entryOptional writes the optional fields flags names, after the
// entry's enqueue time; the snapshot and the durable log (durable.go)
// write them alike, and loader.entryOptional reads them.
func (s *saver) entryOptional(e *entry, flags byte) {
	if flags&entryExpires != 0 {
		s.varint(int64(e.expiresAt - e.enqueuedAt))
	}
	if flags&entryDeliveries != 0 {
		s.varint(int64(e.deliveries))
	}
	if flags&entryPriority != 0 {
		s.byte1(e.priority)
	}
}

// store writes a queue's ready messages level by level: the returned
// copies sorted by key (a sorted array is a heap, and the order does not
// depend on the heap's layout), then the fresh ones in order.
func (s *saver) store(st *store) {
	s.uvarint(uint64(len(st.levels)))
	s.uvarint(st.returnSeq)
	for l := range st.levels {
		lv := &st.levels[l]
		var c entryCtx
		rs := make([]*returned, lv.returns.len())
		for i := range rs {
			rs[i] = lv.returns.at(i)
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].key < rs[j].key })
		s.uvarint(uint64(len(rs)))
		for _, r := range rs {
			s.uvarint(r.key)
			s.entry(&r.e, &c)
		}
		s.uvarint(uint64(lv.fresh.len()))
		for i := 0; i < lv.fresh.len(); i++ {
			s.entry(lv.fresh.at(i), &c)
		}
	}
}

// storeCopy is a store's entries as store writes them, taken out of it
// (copyStore) so that SaveShared's finish can write them after the broker
// has moved on.
type storeCopy struct {
	returnSeq uint64
	levels    []levelCopy
}

// levelCopy is one priority level of a storeCopy: the returned copies
// sorted by key, copied (a heap moves its entries about), then the fresh
// ones in order, the level's own chunks, shared (chunked.share).
type levelCopy struct {
	returns []returned
	fresh   [][]entry
}

// freshLen is how many fresh entries lc holds.
func (lc *levelCopy) freshLen() int {
	n := 0
	for _, run := range lc.fresh {
		n += len(run)
	}
	return n
}

func copyStore(st *store) storeCopy {
	c := storeCopy{returnSeq: st.returnSeq, levels: make([]levelCopy, len(st.levels))}
	for l := range st.levels {
		lv, lc := &st.levels[l], &c.levels[l]
		lc.returns = make([]returned, lv.returns.len())
		for i := range lc.returns {
			lc.returns[i] = *lv.returns.at(i)
		}
		sort.Slice(lc.returns, func(i, j int) bool { return lc.returns[i].key < lc.returns[j].key })
		lc.fresh = lv.fresh.share()
	}
	return c
}

// storeCopy writes c as store writes the store it was copied from. Save
// writes its stores directly rather than through copies: copying every
// entry first made it 40% slower (BenchmarkSaveLoad, 118 against 167 ns
// a message).
func (s *saver) storeCopy(c *storeCopy) {
	s.uvarint(uint64(len(c.levels)))
	s.uvarint(c.returnSeq)
	for l := range c.levels {
		lv := &c.levels[l]
		var ctx entryCtx
		s.uvarint(uint64(len(lv.returns)))
		for i := range lv.returns {
			s.uvarint(lv.returns[i].key)
			s.entry(&lv.returns[i].e, &ctx)
		}
		s.uvarint(uint64(lv.freshLen()))
		for _, run := range lv.fresh {
			for i := range run {
				s.entry(&run[i], &ctx)
			}
		}
	}
}

// readySection writes the queues' ready messages, in the order of their
// records (snapshot version 3 on). For SaveShared it writes the copies,
// first making room for as many messages as they hold, which Save made
// at the start: in finish, not while the broker is held.
func (s *saver) readySection() {
	for _, q := range s.readyQs {
		s.store(&q.ready)
	}
	n, shared := 0, 0
	for i := range s.ready {
		for _, lv := range s.ready[i].levels {
			n += len(lv.returns) + lv.freshLen()
			for j := range lv.returns {
				shared += sharedBody(lv.returns[j].e.msg)
			}
			for _, run := range lv.fresh {
				for j := range run {
					shared += sharedBody(run[j].msg)
				}
			}
		}
	}
	s.buf = slices.Grow(s.buf, 32*n)
	s.pieces = slices.Grow(s.pieces, 2*shared+1)
	s.msgs.reserve(n)
	for i := range s.ready {
		s.storeCopy(&s.ready[i])
	}
	s.readyQs, s.ready = nil, nil
}

func (s *saver) deliveries(l *unackedList) {
	s.uvarint(uint64(l.len()))
	var c entryCtx
	var tag uint64
	for i := 0; i < l.len(); i++ {
		d := l.at(i)
		s.varint(int64(d.tag - tag))
		tag = d.tag
		s.delivery(d, &c)
	}
}

// delivery writes d but its tag (deliveries writes tags as deltas).
func (s *saver) delivery(d *delivery, c *entryCtx) {
	if c == nil {
		s.uvarint(d.tag)
		c = &entryCtx{}
	}
	s.uvarint(uint64(s.qIx[d.q]))
	s.entry(&d.e, c)
	s.consumerRef(d.c)
	s.varint(int64(d.atMs))
	s.boolean(d.done)
	s.str(d.ctag)
	s.boolean(d.noAck)
}
