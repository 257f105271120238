package engine

import "math"

// The decoding half of command_values.go.

// present reads the presence byte of an optional value.
func (d *decoder) present() bool { return d.boolean() }

// strs reads encoder.strs's list; an empty one is nil.
func (d *decoder) strs() []string {
	n := d.count("strings") // each takes at least one byte
	if n == 0 {
		return nil
	}
	list := make([]string, n)
	for i := range list {
		list[i] = d.str()
	}
	return list
}

func (d *decoder) channel() ChannelID {
	c := ConnID(d.unsigned(math.MaxUint32))
	return ChannelID{Conn: c, Num: uint16(d.unsigned(math.MaxUint16))}
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
