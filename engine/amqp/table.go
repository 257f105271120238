package amqp

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Table is an AMQP field table: message headers and the arguments of
// declare, bind and consume. Each value keeps the Go type of its wire type,
// so that a table passes through the broker unchanged (an int32 stays 'I')
// and RabbitMQ's type-naming errors can be reproduced. The mapping is the
// one warren/engine.Table documents, with the codec's own Decimal and
// Timestamp types; the server converts between the two.
//
//	wire  RabbitMQ name   Go type
//	t     bool            bool
//	b     byte            int8
//	B     unsignedbyte    uint8
//	s     short           int16
//	u     unsignedshort   uint16
//	I     signedint       int32
//	i     unsignedint     uint32
//	l     long            int64 (int is encoded as 'l' too)
//	f     float           float32
//	d     double          float64
//	D     decimal         Decimal
//	S     longstr         string
//	x     binary          []byte
//	T     timestamp       Timestamp
//	F     table           Table
//	A     array           []any
//	V     void            nil
//
// 'L' (unsigned 64-bit) is not accepted: RabbitMQ's parser does not know it
// and no client sends it. A key that appears twice keeps its first value,
// as RabbitMQ's table lookups do. An empty table, array or byte array
// decodes as nil.
type Table map[string]any

// Decimal is an AMQP decimal: Value / 10^Scale.
type Decimal struct {
	Scale uint8
	Value int32
}

// Timestamp is an AMQP timestamp: seconds since the Unix epoch. The codec,
// like the engine, keeps clock types out of protocol values.
type Timestamp int64

// MaxTableDepth bounds how deeply tables and arrays may nest, so that a
// hostile or cyclic value cannot exhaust the stack. The engine's own
// codec must take at least as deep (engine/wire.go's maxValueDepth):
// whatever a client sends is recorded and saved.
const MaxTableDepth = 100

// AppendTable appends t's wire form: a 32-bit length and its fields, keys in
// sorted order so that the output never depends on map iteration order.
func AppendTable(b []byte, t Table) ([]byte, error) {
	return appendTable(b, t, 1)
}

// DecodeTable decodes a complete encoded table (length prefix included);
// b must hold exactly one table. Errors are *Error with code 501.
func DecodeTable(b []byte) (Table, error) {
	d := decoder{b: b}
	t := d.table()
	if d.failed || d.remaining() != 0 {
		reason := d.reason
		if reason == "" {
			reason = "bad length"
		}
		return nil, newError(FrameError, 0, 0, "cannot decode field table: %s", reason)
	}
	return t, nil
}

func appendTable(b []byte, t Table, depth int) ([]byte, error) {
	if depth > MaxTableDepth {
		return b, fmt.Errorf("amqp: field table nested deeper than %d", MaxTableDepth)
	}
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var err error
	for _, k := range keys {
		if b, err = appendShortstr(b, k, "field table key"); err != nil {
			return b, err
		}
		if b, err = appendValue(b, t[k], depth); err != nil {
			return b, err
		}
	}
	return patchLength(b, start)
}

// patchLength writes the length of what follows b[start:start+4] into it.
func patchLength(b []byte, start int) ([]byte, error) {
	n := len(b) - start - 4
	if uint64(n) > maxUint32 {
		return b, fmt.Errorf("amqp: field table of %d bytes is too long", n)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(n))
	return b, nil
}

