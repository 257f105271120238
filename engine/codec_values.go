package engine

import (
	"encoding/binary"
	"math"
	"strconv"
)

// The command codec's building blocks: varints, strings, field tables,
// message properties, permissions. Everything is written in one fixed
// order, so one value has exactly one encoding: a record decoded and
// encoded again is the same bytes, and two replicas that log the same
// commands log the same bytes. Where Go tells nil from empty (a nil body,
// a nil table), so does the encoding (count+1, 0 for nil), because a
// replayed broker must hold exactly what the original held.

// maxValueDepth bounds how deeply tables and arrays nest in a command, so
// that decoding hostile bytes cannot recurse without limit. AMQP clients
// nest two or three levels.
const maxValueDepth = 64

// Field value tags: AMQP's own letters where AMQP has the type, and 'n' for
// a Go int, which the engine accepts as a long but a replay must give back
// as an int.
const (
	tagBool      = 't'
	tagInt8      = 'b'
	tagUint8     = 'B'
	tagInt16     = 's'
	tagUint16    = 'u'
	tagInt32     = 'I'
	tagUint32    = 'i'
	tagInt64     = 'l'
	tagInt       = 'n'
	tagFloat32   = 'f'
	tagFloat64   = 'd'
	tagDecimal   = 'D'
	tagString    = 'S'
	tagBytes     = 'x'
	tagTimestamp = 'T'
	tagTable     = 'F'
	tagArray     = 'A'
	tagVoid      = 'V'
)

// smallTable is the size up to which a table's keys are put in order in
// an array on the stack, which allocates nothing (a publish's headers);
// larger tables sort a copy of their keys.
const smallTable = 8

// encoder appends to buf. err is the first value it could not encode.
type encoder struct {
	buf []byte
	err error
}

func (e *encoder) uvarint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) varint(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }

func (e *encoder) str(s string) {
	if len(s) < 0x80 {
		e.buf = append(append(e.buf, byte(len(s))), s...)
		return
	}
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) boolean(v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// optBytes writes a byte slice keeping nil apart from empty.
func (e *encoder) optBytes(p []byte) {
	if p == nil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(len(p)) + 1)
	e.buf = append(e.buf, p...)
}

func (e *encoder) channel(id ChannelID) {
	e.uvarint(uint64(id.Conn))
	e.uvarint(uint64(id.Num))
}

func (e *encoder) table(t Table, depth int) {
	if t == nil {
		e.uvarint(0)
		return
	}
	if depth >= maxValueDepth {
		e.fail("tables nested deeper than " + strconv.Itoa(maxValueDepth))
		return
	}
	e.uvarint(uint64(len(t)) + 1)
	if len(t) > smallTable {
		for _, k := range t.Keys() {
			e.str(k)
			e.value(t[k], depth+1)
		}
		return
	}
	// One pass over the map into an array on the stack, then an
	// insertion sort: no allocation, and a map iteration costs more than
	// sorting a few keys.
	var keys [smallTable]string
	var vals [smallTable]any
	n := 0
	for k, v := range t {
		i := n
		for ; i > 0 && keys[i-1] > k; i-- {
			keys[i], vals[i] = keys[i-1], vals[i-1]
		}
		keys[i], vals[i] = k, v
		n++
	}
	for i := range n {
		e.str(keys[i])
		e.value(vals[i], depth+1)
	}
}

func (e *encoder) value(v any, depth int) {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, tagVoid)
	case bool:
		e.buf = append(e.buf, tagBool)
		e.boolean(x)
	case int8:
		e.buf = append(e.buf, tagInt8, byte(x))
	case uint8:
		e.buf = append(e.buf, tagUint8, x)
	case int16:
		e.buf = append(e.buf, tagInt16)
		e.varint(int64(x))
	case uint16:
		e.buf = append(e.buf, tagUint16)
		e.uvarint(uint64(x))
	case int32:
		e.buf = append(e.buf, tagInt32)
		e.varint(int64(x))
	case uint32:
		e.buf = append(e.buf, tagUint32)
		e.uvarint(uint64(x))
	case int64:
		e.buf = append(e.buf, tagInt64)
		e.varint(x)
	case int:
		e.buf = append(e.buf, tagInt)
		e.varint(int64(x))
	case float32:
		e.buf = binary.LittleEndian.AppendUint32(append(e.buf, tagFloat32), math.Float32bits(x))
	case float64:
		e.buf = binary.LittleEndian.AppendUint64(append(e.buf, tagFloat64), math.Float64bits(x))
	case Decimal:
		e.buf = append(e.buf, tagDecimal, x.Scale)
		e.varint(int64(x.Value))
	case string:
		e.buf = append(e.buf, tagString)
		e.str(x)
	case []byte:
		e.buf = append(e.buf, tagBytes)
		e.optBytes(x)
	case Timestamp:
		e.buf = append(e.buf, tagTimestamp)
		e.varint(int64(x))
	case Table:
		e.buf = append(e.buf, tagTable)
		e.table(x, depth)
	case []any:
		e.buf = append(e.buf, tagArray)
		if x == nil {
			e.uvarint(0)
			return
		}
		if depth >= maxValueDepth {
			e.fail("arrays nested deeper than " + strconv.Itoa(maxValueDepth))
			return
		}
		e.uvarint(uint64(len(x)) + 1)
		for _, el := range x {
			e.value(el, depth+1)
		}
	default:
		e.fail("a field value of type " + TypeName(v) + " has no AMQP encoding")
	}
}

