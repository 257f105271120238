package engine

// The command records' compound values — message properties, a publish,
// permissions, an AMQP exception — written with the primitives of
// wire.go, in one fixed order.

// strs writes a list of strings, nil and empty alike.
func (e *encoder) strs(list []string) {
	e.uvarint(uint64(len(list)))
	for _, s := range list {
		e.str(s)
	}
}

func (e *encoder) channel(id ChannelID) {
	e.uvarint(uint64(id.Conn))
	e.uvarint(uint64(id.Num))
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
