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

// Properties are written as 0 for nil, or propsWithFlags, the properties
// present (Properties.Flags) as a varint and then each present one in
// AMQP's order, so that a property present but zero or empty is recorded
// as present. Records written before presence was kept have 1 and every
// property but cluster-id, with no flags; they still decode (see
// decoder.props).
const (
	propsAllFields = 1
	propsWithFlags = 2
)

func (e *encoder) props(p *Properties) {
	if p == nil {
		e.buf = append(e.buf, 0)
		return
	}
	f := p.Flags()
	e.buf = append(e.buf, propsWithFlags)
	e.uvarint(uint64(f))
	str := func(flag PropertyFlags, v string) {
		if f&flag != 0 {
			e.str(v)
		}
	}
	str(FlagContentType, p.ContentType)
	str(FlagContentEncoding, p.ContentEncoding)
	if f&FlagHeaders != 0 {
		e.table(p.Headers, 0)
	}
	if f&FlagDeliveryMode != 0 {
		e.buf = append(e.buf, p.DeliveryMode)
	}
	if f&FlagPriority != 0 {
		e.buf = append(e.buf, p.Priority)
	}
	str(FlagCorrelationID, p.CorrelationID)
	str(FlagReplyTo, p.ReplyTo)
	str(FlagExpiration, p.Expiration)
	str(FlagMessageID, p.MessageID)
	if f&FlagTimestamp != 0 {
		e.varint(int64(p.Timestamp))
	}
	str(FlagType, p.Type)
	str(FlagUserID, p.UserID)
	str(FlagAppID, p.AppID)
	str(FlagClusterID, p.ClusterID)
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