func (e *encoder) fail(problem string) {
	if e.err == nil {
		e.err = &CodecError{Problem: problem}
	}
}

func (e *encoder) props(p *Properties) {
	if p == nil {
		e.buf = append(e.buf, 0)
		return
	}
	e.buf = append(e.buf, 1)
	e.str(p.ContentType)
	e.str(p.ContentEncoding)
	e.table(p.Headers, 0)
	e.buf = append(e.buf, p.DeliveryMode, p.Priority)
	e.str(p.CorrelationID)
	e.str(p.ReplyTo)
	e.str(p.Expiration)
	e.str(p.MessageID)
	e.varint(int64(p.Timestamp))
	e.str(p.Type)
	e.str(p.UserID)
	e.str(p.AppID)
}

func (e *encoder) publish(p BasicPublish) {
	e.str(p.Exchange)
	e.str(p.RoutingKey)
	e.boolean(p.Mandatory)
	e.boolean(p.Immediate)
	e.props(p.Props)
	e.optBytes(p.Body)
}

func (e *encoder) perms(p *Permissions) {
	if p == nil {
		e.buf = append(e.buf, 0)
		return
	}
	e.buf = append(e.buf, 1)
	e.str(p.Configure)
	e.str(p.Write)
	e.str(p.Read)
	if p.Topics == nil {
		e.uvarint(0)
	} else {
		e.uvarint(uint64(len(p.Topics)) + 1)
	}
	for _, t := range p.Topics {
		e.str(t.Exchange)
		e.str(t.Write)
		e.str(t.Read)
	}
	e.boolean(p.Impersonator)
}

func (e *encoder) exception(x *Error) {
	if x == nil {
		e.buf = append(e.buf, 0)
		return
	}
	e.buf = append(e.buf, 1)
	e.varint(int64(x.Code))
	e.str(x.Text)
	e.uvarint(uint64(x.Method.Class))
	e.uvarint(uint64(x.Method.ID))
	e.boolean(x.Connection)
}

// CodecError says why bytes are not a command record (or, encoding, why a
// command cannot be one), and where.
type CodecError struct {
	Offset  int
	Problem string
}

func (e *CodecError) Error() string {
	return "engine: command record, byte " + strconv.Itoa(e.Offset) + ": " + e.Problem
}

// decoder reads src from off. After the first problem it reads nothing
// more and returns zero values; err says what and where.
type decoder struct {
	src []byte
	off int
	err error
}

func (d *decoder) fail(problem string) {
	if d.err == nil {
		d.err = &CodecError{Offset: d.off, Problem: problem}
	}
	d.off = len(d.src)
}

func (d *decoder) left() int { return len(d.src) - d.off }

func (d *decoder) byte1() byte {
	if d.off >= len(d.src) {
		d.fail("truncated")
		return 0
	}
	b := d.src[d.off]
	d.off++
	return b
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.src[d.off:])
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.src[d.off:])
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.off += n
	return v
}

// unsigned reads a uvarint that must fit in limit.
func (d *decoder) unsigned(limit uint64) uint64 {
	v := d.uvarint()
	if v > limit {
		d.fail("value " + strconv.FormatUint(v, 10) + " out of range")
		return 0
	}
	return v
}

// signed reads a varint that must lie within [lo, hi].
func (d *decoder) signed(lo, hi int64) int64 {
	v := d.varint()
	if v < lo || v > hi {
		d.fail("value " + strconv.FormatInt(v, 10) + " out of range")
		return 0
	}
	return v
}

// count reads a length that the remaining bytes must be able to hold.
func (d *decoder) count(what string) int {
	n := d.uvarint()
	if n > uint64(d.left()) {
		d.fail(what + " longer than the record")
		return 0
	}
	return int(n)
}

// optCount reads a count+1 (0 for nil): the count must fit in what
// remains.
func (d *decoder) optCount(what string) int {
	n := d.uvarint()
	if n > 0 && n-1 > uint64(d.left()) {
		d.fail(what + " longer than the record")
		return 0
	}
	return int(n)
}

func (d *decoder) raw(n int) []byte {
	p := d.src[d.off : d.off+n]
	d.off += n
	return p
}

func (d *decoder) str() string { return string(d.raw(d.count("string"))) }

