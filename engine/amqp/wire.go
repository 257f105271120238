package amqp

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// decoder reads AMQP's primitive types from an already-read payload, in the
// style of http2's frame parsers. It is sticky: after the first failure
// every read returns a zero value, so generated decoders read straight
// through and check once at the end instead of after every field.
//
// Nothing a decoder returns aliases its input: strings are copies and byte
// slices are copied, so a decoded method outlives the frame reader's
// buffer.
type decoder struct {
	b   []byte
	off int
	// failed is set by the first read past the end (or any other failure).
	failed bool
	// reason explains a failure inside a field table; it is empty when the
	// payload was simply too short, which RabbitMQ reports as "cannot
	// decode <<...>>".
	reason string
	// badUTF8 records a shortstr that is not UTF-8 in a method that
	// RabbitMQ checks (every method without content).
	badUTF8 bool
	// recent, when set, gives shortstr the strings it returned lately.
	recent *recentStrings
	// slabs, when set, hands out the methods that carry content; nil
	// allocates each (methodSlabs, generated).
	slabs *methodSlabs
}

// recentStrings keeps the last few short strings a connection's methods
// carried. A publisher names the same exchange and routing key publish
// after publish: handing back the string it already has saves an
// allocation a message (and the GC's work for it) for the price of a few
// comparisons, which allocate nothing.
type recentStrings struct {
	s    [4]string
	next int
}

func (r *recentStrings) intern(p []byte) string {
	for _, s := range r.s {
		if s == string(p) {
			return s
		}
	}
	s := string(p)
	r.s[r.next] = s
	r.next = (r.next + 1) % len(r.s)
	return s
}

func (d *decoder) fail(reason string) {
	if !d.failed {
		d.failed, d.reason = true, reason
	}
}

// take returns the next n bytes, or nil (and fails) when fewer remain. The
// length is checked against what remains before anything is allocated.
func (d *decoder) take(n uint64) []byte {
	if d.failed || n > uint64(len(d.b)-d.off) {
		d.fail("")
		return nil
	}
	p := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return p
}

func (d *decoder) remaining() int { return len(d.b) - d.off }

func (d *decoder) uint8() uint8 {
	p := d.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

func (d *decoder) uint16() uint16 {
	p := d.take(2)
	if p == nil {
		return 0
	}
	return binary.BigEndian.Uint16(p)
}

func (d *decoder) uint32() uint32 {
	p := d.take(4)
	if p == nil {
		return 0
	}
	return binary.BigEndian.Uint32(p)
}

func (d *decoder) uint64() uint64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return binary.BigEndian.Uint64(p)
}

func (d *decoder) timestamp() Timestamp { return Timestamp(d.uint64()) }

// shortstr reads a length octet and that many bytes.
func (d *decoder) shortstr() string {
	p := d.take(uint64(d.uint8()))
	if d.recent != nil {
		return d.recent.intern(p)
	}
	return string(p)
}

// shortstrUTF8 is shortstr plus RabbitMQ's sanity check
// (rabbit_binary_parser:assert_utf8), which it applies to every shortstr
// argument of methods without content.
func (d *decoder) shortstrUTF8() string {
	p := d.take(uint64(d.uint8()))
	if !utf8.Valid(p) {
		d.badUTF8 = true
	}
	return string(p)
}

// longstr reads a 32-bit length and that many bytes.
func (d *decoder) longstr() string {
	return string(d.take(uint64(d.uint32())))
}

// table reads a field table: a 32-bit length and the encoded fields.
func (d *decoder) table() Table {
	p := d.take(uint64(d.uint32()))
	if d.failed || len(p) == 0 {
		return nil
	}
	t, reason := decodeFields(p, 1)
	if reason != "" {
		d.fail(reason)
	}
	return t
}

// The append helpers encode primitives by appending, so that an encoder
// writes straight into the caller's output buffer.

func appendUint16(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
func appendUint32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
func appendUint64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }

func appendTimestamp(b []byte, v Timestamp) []byte { return appendUint64(b, uint64(v)) }

// appendShortstr appends a length octet and s; field names the argument in
// the error when s does not fit in 255 bytes.
func appendShortstr(b []byte, s string, field string) ([]byte, error) {
	if len(s) > 255 {
		return b, fmt.Errorf("amqp: %s is %d bytes, longer than a shortstr's 255", field, len(s))
	}
	b = append(b, byte(len(s)))
	return append(b, s...), nil
}

// appendLongstr appends a 32-bit length and s.
func appendLongstr(b []byte, s string, field string) ([]byte, error) {
	if uint64(len(s)) > maxUint32 {
		return b, fmt.Errorf("amqp: %s is %d bytes, longer than a longstr's 2^32-1", field, len(s))
	}
	b = appendUint32(b, uint32(len(s)))
	return append(b, s...), nil
}

const maxUint32 = 1<<32 - 1
