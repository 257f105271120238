package engine

// The direct reply-to section (replyto.go), after the users: the open
// channels with a reply consumer, in the snapshot's channel order, each
// with its consumer's tag and token. Snapshots of version 1 have no such
// section and no reply consumer: their drivers kept them.

func (s *saver) replyConsumers() {
	n := 0
	for _, ch := range s.chans {
		if ch.reply != nil {
			n++
		}
	}
	s.uvarint(uint64(n))
	for _, ch := range s.chans {
		if r := ch.reply; r != nil {
			s.uvarint(uint64(s.chanIx[ch]))
			s.str(r.tag)
			s.str(r.token)
		}
	}
}

func (l *loader) replyConsumers() {
	if l.version < 2 {
		return
	}
	n := l.count("items")
	for range n {
		ch := l.chanAt()
		tag, token := l.str(), l.str()
		if l.err != nil || ch.closed || l.b.chans[ch.id] != ch || ch.reply != nil || token == "" {
			l.fail("inconsistent")
			return
		}
		ch.reply = &replyConsumer{tag: tag, token: token}
	}
}
