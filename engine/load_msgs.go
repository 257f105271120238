package engine

// Messages, their shared parts, and the lists that hold them, as Load
// reads them (see save_msgs.go). A message several queues share is one
// *Message again after Load.

func (l *loader) msg() *Message {
	r := l.uvarint()
	switch {
	case l.err != nil || r == 0:
		return nil
	case r >= 2:
		if r-2 >= uint64(len(l.msgs)) {
			l.fail("inconsistent")
			return nil
		}
		return l.msgs[r-2]
	case r != 1:
		l.fail("inconsistent")
		return nil
	}
	m := l.slabs.message()
	m.ID = l.lastID + uint64(l.varint())
	l.lastID = m.ID
	m.Exchange = l.str()
	m.RoutingKey = l.str()
	m.Props = l.props()
	if n := l.int(l.left() + 1); n > 0 {
		m.Body = l.slabs.bodyCopy(l.raw(n - 1))
	}
	m.extra = l.extra()
	if l.err != nil {
		return nil
	}
	l.msgs = append(l.msgs, m)
	return m
}

func (l *loader) props() *Properties {
	r := l.uvarint()
	switch {
	case l.err != nil || r == 0:
		return nil
	case r >= 2:
		if r-2 >= uint64(len(l.propsSeen)) {
			l.fail("inconsistent")
			return nil
		}
		return l.propsSeen[r-2]
	case r != 1:
		l.fail("inconsistent")
		return nil
	}
	bits := l.uvarint()
	if bits >= propsEnd {
		l.fail("inconsistent")
		return nil
	}
	p := l.slabs.properties()
	var present PropertyFlags
	for i, v := range propStrs(p) {
		if b := propStrBits[i]; bits&b.bit != 0 {
			*v = l.str()
			present |= b.flag
		}
	}
	for _, b := range propOtherBits {
		if bits&b.bit != 0 {
			present |= b.flag
		}
	}
	if bits&propHeaders != 0 {
		p.Headers = l.table(0) // nil for headers present and empty

	}
	if bits&propDeliveryMode != 0 {
		p.DeliveryMode = l.byte1()
	}
	if bits&propPriority != 0 {
		p.Priority = l.byte1()
	}
	if bits&propTimestamp != 0 {
		p.Timestamp = Timestamp(l.varint())
	}
	p.Present = present
	if present&FlagExpiration != 0 {
		if _, term := parseExpiration(p.Expiration); term != "" {
			l.fail("inconsistent") // BasicPublish lets no other through
		}
	}
	if present&FlagHeaders == 0 { // interned, as Save does
		l.propsSeen = append(l.propsSeen, p)
	}
	return p
}

func (l *loader) extra() *msgExtra {
	r := l.uvarint()
	switch {
	case l.err != nil || r == 0:
		return nil
	case r >= 2:
		if r-2 >= uint64(len(l.extras)) {
			l.fail("inconsistent")
			return nil
		}
		return l.extras[r-2]
	case r != 1:
		l.fail("inconsistent")
		return nil
	}
	x := &msgExtra{keys: l.strs()}
	n := l.count("items")
	for range n {
		if l.err != nil {
			return nil
		}
		x.deaths = append(x.deaths, Death{Queue: l.str(), Reason: l.str(), Count: l.varint(), Time: Timestamp(l.varint()),
			Exchange: l.str(), RoutingKeys: l.strs(), OriginalExpiration: l.str()})
	}
	x.firstQueue, x.firstReason, x.firstExchange, x.lastExchange = l.str(), l.str(), l.str(), l.str()
	if l.err != nil {
		return nil
	}
	l.extras = append(l.extras, x)
	return x
}

func (l *loader) strs() []string {
	n := l.count("items")
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, l.str())
	}
	return out
}

func (l *loader) via() *Via {
	r := l.uvarint()
	switch {
	case l.err != nil || r == 0:
		return nil
	case r >= 2:
		if r-2 >= uint64(len(l.vias)) {
			l.fail("inconsistent")
			return nil
		}
		return l.vias[r-2]
	case r != 1:
		l.fail("inconsistent")
		return nil
	}
	v := &Via{Exchange: l.str(), Type: l.str(), Key: l.str(), Args: l.table(0), Alternate: l.boolean()}
	if l.err != nil {
		return nil
	}
	l.vias = append(l.vias, v)
	return v
}

