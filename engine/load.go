package engine

import "fmt"

// Load builds a broker from bytes Save wrote (see save.go). Bytes that are
// not a snapshot of a version it reads are an error, never a panic: a snapshot
// comes from disk or the network, and may be torn or damaged.
func Load(data []byte) (b *Broker, err error) {
	defer func() {
		// The decoder checks what it reads; this catches whatever a
		// damaged snapshot still gets past it, so that Load's contract
		// holds.
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("%w (%v)", errCorrupt, p)
		}
	}()
	l := &loader{decoder: decoder{src: data, form: formSnapshot}}
	if len(data) < len(snapshotMagic) || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return nil, fmt.Errorf("engine: not a broker snapshot")
	}
	l.off = len(snapshotMagic)
	if l.version = l.uvarint(); l.version < 1 || l.version > snapshotVersion {
		if l.err != nil {
			return nil, corrupt(l.err, len(data))
		}
		return nil, fmt.Errorf("engine: snapshot version %d, this engine reads 1 to %d", l.version, snapshotVersion)
	}
	b = l.loadBroker()
	if l.err == nil && l.off != len(data) {
		l.fail("trailing bytes")
	}
	if l.err != nil {
		return nil, corrupt(l.err, len(data))
	}
	return b, nil
}

// loader reads a snapshot into a new broker.
type loader struct {
	decoder
	b *Broker
	// version is the snapshot's; an older one lacks the sections a
	// later version added (save.go).
	version uint64

	vhosts    []*vhost
	exchanges []*exchange
	queues    []*queue
	conns     []*connection
	chans     []*channel
	consumers []*consumer

	msgs      []*Message
	extras    []*msgExtra
	propsSeen []*Properties // those without headers, shared (see propsKey)
	vias      []*Via
	lastID    uint64
	slabs     slabs
	// walks are the policy walks vhosts name by their bulk end's place,
	// linked once the bulk ends are read.
	walks map[*vhost]int
}

// Index readers: an index out of range is a corrupt snapshot.

func (l *loader) vhostAt() *vhost {
	if i := l.int(len(l.vhosts) - 1); l.err == nil {
		return l.vhosts[i]
	}
	return nil
}

func (l *loader) exchangeAt() *exchange {
	if i := l.int(len(l.exchanges) - 1); l.err == nil {
		return l.exchanges[i]
	}
	return nil
}

func (l *loader) queueAt() *queue {
	if i := l.int(len(l.queues) - 1); l.err == nil {
		return l.queues[i]
	}
	return nil
}

func (l *loader) connAt() *connection {
	if i := l.int(len(l.conns) - 1); l.err == nil {
		return l.conns[i]
	}
	return nil
}

func (l *loader) chanAt() *channel {
	if i := l.int(len(l.chans) - 1); l.err == nil {
		return l.chans[i]
	}
	return nil
}

func (l *loader) consumerAt() *consumer {
	if i := l.int(len(l.consumers) - 1); l.err == nil {
		return l.consumers[i]
	}
	return nil
}

// optional reads a reference written as 0 for nil or index+1.
func optional[T any](l *loader, list []*T) *T {
	i := l.int(len(list))
	if i == 0 || l.err != nil {
		return nil
	}
	return list[i-1]
}

// slabs hands out messages, properties and bodies from larger
// allocations: a snapshot of a million messages loads in thousands of
// allocations, not millions.
type slabs struct {
	msgs  []Message
	props []Properties
	body  []byte
}

const (
	slabMsgs    = 256
	slabBody    = 64 << 10
	slabMaxBody = 4 << 10 // larger bodies get their own allocation
)

func (s *slabs) message() *Message {
	if len(s.msgs) == 0 {
		s.msgs = make([]Message, slabMsgs)
	}
	m := &s.msgs[0]
	s.msgs = s.msgs[1:]
	return m
}

func (s *slabs) properties() *Properties {
	if len(s.props) == 0 {
		s.props = make([]Properties, slabMsgs)
	}
	p := &s.props[0]
	s.props = s.props[1:]
	return p
}

// bodyCopy copies b into a slab (capped, so that an append to one body
// never runs into the next).
func (s *slabs) bodyCopy(b []byte) []byte {
	if len(b) == 0 {
		return []byte{} // empty, not nil, as saved
	}
	if len(b) > slabMaxBody {
		return append([]byte{}, b...)
	}
	if cap(s.body)-len(s.body) < len(b) {
		s.body = make([]byte, 0, slabBody)
	}
	n := len(s.body)
	s.body = append(s.body, b...)
	return s.body[n : n+len(b) : n+len(b)]
}
