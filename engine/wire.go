package engine

import (
	"encoding/binary"
	"math"
	"strconv"
)

// The engine's binary forms — the command log's records and the snapshot —
// are written by one encoder and read by one decoder: varints (zig-zag for
// signed ones, encoding/binary's form), booleans as one byte 0 or 1, byte
// slices and tables keeping nil apart from empty (count+1, 0 for nil), and
// AMQP field values with their Go types kept. Everything is written in one
// fixed order, so one value has exactly one encoding: what is decoded and
// encoded again is the same bytes, natively and in wasm.
//
// The two forms differ where each was tuned for its use, and the bytes on
// disk fix those differences forever (testdata/*.golden pins them):
//
//	                  command record (formRecord)    snapshot (formSnapshot)
//	strings           length, bytes                  interned: the first time 0,
//	                                                 length, bytes; later index+1
//	value tags        AMQP's letters ('S', 'F'...)   fieldType's numbers
//	8-bit integers    the byte                       a varint
//	floats            IEEE 754 bits, little-endian   shortest text, as a string
//	arrays            count+1, 0 for nil             count (nil loads empty)
//	nesting deeper    refused (CodecError)           written; Load refuses it
//	than maxValueDepth
//
// A snapshot repeats queue, exchange and vhost names, routing keys and
// header names with every message, so interning makes a million messages
// in one queue cost their name once; a record stands alone, so that a log
// can be cut anywhere.

// wireForm says which of the two forms an encoder writes or a decoder
// reads.
type wireForm uint8

const (
	formRecord wireForm = iota
	formSnapshot
)

// maxValueDepth bounds how deeply tables and arrays nest, so that decoding
// hostile bytes cannot recurse without limit. AMQP clients nest two or
// three levels, but a client may send as deep as engine/amqp's decoder
// takes (its MaxTableDepth, 100), and the engine must record, save and
// load all of that: at 64, a client's 65-deep headers made recording a
// command panic and a snapshot that Load refused
// (TestDeepestClientHeadersAreRecordedSavedAndLoaded).
const maxValueDepth = 128

// fieldType is a field value's Go type; in a snapshot its number is the
// value's tag.
type fieldType uint8

const (
	ftVoid fieldType = iota
	ftBool
	ftInt8
	ftUint8
	ftInt16
	ftUint16
	ftInt32
	ftUint32
	ftInt64
	ftInt
	ftFloat32
	ftFloat64
	ftDecimal
	ftString
	ftBytes
	ftTimestamp
	ftTable
	ftArray
	ftCount
)

// recordTags are a record's value tags: AMQP's own letters where AMQP has
// the type, and 'n' for a Go int, which the engine accepts as a long but
// a replay must give back as an int.
var recordTags = [ftCount]byte{
	ftVoid: 'V', ftBool: 't', ftInt8: 'b', ftUint8: 'B', ftInt16: 's', ftUint16: 'u', ftInt32: 'I',
	ftUint32: 'i', ftInt64: 'l', ftInt: 'n', ftFloat32: 'f', ftFloat64: 'd', ftDecimal: 'D',
	ftString: 'S', ftBytes: 'x', ftTimestamp: 'T', ftTable: 'F', ftArray: 'A',
}

// recordTypes inverts recordTags; ftCount marks a byte that is no tag.
var recordTypes = func() (m [256]fieldType) {
	for i := range m {
		m[i] = ftCount
	}
	for ft, tag := range recordTags {
		m[tag] = fieldType(ft)
	}
	return m
}()

// smallTable is the size up to which a table's keys are put in order in
// an array on the stack, which allocates nothing (a publish's headers);
// larger tables sort a copy of their keys.
const smallTable = 8

// encoder appends to buf. err is the first value it could not encode.
type encoder struct {
	buf  []byte
	err  error
	form wireForm
	// interned numbers the strings a snapshot has written.
	interned map[string]uint64
}

func (e *encoder) fail(problem string) {
	if e.err == nil {
		e.err = &CodecError{Problem: problem}
	}
}

func (e *encoder) byte1(v byte)     { e.buf = append(e.buf, v) }
func (e *encoder) uvarint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) varint(v int64)   { e.buf = binary.AppendVarint(e.buf, v) }

