package conn

import (
	"warren/engine"
	"warren/server/amqp"
)

// The codec and the engine use the same Go types for table values (see
// engine.Table's doc), except for their own Decimal and Timestamp types,
// so conversion is a walk that swaps only those.

func toEngineTable(t amqp.Table) engine.Table {
	if t == nil {
		return nil
	}
	out := make(engine.Table, len(t))
	for k, v := range t {
		out[k] = toEngineValue(v)
	}
	return out
}

func toEngineValue(v any) any {
	switch x := v.(type) {
	case amqp.Table:
		return toEngineTable(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toEngineValue(e)
		}
		return out
	case amqp.Decimal:
		return engine.Decimal{Scale: x.Scale, Value: x.Value}
	case amqp.Timestamp:
		return engine.Timestamp(x)
	}
	return v
}

func toWireTable(t engine.Table) amqp.Table {
	if t == nil {
		return nil
	}
	out := make(amqp.Table, len(t))
	for k, v := range t {
		out[k] = toWireValue(v)
	}
	return out
}

func toWireValue(v any) any {
	switch x := v.(type) {
	case engine.Table:
		return toWireTable(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toWireValue(e)
		}
		return out
	case engine.Decimal:
		return amqp.Decimal{Scale: x.Scale, Value: x.Value}
	case engine.Timestamp:
		return amqp.Timestamp(x)
	case int:
		return int64(x)
	}
	return v
}

// toEngineProps converts content properties; nil when none were set.
func toEngineProps(p *amqp.Properties) *engine.Properties {
	if p == nil || p.Flags == 0 {
		return nil
	}
	return &engine.Properties{
		ContentType:     p.ContentType,
		ContentEncoding: p.ContentEncoding,
		Headers:         toEngineTable(p.Headers),
		DeliveryMode:    p.DeliveryMode,
		Priority:        p.Priority,
		CorrelationID:   p.CorrelationID,
		ReplyTo:         p.ReplyTo,
		Expiration:      p.Expiration,
		MessageID:       p.MessageID,
		Timestamp:       engine.Timestamp(p.Timestamp),
		Type:            p.Type,
		UserID:          p.UserID,
		AppID:           p.AppID,
	}
}

// wireProps builds the properties a consumer receives: the message's own,
// with headers as the engine presents them (x-death and friends rendered).
func wireProps(m *engine.Message) amqp.Properties {
	var p amqp.Properties
	if m.Props != nil {
		ep := m.Props
		p.ContentType, p.ContentEncoding = ep.ContentType, ep.ContentEncoding
		p.DeliveryMode, p.Priority = ep.DeliveryMode, ep.Priority
		p.CorrelationID, p.ReplyTo, p.Expiration, p.MessageID = ep.CorrelationID, ep.ReplyTo, ep.Expiration, ep.MessageID
		p.Timestamp = amqp.Timestamp(ep.Timestamp)
		p.Type, p.UserID, p.AppID = ep.Type, ep.UserID, ep.AppID
	}
	if h := m.Headers(); len(h) > 0 {
		p.Headers = toWireTable(h)
	}
	p.Flags = presentFlags(p)
	return p
}

// presentFlags marks the properties that have a value. The engine does not
// keep presence, so a property is sent when it is non-zero.
func presentFlags(p amqp.Properties) uint16 {
	var f uint16
	set := func(flag uint16, present bool) {
		if present {
			f |= flag
		}
	}
	set(amqp.FlagContentType, p.ContentType != "")
	set(amqp.FlagContentEncoding, p.ContentEncoding != "")
	set(amqp.FlagHeaders, len(p.Headers) > 0)
	set(amqp.FlagDeliveryMode, p.DeliveryMode != 0)
	set(amqp.FlagPriority, p.Priority != 0)
	set(amqp.FlagCorrelationID, p.CorrelationID != "")
	set(amqp.FlagReplyTo, p.ReplyTo != "")
	set(amqp.FlagExpiration, p.Expiration != "")
	set(amqp.FlagMessageID, p.MessageID != "")
	set(amqp.FlagTimestamp, p.Timestamp != 0)
	set(amqp.FlagType, p.Type != "")
	set(amqp.FlagUserID, p.UserID != "")
	set(amqp.FlagAppID, p.AppID != "")
	return f
}