func (l *loader) entry(c *entryCtx) entry {
	flags := l.byte1()
	var e entry
	e.msg = l.msg()
	e.via = l.via()
	e.seq = c.seq + uint64(l.varint())
	e.enqueuedAt = c.at + Time(l.varint())
	c.seq, c.at = e.seq, e.enqueuedAt
	l.entryOptional(&e, flags)
	if flags >= entryPriority<<1 {
		l.fail("inconsistent")
	}
	return e
}

// entryOptional reads what saver.entryOptional wrote, and the flags'
// redelivered bit; an entry without an expiry has Never.
func (l *loader) entryOptional(e *entry, flags byte) {
	e.expiresAt = Never
	if flags&entryExpires != 0 {
		e.expiresAt = e.enqueuedAt + Time(l.varint())
	}
	e.redelivered = flags&entryRedelivered != 0
	if flags&entryDeliveries != 0 {
		e.deliveries = int32(l.sint())
	}
	if flags&entryPriority != 0 {
		e.priority = l.byte1()
	}
}

// store reads a store (see saver.store), counting its messages and bytes
// as the entries arrive; the totals it adds to are the caller's, already
// read.
func (l *loader) store(vhostTotal, brokerTotal *tally) store {
	n := l.int(256)
	returnSeq := l.uvarint()
	if n == 0 || l.err != nil {
		return store{returnSeq: returnSeq} // a bulk end's, holding nothing
	}
	st := store{levels: make([]level, n), vhostTotal: vhostTotal, brokerTotal: brokerTotal, returnSeq: returnSeq}
	for i := range st.levels {
		lv := &st.levels[i]
		var c entryCtx
		k := l.count("items")
		prev := uint64(0)
		for j := 0; j < k && l.err == nil; j++ {
			key := l.uvarint()
			e := l.entry(&c)
			if e.msg == nil || (j > 0 && key <= prev) {
				l.fail("inconsistent")
				break
			}
			prev = key
			pushSized(&lv.returns.c, returned{key: key, e: e}, k-j)
			st.n++
			st.bytes += int64(len(e.msg.Body))
		}
		k = l.count("items")
		for j := 0; j < k && l.err == nil; j++ {
			e := l.entry(&c)
			if e.msg == nil {
				l.fail("inconsistent")
				break
			}
			pushSized(&lv.fresh.chunked, e, k-j)
			st.n++
			st.bytes += int64(len(e.msg.Body))
		}
	}
	return st
}

func (l *loader) deliveries() unackedList {
	n := l.count("items")
	var out unackedList
	var c entryCtx
	var tag uint64
	for i := 0; i < n && l.err == nil; i++ {
		tag += uint64(l.varint())
		pushSized(&out.chunked, l.delivery(tag, &c), n-i)
	}
	return out
}

func (l *loader) delivery(tag uint64, c *entryCtx) delivery {
	d := delivery{tag: tag, q: l.queueAt()}
	d.e = l.entry(c)
	d.c = optional(l, l.consumers)
	d.atMs = Time(l.varint())
	d.done = l.boolean()
	d.ctag = l.str()
	d.noAck = l.boolean()
	if l.err == nil && d.e.msg == nil && !d.done {
		l.fail("inconsistent")
	}
	return d
}

// pushSized is chunked.push for a list whose length is known: a chunk is
// made at the size it will have (full, or the rest of the list), not
// grown by doubling, which made Load of a million entries allocate twice
// their size. left counts v and those still to come.
func pushSized[T any](c *chunked[T], v T, left int) {
	k := len(c.chunks) - 1
	if k < 0 || len(c.chunks[k]) == chunkLen {
		c.chunks = append(c.chunks, make([]T, 0, min(left, chunkLen)))
		k++
	}
	c.chunks[k] = append(c.chunks[k], v)
	c.n++
}
