package engine

import (
	"encoding/binary"
	"math"
	"strconv"
)

// The decoding half of codec_values.go: it reads what the encoder writes,
// and refuses anything else with a CodecError. Every length is checked
// against the bytes that remain before anything is allocated, and nesting
// is bounded, so hostile bytes cost at most a few times their own size.

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
	switch d.byte1() {
	case 0:
		return nil
	case propsWithFlags:
		return d.flaggedProps()
	case propsAllFields:
	default:
		d.off--
		d.fail("bad properties marker")
		return nil
	}
	// Written before presence was kept: a property is present when its
	// value is not zero, as the engine then took it.
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
	p.Present = p.Flags()
	return p
}

// flaggedProps reads the flags and the properties present (see
// encoder.props).
func (d *decoder) flaggedProps() *Properties {
	v := d.uvarint()
	if v&^uint64(AllPropertyFlags) != 0 {
		d.fail("unknown property flags")
		return nil
	}
	f := PropertyFlags(v)
	p := &Properties{Present: f}
	str := func(flag PropertyFlags, dst *string) {
		if f&flag != 0 {
			*dst = d.str()
		}
	}
	str(FlagContentType, &p.ContentType)
	str(FlagContentEncoding, &p.ContentEncoding)
	if f&FlagHeaders != 0 {
		p.Headers = d.table(0)
	}
	if f&FlagDeliveryMode != 0 {
		p.DeliveryMode = d.byte1()
	}
	if f&FlagPriority != 0 {
		p.Priority = d.byte1()
	}
	str(FlagCorrelationID, &p.CorrelationID)
	str(FlagReplyTo, &p.ReplyTo)
	str(FlagExpiration, &p.Expiration)
	str(FlagMessageID, &p.MessageID)
	if f&FlagTimestamp != 0 {
		p.Timestamp = Timestamp(d.varint())
	}
	str(FlagType, &p.Type)
	str(FlagUserID, &p.UserID)
	str(FlagAppID, &p.AppID)
	str(FlagClusterID, &p.ClusterID)
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
