package amqp

import "encoding/binary"

// Command is a complete AMQP command: a method and, for a method with
// content, its properties and body.
type Command struct {
	Channel uint16
	Method  Method
	// Props and Body are set for methods with content (Props nil
	// otherwise). Body is the message body, owned by the Command.
	Props *Properties
	Body  []byte
}

// Size limits for message bodies, from RabbitMQ.
const (
	// DefaultMaxMessageSize is RabbitMQ's default max_message_size: 128 MiB.
	DefaultMaxMessageSize = 128 << 20
	// HardMaxMessageSize is RabbitMQ's ceiling for max_message_size, 512
	// MiB; a content header announcing more is a frame error.
	HardMaxMessageSize = 512 << 20
)

// bodyPrealloc bounds the body buffer allocated when a content header
// arrives: a header is a claim, and only body frames that really arrive
// make the buffer grow past this.
const bodyPrealloc = 1 << 20

// AssemblerConfig configures an Assembler.
type AssemblerConfig struct {
	// MaxMessageSize is the largest message body accepted, in bytes. Zero
	// means DefaultMaxMessageSize; values above HardMaxMessageSize are
	// lowered to it.
	MaxMessageSize uint64
}

// Assembler turns frames into commands, per channel, as RabbitMQ's
// rabbit_command_assembler does: a method without content is a command at
// once; a method with content waits for a content header frame and then
// body frames totalling the size the header announced. It checks the order
// and the sizes and holds no other connection state.
type Assembler struct {
	maxMessageSize uint64
	// pending holds the channels in the middle of a command with content.
	// A channel waiting for a method has no entry, so it stays as small
	// as the number of messages in flight.
	pending pendingSet
	// spare is a finished partial kept for the next command with
	// content, and dec the decoder every method is read with: neither is
	// allocated again per publish.
	spare *partial
	dec   decoder
	// recent are the exchange names and routing keys of the last
	// publishes, which the next ones most likely repeat (wire.go).
	recent recentStrings
	// props hands out the content headers' properties (slab), and
	// methods the methods that carry content, the same way.
	props   slab[Properties]
	methods methodSlabs
}

// noProperties is the properties of every content header that sets none:
// shared, and never written.
var noProperties Properties

// pendingSet is the channels in the middle of a command with content.
// The first lives in a slot of its own and the others in a map, so that a
// connection publishing on one channel at a time never hashes; a channel
// is in one or the other, never both.
type pendingSet struct {
	ch   uint16
	p    *partial // nil: the slot is free
	more map[uint16]*partial
}

func (s *pendingSet) get(ch uint16) *partial {
	if s.p != nil && s.ch == ch {
		return s.p
	}
	if len(s.more) == 0 {
		return nil
	}
	return s.more[ch]
}

// put adds ch, which get has just found missing.
func (s *pendingSet) put(ch uint16, p *partial) {
	if s.p == nil {
		s.ch, s.p = ch, p
		return
	}
	if s.more == nil {
		s.more = map[uint16]*partial{}
	}
	s.more[ch] = p
}

// len is how many channels are in the middle of a command.
func (s *pendingSet) len() int {
	n := len(s.more)
	if s.p != nil {
		n++
	}
	return n
}

func (s *pendingSet) del(ch uint16) {
	if s.p != nil && s.ch == ch {
		s.p = nil
		return
	}
	delete(s.more, ch)
}

// slab hands out values of T from arrays: a publish then costs a share
// of one allocation for its properties (some 300 bytes) and for its
// method (some 40) instead of one each. An element is handed out once
// and never reused, so a command's parts stay its own for as long as it
// is held; an array is freed when none of its commands is held any longer
// (the connection reads them while it applies the command, and copies).
type slab[T any] struct{ free []T }

// next hands out an element, making an array of n when the last is used.
func (s *slab[T]) next(n int) *T {
	if len(s.free) == 0 {
		s.free = make([]T, n)
	}
	v := &s.free[0]
	s.free = s.free[1:]
	return v
}

// propsSlabLen is how many Properties a slab's array holds.
const propsSlabLen = 64

// methodSlabLen is how many methods with content an array of
// methodSlabs holds: a basic.publish is some 40 bytes.
const methodSlabLen = 64

// partial is a command with content being assembled.
type partial struct {
	method    Method
	props     *Properties // nil until the content header has arrived
	body      []byte
	remaining uint64
	// discard is set after an over-size content header: the body frames
	// that follow are counted and dropped, so that the channel error does
	// not turn into a connection error.
	discard bool
}

// NewAssembler returns an assembler for one connection.
func NewAssembler(cfg AssemblerConfig) *Assembler {
	limit := cfg.MaxMessageSize
	if limit == 0 {
		limit = DefaultMaxMessageSize
	}
	return &Assembler{maxMessageSize: min(limit, HardMaxMessageSize)}
}

// Reset forgets any half-assembled command on channel. The connection layer
// calls it when a channel closes.
func (a *Assembler) Reset(channel uint16) { a.pending.del(channel) }