func (e *encoder) boolean(v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// str writes s in the encoder's form.
func (e *encoder) str(s string) {
	if e.form == formSnapshot {
		if i, ok := e.interned[s]; ok {
			e.uvarint(i + 1)
			return
		}
		e.interned[s] = uint64(len(e.interned))
		e.buf = append(e.buf, 0)
	}
	if len(s) < 0x80 {
		e.buf = append(append(e.buf, byte(len(s))), s...)
		return
	}
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// bytes writes p keeping nil apart from empty.
func (e *encoder) bytes(p []byte) {
	if p == nil {
		e.uvarint(0)
		return
	}
	e.uvarint(uint64(len(p)) + 1)
	e.buf = append(e.buf, p...)
}

// octet writes an unsigned 8-bit integer: the byte in a record, a
// uvarint in a snapshot.
func (e *encoder) octet(v uint8) {
	if e.form == formRecord {
		e.buf = append(e.buf, v)
	} else {
		e.uvarint(uint64(v))
	}
}

// table writes t with its keys in order, so that equal tables encode
// alike whatever the map's iteration order.
func (e *encoder) table(t Table, depth int) {
	if t == nil {
		e.uvarint(0)
		return
	}
	if depth >= maxValueDepth && e.form == formRecord {
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

func (e *encoder) valueTag(ft fieldType) {
	if e.form == formRecord {
		e.buf = append(e.buf, recordTags[ft])
	} else {
		e.buf = append(e.buf, byte(ft))
	}
}

// value writes one field value of a type Table allows.
func (e *encoder) value(v any, depth int) {
	switch x := v.(type) {
	case nil:
		e.valueTag(ftVoid)
	case bool:
		e.valueTag(ftBool)
		e.boolean(x)
	case int8:
		e.valueTag(ftInt8)
		if e.form == formRecord {
			e.buf = append(e.buf, byte(x))
		} else {
			e.varint(int64(x))
		}
	case uint8:
		e.valueTag(ftUint8)
		e.octet(x)
	case int16:
		e.valueTag(ftInt16)
		e.varint(int64(x))
	case uint16:
		e.valueTag(ftUint16)
		e.uvarint(uint64(x))
	case int32:
		e.valueTag(ftInt32)
		e.varint(int64(x))
	case uint32:
		e.valueTag(ftUint32)
		e.uvarint(uint64(x))
	case int64:
		e.valueTag(ftInt64)
		e.varint(x)
	case int:
		e.valueTag(ftInt)
		e.varint(int64(x))
	case float32:
		e.valueTag(ftFloat32)
		if e.form == formRecord {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(x))
		} else {
			e.str(strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
	case float64:
		e.valueTag(ftFloat64)
		if e.form == formRecord {
			e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(x))
		} else {
			e.str(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case Decimal:
		e.valueTag(ftDecimal)
		e.octet(x.Scale)
		e.varint(int64(x.Value))
	case string:
		e.valueTag(ftString)
		e.str(x)
	case []byte:
		e.valueTag(ftBytes)
		e.bytes(x)
	case Timestamp:
		e.valueTag(ftTimestamp)
		e.varint(int64(x))
	case Table:
		e.valueTag(ftTable)
		e.table(x, depth)
	case []any:
		e.valueTag(ftArray)
		e.array(x, depth)
	default:
		e.fail("a field value of type " + typeName(v) + " has no AMQP encoding")
	}
}

func (e *encoder) array(a []any, depth int) {
	if e.form == formSnapshot {
		e.uvarint(uint64(len(a)))
	} else if a == nil {
		e.uvarint(0)
		return
	} else if depth >= maxValueDepth {
		e.fail("arrays nested deeper than " + strconv.Itoa(maxValueDepth))
		return
	} else {
		e.uvarint(uint64(len(a)) + 1)
	}
	for _, el := range a {
		e.value(el, depth+1)
	}
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

// decoder reads src from off, in the form an encoder wrote it, and refuses
// anything else. Every length is checked against the bytes that remain
// before anything is allocated, and nesting is bounded, so hostile bytes
// cost at most a few times their own size. After the first problem it
// reads nothing more and returns zero values; err says what and where, so
// callers check it once, at the end of a section.
type decoder struct {
	src  []byte
	off  int
	err  *CodecError
	form wireForm
	// interned are the strings a snapshot has read so far.
	interned []string
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

// uvarint reads what encoder.uvarint wrote; more than ten bytes, or a
// tenth byte over 1, overflows 64 bits and is refused.
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

// count reads a number of items that follow, each at least one byte, so
// that a hostile count cannot make the decoder allocate more than the
// input.
func (d *decoder) count(what string) int {
	n := d.uvarint()
	if n > uint64(d.left()) {
		d.fail(what + " longer than the input")
		return 0
	}
	return int(n)
}

// optCount reads a count+1 (0 for nil): the count must fit in what
// remains.
func (d *decoder) optCount(what string) int {
	n := d.uvarint()
	if n > 0 && n-1 > uint64(d.left()) {
		d.fail(what + " longer than the input")
		return 0
	}
	return int(n)
}

// raw returns the next n bytes, aliasing the input.
func (d *decoder) raw(n int) []byte {
	if n > d.left() {
		d.fail("truncated")
		return nil
	}
	p := d.src[d.off : d.off+n : d.off+n]
	d.off += n
	return p
}

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

// str reads a string in the decoder's form.
func (d *decoder) str() string {
	if d.form == formSnapshot {
		if i := d.uvarint(); i > 0 {
			if i > uint64(len(d.interned)) {
				d.fail("unknown string")
				return ""
			}
			return d.interned[i-1]
		}
	}
	s := string(d.raw(d.count("string")))
	if d.form == formSnapshot && d.err == nil {
		d.interned = append(d.interned, s)
	}
	return s
}

// bytes reads what encoder.bytes wrote into a fresh slice.
func (d *decoder) bytes() []byte {
	n := d.optCount("bytes")
	if n == 0 {
		return nil
	}
	return append([]byte{}, d.raw(n-1)...)
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

func (d *decoder) fieldType() fieldType {
	tag := d.byte1()
	ft := fieldType(tag)
	if d.form == formRecord {
		ft = recordTypes[tag]
	}
	if ft >= ftCount && d.err == nil {
		d.off--
		d.fail("unknown field type " + strconv.Quote(string(rune(tag))))
	}
	return ft
}

// octet reads what encoder.octet wrote.
func (d *decoder) octet() uint8 {
	if d.form == formRecord {
		return d.byte1()
	}
	return uint8(d.unsigned(math.MaxUint8))
}

func (d *decoder) float(bits int) float64 {
	if d.form == formSnapshot {
		f, err := strconv.ParseFloat(d.str(), bits)
		if err != nil {
			d.fail("bad float")
		}
		return f
	}
	if d.left() < bits/8 {
		d.fail("truncated float")
		return 0
	}
	if bits == 32 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(d.raw(4))))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(d.raw(8)))
}

func (d *decoder) value(depth int) any {
	switch d.fieldType() {
	case ftVoid:
		return nil
	case ftBool:
		return d.boolean()
	case ftInt8:
		if d.form == formRecord {
			return int8(d.byte1())
		}
		return int8(d.signed(math.MinInt8, math.MaxInt8))
	case ftUint8:
		return d.octet()
	case ftInt16:
		return int16(d.signed(math.MinInt16, math.MaxInt16))
	case ftUint16:
		return uint16(d.unsigned(math.MaxUint16))
	case ftInt32:
		return int32(d.signed(math.MinInt32, math.MaxInt32))
	case ftUint32:
		return uint32(d.unsigned(math.MaxUint32))
	case ftInt64:
		return d.varint()
	case ftInt:
		return int(d.signed(math.MinInt, math.MaxInt))
	case ftFloat32:
		return float32(d.float(32))
	case ftFloat64:
		return d.float(64)
	case ftDecimal:
		s := d.octet()
		return Decimal{Scale: s, Value: int32(d.signed(math.MinInt32, math.MaxInt32))}
	case ftString:
		return d.str()
	case ftBytes:
		return d.bytes()
	case ftTimestamp:
		return Timestamp(d.varint())
	case ftTable:
		return d.table(depth)
	case ftArray:
		return d.array(depth)
	}
	return nil
}

func (d *decoder) array(depth int) []any {
	n := 0
	if d.form == formSnapshot {
		n = d.count("array") + 1
	} else if n = d.optCount("array"); n == 0 || d.err != nil {
		return nil
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
}
