package engine

import "sort"

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
	s.bytes(m.Body)
	s.extra(m.extra)
}

// Properties present, one bit each.
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
	propsEnd // past the last
)

// propsKey is a Properties without its headers: what a snapshot interns
// properties by. Most messages carry the same few (delivery mode 2, a
// content type), and messages never change after routing, so a loaded
// broker may share one Properties among them all.
type propsKey struct {
	contentType, contentEncoding, correlationID, replyTo, expiration, messageID, typ, userID, appID string
	deliveryMode, priority                                                                          uint8
	timestamp                                                                                       Timestamp
}

// props writes p: 0 for nil, n+2 for the n-th interned one, or 1 and the
// properties; those without headers are interned by value.
func (s *saver) props(p *Properties) {
	if p == nil {
		s.uvarint(0)
		return
	}
	if p == s.lastProps {
		s.uvarint(s.lastPropsIx + 2)
		return
	}
	if p.Headers == nil {
		k := propsKey{p.ContentType, p.ContentEncoding, p.CorrelationID, p.ReplyTo, p.Expiration, p.MessageID, p.Type, p.UserID, p.AppID,
			p.DeliveryMode, p.Priority, p.Timestamp}
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
	strs := []struct {
		bit uint64
		v   string
	}{{propContentType, p.ContentType}, {propContentEncoding, p.ContentEncoding}, {propCorrelationID, p.CorrelationID},
		{propReplyTo, p.ReplyTo}, {propExpiration, p.Expiration}, {propMessageID, p.MessageID}, {propType, p.Type},
		{propUserID, p.UserID}, {propAppID, p.AppID}}
	for _, f := range strs {
		if f.v != "" {
			bits |= f.bit
		}
	}
	if p.Headers != nil {
		bits |= propHeaders
	}
	if p.DeliveryMode != 0 {
		bits |= propDeliveryMode
	}
	if p.Priority != 0 {
		bits |= propPriority
	}
	if p.Timestamp != 0 {
		bits |= propTimestamp
	}
	s.uvarint(bits)
	for _, f := range strs {
		if f.v != "" {
			s.str(f.v)
		}
	}
	if p.Headers != nil {
		s.table(p.Headers)
	}
	if p.DeliveryMode != 0 {
		s.byte1(p.DeliveryMode)
	}
	if p.Priority != 0 {
		s.byte1(p.Priority)
	}
	if p.Timestamp != 0 {
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
	s.table(v.Args)
	s.bool(v.Alternate)
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
	s.byte1(flags)
	s.msg(e.msg)
	s.via(e.via)
	s.varint(int64(e.seq - c.seq))
	s.varint(int64(e.enqueuedAt - c.at))
	c.seq, c.at = e.seq, e.enqueuedAt
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
	s.bool(d.done)
	s.str(d.ctag)
	s.bool(d.noAck)
}