// Add takes the next frame of the connection and returns a Command when the
// frame completes one. Heartbeats on channel 0 are accepted and yield
// nothing; the connection layer notes any frame's arrival for its
// heartbeat timeout itself. On channel 0 only methods are expected, and
// each is a command of its own.
//
// Errors are *Error, each with Channel set. All are connection errors but
// one: a content header announcing a body over MaxMessageSize is a channel
// error, 406 "message size N is larger than configured max size M", after
// which the body frames of that message are dropped.
func (a *Assembler) Add(f Frame) (Command, bool, error) {
	if err := analyze(f); err != nil {
		return Command{}, false, err
	}
	if f.Type == FrameHeartbeat {
		if f.Channel != 0 {
			return Command{}, false, UnexpectedFrameError(f)
		}
		return Command{}, false, nil
	}
	if f.Channel == 0 {
		if f.Type != FrameMethod {
			return Command{}, false, UnexpectedFrameError(f)
		}
		return a.method(f)
	}
	p := a.pending.get(f.Channel)
	switch {
	case p == nil:
		if f.Type != FrameMethod {
			return Command{}, false, channelError(f.Channel, newError(UnexpectedFrame, 0, 0,
				"expected method frame, got non method frame instead"))
		}
		return a.method(f)
	case p.discard && f.Type == FrameMethod:
		// The client gave up on the over-size message; carry on.
		a.pending.del(f.Channel)
		return a.method(f)
	case p.props == nil:
		return a.header(f, p)
	default:
		return a.body(f, p)
	}
}

// analyze is RabbitMQ's analyze_frame: frames whose type is unknown, or
// whose payload is too short for their type, are "unknown_frame".
func analyze(f Frame) *Error {
	ok := false
	switch f.Type {
	case FrameMethod:
		ok = len(f.Payload) >= 4
	case FrameHeader:
		ok = len(f.Payload) >= contentHeaderSize-2
	case FrameBody:
		ok = true
	case FrameHeartbeat:
		ok = len(f.Payload) == 0
	}
	if ok {
		return nil
	}
	return frameError(f.Type, f.Channel, f.Payload, "unknown_frame")
}

func (a *Assembler) method(f Frame) (Command, bool, error) {
	a.dec.recent, a.dec.slabs = &a.recent, &a.methods
	m, err := decodeMethod(&a.dec, f.Payload)
	a.dec = decoder{} // holds nothing of the payload once done
	if err != nil {
		return Command{}, false, channelError(f.Channel, err.(*Error))
	}
	if f.Channel == 0 || !m.HasContent() {
		return Command{Channel: f.Channel, Method: m}, true, nil
	}
	p := a.spare
	if p == nil {
		p = &partial{}
	}
	a.spare = nil
	*p = partial{method: m}
	a.pending.put(f.Channel, p)
	return Command{}, false, nil
}

// done ends channel's partial command and keeps the partial for the next.
func (a *Assembler) done(channel uint16, p *partial) {
	a.pending.del(channel)
	*p = partial{}
	a.spare = p
}

func (a *Assembler) header(f Frame, p *partial) (Command, bool, error) {
	m := p.method
	classID := m.ClassID()
	if f.Type != FrameHeader || binary.BigEndian.Uint16(f.Payload[2:]) != 0 {
		return a.fail(f, newError(UnexpectedFrame, classID, m.MethodID(),
			"expected content header for class %d, got non content header frame instead", classID))
	}
	headerClass := binary.BigEndian.Uint16(f.Payload)
	if headerClass != classID {
		return a.fail(f, newError(UnexpectedFrame, classID, m.MethodID(),
			"expected content header for class %d, got one for class %d instead", classID, headerClass))
	}
	size := binary.BigEndian.Uint64(f.Payload[4:])
	if size > HardMaxMessageSize {
		return a.fail(f, newError(FrameError, classID, m.MethodID(),
			"content body size %d exceeds maximum allowed size %d", size, HardMaxMessageSize))
	}
	if size > a.maxMessageSize {
		// RabbitMQ's channel checks this once the body is in; checking it
		// here spares buffering a body that will be refused.
		p.props, p.remaining, p.discard = &Properties{}, size, true
		return Command{}, false, channelError(f.Channel, newError(PreconditionFailed, classID, m.MethodID(),
			"message size %d is larger than configured max size %d", size, a.maxMessageSize))
	}
	props, err := decodeProperties(f.Payload[12:])
	if err != nil {
		e := err.(*Error)
		e.ClassID, e.MethodID = classID, m.MethodID()
		return a.fail(f, e)
	}
	pp := &noProperties
	if props.Flags != 0 {
		pp = a.props.next(propsSlabLen)
		*pp = props
	}
	p.props, p.remaining = pp, size
	if size == 0 {
		return a.complete(f.Channel, p), true, nil
	}
	p.body = make([]byte, 0, min(size, bodyPrealloc))
	return Command{}, false, nil
}

func (a *Assembler) body(f Frame, p *partial) (Command, bool, error) {
	m := p.method
	if f.Type != FrameBody {
		return a.fail(f, newError(UnexpectedFrame, m.ClassID(), m.MethodID(),
			"expected content body, got non content body frame instead"))
	}
	n := uint64(len(f.Payload))
	if n > p.remaining {
		return a.fail(f, newError(FrameError, m.ClassID(), m.MethodID(),
			"content body frame exceeds remaining content size"))
	}
	p.remaining -= n
	if p.discard {
		if p.remaining == 0 {
			a.pending.del(f.Channel)
		}
		return Command{}, false, nil
	}
	p.body = append(p.body, f.Payload...)
	if p.remaining > 0 {
		return Command{}, false, nil
	}
	return a.complete(f.Channel, p), true, nil
}

func (a *Assembler) complete(channel uint16, p *partial) Command {
	cmd := Command{Channel: channel, Method: p.method, Props: p.props, Body: p.body}
	a.done(channel, p)
	return cmd
}

// fail ends the channel's partial command and returns err for f's channel.
func (a *Assembler) fail(f Frame, err *Error) (Command, bool, error) {
	a.pending.del(f.Channel)
	return Command{}, false, channelError(f.Channel, err)
}

func channelError(channel uint16, e *Error) *Error {
	e.Channel = channel
	return e
}
