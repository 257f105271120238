package engine

import (
	"fmt"
	"sort"
	"strconv"
)

// The snapshot codec's primitives: unsigned and zigzag varints, strings
// interned per snapshot, and AMQP field tables with their Go types kept.
//
// A string is written once: its first occurrence as 0, length, bytes; every
// later one as its index plus one. Queue, exchange and vhost names, routing
// keys and header names recur with every message, so a million messages in
// one queue cost their name once.

// snapEncoder appends a snapshot to buf.
type snapEncoder struct {
	buf  []byte
	strs map[string]uint64
}

// uvarint appends v seven bits a byte, low bits first, the high bit
// saying more follow (encoding/binary's form, written here because the
// engine's import policy keeps to a few packages: deps_test.go).
func (e *snapEncoder) uvarint(v uint64) {
	for v >= 0x80 {
		e.buf = append(e.buf, byte(v)|0x80)
		v >>= 7
	}
	e.buf = append(e.buf, byte(v))
}

// varint appends v zigzag-encoded, so that small negative numbers are
// short too.
func (e *snapEncoder) varint(v int64) { e.uvarint(uint64(v<<1) ^ uint64(v>>63)) }

func (e *snapEncoder) byte1(v byte) { e.buf = append(e.buf, v) }

func (e *snapEncoder) bool(v bool) {
	if v {
		e.byte1(1)
	} else {
		e.byte1(0)
	}
}

func (e *snapEncoder) str(s string) {
	if i, ok := e.strs[s]; ok {
		e.uvarint(i + 1)
		return
	}
	e.strs[s] = uint64(len(e.strs))
	e.uvarint(0)
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// bytes writes b, keeping nil apart from empty.
func (e *snapEncoder) bytes(b []byte) {
	if b == nil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(len(b)) + 1)
	e.buf = append(e.buf, b...)
}

func (e *snapEncoder) tally(t tally) {
	e.varint(t.msgs)
	e.varint(t.bytes)
}

// Field value tags: one per Go type a Table may hold (see Table).
const (
	snapTagVoid byte = iota
	snapTagBool
	snapTagInt8
	snapTagUint8
	snapTagInt16
	snapTagUint16
	snapTagInt32
	snapTagUint32
	snapTagInt64
	snapTagInt
	snapTagFloat32
	snapTagFloat64
	snapTagDecimal
	snapTagString
	snapTagBytes
	snapTagTimestamp
	snapTagTable
	snapTagArray
)

// table writes t with its keys sorted, so that equal tables save alike;
// nil is kept apart from empty.
func (e *snapEncoder) table(t Table) {
	if t == nil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(len(t)) + 1)
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e.str(k)
		e.value(t[k])
	}
}