func appendValue(b []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return append(b, 't', 1), nil
		}
		return append(b, 't', 0), nil
	case int8:
		return append(b, 'b', byte(x)), nil
	case uint8:
		return append(b, 'B', x), nil
	case int16:
		return appendUint16(append(b, 's'), uint16(x)), nil
	case uint16:
		return appendUint16(append(b, 'u'), x), nil
	case int32:
		return appendUint32(append(b, 'I'), uint32(x)), nil
	case uint32:
		return appendUint32(append(b, 'i'), x), nil
	case int64:
		return appendUint64(append(b, 'l'), uint64(x)), nil
	case int:
		return appendUint64(append(b, 'l'), uint64(x)), nil
	case float32:
		return appendUint32(append(b, 'f'), math.Float32bits(x)), nil
	case float64:
		return appendUint64(append(b, 'd'), math.Float64bits(x)), nil
	case Decimal:
		return appendUint32(append(b, 'D', x.Scale), uint32(x.Value)), nil
	case string:
		return appendLongstr(append(b, 'S'), x, "field table string")
	case []byte:
		if uint64(len(x)) > maxUint32 {
			return b, fmt.Errorf("amqp: field table byte array of %d bytes is too long", len(x))
		}
		b = appendUint32(append(b, 'x'), uint32(len(x)))
		return append(b, x...), nil
	case Timestamp:
		return appendTimestamp(append(b, 'T'), x), nil
	case Table:
		return appendTable(append(b, 'F'), x, depth+1)
	case []any:
		return appendArray(append(b, 'A'), x, depth+1)
	case nil:
		return append(b, 'V'), nil
	}
	return b, fmt.Errorf("amqp: cannot encode a %T in a field table", v)
}

func appendArray(b []byte, a []any, depth int) ([]byte, error) {
	if depth > MaxTableDepth {
		return b, fmt.Errorf("amqp: field array nested deeper than %d", MaxTableDepth)
	}
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	var err error
	for _, v := range a {
		if b, err = appendValue(b, v, depth); err != nil {
			return b, err
		}
	}
	return patchLength(b, start)
}

// decodeFields decodes the fields of a table whose length prefix has been
// read; p is exactly the fields. It returns a reason when p is malformed.
func decodeFields(p []byte, depth int) (Table, string) {
	if depth > MaxTableDepth {
		return nil, fmt.Sprintf("nested deeper than %d", MaxTableDepth)
	}
	d := decoder{b: p}
	var t Table
	for d.remaining() > 0 {
		key := d.take(uint64(d.uint8()))
		v := decodeValue(&d, depth)
		if d.failed {
			return nil, tableReason(&d)
		}
		if t == nil {
			t = make(Table)
		}
		if _, dup := t[string(key)]; !dup {
			t[string(key)] = v
		}
	}
	return t, ""
}

func tableReason(d *decoder) string {
	if d.reason == "" {
		return "truncated field"
	}
	return d.reason
}

// decodeValue reads one type octet and its value; depth is the nesting
// level of the table or array that holds the value.
func decodeValue(d *decoder, depth int) any {
	typ := d.uint8()
	if d.failed {
		return nil
	}
	switch typ {
	case 't':
		return d.uint8() != 0
	case 'b':
		return int8(d.uint8())
	case 'B':
		return d.uint8()
	case 's':
		return int16(d.uint16())
	case 'u':
		return d.uint16()
	case 'I':
		return int32(d.uint32())
	case 'i':
		return d.uint32()
	case 'l':
		return int64(d.uint64())
	case 'f':
		return math.Float32frombits(d.uint32())
	case 'd':
		return math.Float64frombits(d.uint64())
	case 'D':
		scale := d.uint8()
		return Decimal{Scale: scale, Value: int32(d.uint32())}
	case 'S':
		return d.longstr()
	case 'x':
		p := d.take(uint64(d.uint32()))
		if len(p) == 0 {
			return []byte(nil)
		}
		return append([]byte(nil), p...)
	case 'T':
		return d.timestamp()
	case 'F':
		p := d.take(uint64(d.uint32()))
		if d.failed {
			return nil
		}
		t, reason := decodeFields(p, depth+1)
		if reason != "" {
			d.fail(reason)
		}
		return t
	case 'A':
		p := d.take(uint64(d.uint32()))
		if d.failed {
			return nil
		}
		a, reason := decodeArray(p, depth+1)
		if reason != "" {
			d.fail(reason)
		}
		return a
	case 'V':
		return nil
	}
	d.fail(fmt.Sprintf("unknown field type %q", typ))
	return nil
}

func decodeArray(p []byte, depth int) ([]any, string) {
	if depth > MaxTableDepth {
		return nil, fmt.Sprintf("nested deeper than %d", MaxTableDepth)
	}
	d := decoder{b: p}
	var a []any
	for d.remaining() > 0 {
		v := decodeValue(&d, depth)
		if d.failed {
			return nil, tableReason(&d)
		}
		a = append(a, v)
	}
	return a, ""
}