func (d *decoder) boolean() bool {
	switch d.byte1() {
	case 0:
		return false
	case 1:
		return true
	}
	d.fail("bad boolean")
	return false
}

// present reads the presence byte of an optional value.
func (d *decoder) present() bool { return d.boolean() }

func (d *decoder) optBytes() []byte {
	n := d.optCount("bytes")
	if n == 0 {
		return nil
	}
	return append([]byte{}, d.raw(n-1)...)
}

func (d *decoder) channel() ChannelID {
	c := ConnID(d.unsigned(math.MaxUint32))
	return ChannelID{Conn: c, Num: uint16(d.unsigned(math.MaxUint16))}
}

func (d *decoder) table(depth int) Table {
	n := d.optCount("table")
	if n == 0 || d.err != nil {
		return nil
	}
	if depth >= maxValueDepth {
		d.fail("tables nested too deeply")
		return nil
	}
	n--
	t := make(Table, n)
	var last string
	for i := range n {
		k := d.str()
		if i > 0 && k <= last {
			d.fail("table keys out of order")
			return nil
		}
		t[k] = d.value(depth + 1)
		if d.err != nil {
			return nil
		}
		last = k
	}
	return t
}

func (d *decoder) value(depth int) any {
	switch tag := d.byte1(); tag {
	case tagVoid:
		return nil
	case tagBool:
		return d.boolean()
	case tagInt8:
		return int8(d.byte1())
	case tagUint8:
		return d.byte1()
	case tagInt16:
		return int16(d.signed(math.MinInt16, math.MaxInt16))
	case tagUint16:
		return uint16(d.unsigned(math.MaxUint16))
	case tagInt32:
		return int32(d.signed(math.MinInt32, math.MaxInt32))
	case tagUint32:
		return uint32(d.unsigned(math.MaxUint32))
	case tagInt64:
		return d.varint()
	case tagInt:
		return int(d.signed(math.MinInt, math.MaxInt))
	case tagFloat32:
		if d.left() < 4 {
			d.fail("truncated float")
			return nil
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(d.raw(4)))
	case tagFloat64:
		if d.left() < 8 {
			d.fail("truncated double")
			return nil
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(d.raw(8)))
	case tagDecimal:
		s := d.byte1()
		return Decimal{Scale: s, Value: int32(d.signed(math.MinInt32, math.MaxInt32))}
	case tagString:
		return d.str()
	case tagBytes:
		return d.optBytes()
	case tagTimestamp:
		return Timestamp(d.varint())
	case tagTable:
		return d.table(depth)
	case tagArray:
		n := d.optCount("array")
		if n == 0 || d.err != nil {
			return []any(nil)
		}
		if depth >= maxValueDepth {
			d.fail("arrays nested too deeply")
			return nil
		}
		a := make([]any, n-1)
		for i := range a {
			a[i] = d.value(depth + 1)
		}
		return a
	default:
		if d.err == nil {
			d.off--
			d.fail("unknown field type " + strconv.Quote(string(rune(tag))))
		}
		return nil
	}
}

func (d *decoder) props() *Properties {
	if !d.present() {
		return nil
	}
	p := &Properties{ContentType: d.str(), ContentEncoding: d.str(), Headers: d.table(0)}
	p.DeliveryMode = d.byte1()
	p.Priority = d.byte1()
	p.CorrelationID = d.str()
	p.ReplyTo = d.str()
	p.Expiration = d.str()
	p.MessageID = d.str()
	p.Timestamp = Timestamp(d.varint())
	p.Type = d.str()
	p.UserID = d.str()
	p.AppID = d.str()
	return p
}

func (d *decoder) publish() BasicPublish {
	p := BasicPublish{Exchange: d.str(), RoutingKey: d.str()}
	p.Mandatory = d.boolean()
	p.Immediate = d.boolean()
	p.Props = d.props()
	p.Body = d.optBytes()
	return p
}

func (d *decoder) perms() *Permissions {
	if !d.present() {
		return nil
	}
	p := &Permissions{Configure: d.str(), Write: d.str(), Read: d.str()}
	// Each topic permission takes at least three bytes.
	if n := d.uvarint(); n > uint64(d.left()/3)+1 {
		d.fail("topic permissions longer than the record")
	} else if n > 0 {
		p.Topics = make([]TopicPermission, n-1)
		for i := range p.Topics {
			p.Topics[i] = TopicPermission{Exchange: d.str(), Write: d.str(), Read: d.str()}
		}
	}
	p.Impersonator = d.boolean()
	return p
}

func (d *decoder) exception() *Error {
	if !d.present() {
		return nil
	}
	x := &Error{Code: int(d.signed(math.MinInt, math.MaxInt)), Text: d.str()}
	x.Method.Class = uint16(d.unsigned(math.MaxUint16))
	x.Method.ID = uint16(d.unsigned(math.MaxUint16))
	x.Connection = d.boolean()
	return x
}