// value writes one field value. A type no AMQP field can hold is a
// driver's bug, and panics.
func (e *snapEncoder) value(v any) {
	switch x := v.(type) {
	case nil:
		e.byte1(snapTagVoid)
	case bool:
		e.byte1(snapTagBool)
		e.bool(x)
	case int8:
		e.byte1(snapTagInt8)
		e.varint(int64(x))
	case uint8:
		e.byte1(snapTagUint8)
		e.uvarint(uint64(x))
	case int16:
		e.byte1(snapTagInt16)
		e.varint(int64(x))
	case uint16:
		e.byte1(snapTagUint16)
		e.uvarint(uint64(x))
	case int32:
		e.byte1(snapTagInt32)
		e.varint(int64(x))
	case uint32:
		e.byte1(snapTagUint32)
		e.uvarint(uint64(x))
	case int64:
		e.byte1(snapTagInt64)
		e.varint(x)
	case int:
		e.byte1(snapTagInt)
		e.varint(int64(x))
	case float32:
		// The shortest text that reads back as the same number: exact,
		// without the math package.
		e.byte1(snapTagFloat32)
		e.str(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case float64:
		e.byte1(snapTagFloat64)
		e.str(strconv.FormatFloat(x, 'g', -1, 64))
	case Decimal:
		e.byte1(snapTagDecimal)
		e.uvarint(uint64(x.Scale))
		e.varint(int64(x.Value))
	case string:
		e.byte1(snapTagString)
		e.str(x)
	case []byte:
		e.byte1(snapTagBytes)
		e.bytes(x)
	case Timestamp:
		e.byte1(snapTagTimestamp)
		e.varint(int64(x))
	case Table:
		e.byte1(snapTagTable)
		e.table(x)
	case []any:
		e.byte1(snapTagArray)
		e.uvarint(uint64(len(x)))
		for _, el := range x {
			e.value(el)
		}
	default:
		panic(fmt.Sprintf("engine: Save: a table holds a %T, which no AMQP field type maps to", v))
	}
}

// errCorrupt is what Load returns for bytes that are not a snapshot.
var errCorrupt = fmt.Errorf("engine: snapshot is corrupt or truncated")

// snapDecoder reads a snapshot. The first problem sets err; every read after
// it returns a zero value, so callers check err once, at the end of a
// section.
type snapDecoder struct {
	data  []byte
	off   int
	err   error
	strs  []string
	depth int
}

// fail records that the snapshot is corrupt, naming where the reading
// stopped, for whoever has to look at the bytes.
func (d *snapDecoder) fail() {
	if d.err == nil {
		d.err = fmt.Errorf("%w (at byte %d of %d)", errCorrupt, d.off, len(d.data))
	}
}

// uvarint reads what snapEncoder.uvarint wrote; more than ten bytes, or a
// tenth byte over 1, overflows 64 bits and is corrupt.
func (d *snapDecoder) uvarint() uint64 {
	var v uint64
	for shift := uint(0); d.err == nil; shift += 7 {
		if d.off >= len(d.data) || shift == 70 {
			break
		}
		c := d.data[d.off]
		d.off++
		if shift == 63 && c > 1 {
			break
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.fail()
	return 0
}

func (d *snapDecoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *snapDecoder) byte1() byte {
	if d.err != nil || d.off >= len(d.data) {
		d.fail()
		return 0
	}
	d.off++
	return d.data[d.off-1]
}

func (d *snapDecoder) bool() bool {
	switch d.byte1() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail()
	return false
}

// int reads a non-negative int no larger than limit.
func (d *snapDecoder) int(limit int) int {
	v := d.uvarint()
	if v > uint64(limit) {
		d.fail()
		return 0
	}
	return int(v)
}

// sint reads a signed int that fits in an int.
func (d *snapDecoder) sint() int {
	v := d.varint()
	if v < -1<<31 || v > 1<<31-1 {
		d.fail()
		return 0
	}
	return int(v)
}

// count reads a number of items that follow, each at least one byte, so
// that a hostile count cannot make Load allocate more than the input.
func (d *snapDecoder) count() int { return d.int(len(d.data) - d.off) }

// take returns the next n bytes, aliasing the input.
func (d *snapDecoder) take(n int) []byte {
	if d.err != nil || n > len(d.data)-d.off {
		d.fail()
		return nil
	}
	b := d.data[d.off : d.off+n : d.off+n]
	d.off += n
	return b
}

func (d *snapDecoder) str() string {
	i := d.uvarint()
	if i > 0 {
		if i > uint64(len(d.strs)) {
			d.fail()
			return ""
		}
		return d.strs[i-1]
	}
	s := string(d.take(d.count()))
	if d.err == nil {
		d.strs = append(d.strs, s)
	}
	return s
}

// bytes reads bytes written by snapEncoder.bytes into a fresh slice.
func (d *snapDecoder) bytes() []byte {
	n := d.int(len(d.data) - d.off + 1)
	if n == 0 {
		return nil
	}
	return append([]byte{}, d.take(n-1)...)
}

func (d *snapDecoder) tally() tally { return tally{msgs: d.varint(), bytes: d.varint()} }

func (d *snapDecoder) table() Table {
	n := d.count()
	if n == 0 || d.err != nil {
		return nil
	}
	t := make(Table, n-1)
	for range n - 1 {
		k := d.str()
		t[k] = d.value()
		if d.err != nil {
			return nil
		}
	}
	return t
}

func (d *snapDecoder) value() any {
	if d.depth++; d.depth > maxValueDepth {
		d.fail()
	}
	defer func() { d.depth-- }()
	switch d.byte1() {
	case snapTagVoid:
		return nil
	case snapTagBool:
		return d.bool()
	case snapTagInt8:
		return int8(d.varint())
	case snapTagUint8:
		return uint8(d.uvarint())
	case snapTagInt16:
		return int16(d.varint())
	case snapTagUint16:
		return uint16(d.uvarint())
	case snapTagInt32:
		return int32(d.varint())
	case snapTagUint32:
		return uint32(d.uvarint())
	case snapTagInt64:
		return d.varint()
	case snapTagInt:
		return int(d.varint())
	case snapTagFloat32:
		f, err := strconv.ParseFloat(d.str(), 32)
		if err != nil {
			d.fail()
		}
		return float32(f)
	case snapTagFloat64:
		f, err := strconv.ParseFloat(d.str(), 64)
		if err != nil {
			d.fail()
		}
		return f
	case snapTagDecimal:
		return Decimal{Scale: uint8(d.uvarint()), Value: int32(d.varint())}
	case snapTagString:
		return d.str()
	case snapTagBytes:
		return d.bytes()
	case snapTagTimestamp:
		return Timestamp(d.varint())
	case snapTagTable:
		return d.table()
	case snapTagArray:
		n := d.count()
		arr := make([]any, 0, n)
		for range n {
			if d.err != nil {
				return nil
			}
			arr = append(arr, d.value())
		}
		return arr
	}
	d.fail()
	return nil
}
