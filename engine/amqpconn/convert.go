package amqpconn

import (
	"warren/engine"
	"warren/engine/amqp"
)

// The codec and the engine use the same Go types for table values (see
// engine.Table's doc), except for their own Decimal and Timestamp types,
// so conversion is a walk that swaps only those.

// ToEngineTable converts a field table from the codec's types to the
// engine's.
func ToEngineTable(t amqp.Table) engine.Table {
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
		return ToEngineTable(x)
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

// ToEngineProps converts content properties; nil when none were set. The
// engine's flags are AMQP's, so presence is copied as it came: a property
// present but zero or empty stays present.
//
// Properties that set only delivery-mode 1 or 2, what most clients send
// with a persistent or transient message, share one value each instead
// of a 180-byte allocation a message: the engine never changes a
// message's properties in place (dead-lettering, BCC and direct reply-to
// copy them first), so one value can stand for them all.
func ToEngineProps(p *amqp.Properties) *engine.Properties {
	if p == nil || p.Flags == 0 {
		return nil
	}
	if p.Flags == amqp.FlagDeliveryMode && (p.DeliveryMode == 1 || p.DeliveryMode == 2) {
		return &onlyDeliveryMode[p.DeliveryMode-1]
	}
	return &engine.Properties{
		ContentType:     p.ContentType,
		ContentEncoding: p.ContentEncoding,
		Headers:         ToEngineTable(p.Headers),
		DeliveryMode:    p.DeliveryMode,
		Priority:        p.Priority,
		Present:         engine.PropertyFlags(p.Flags),
		CorrelationID:   p.CorrelationID,
		ReplyTo:         p.ReplyTo,
		Expiration:      p.Expiration,
		MessageID:       p.MessageID,
		Timestamp:       engine.Timestamp(p.Timestamp),
		Type:            p.Type,
		UserID:          p.UserID,
		AppID:           p.AppID,
		ClusterID:       p.ClusterID,
	}
}

// WireProps builds the properties a consumer receives: the message's own,
// with exactly the flags the engine says are present (a publisher's
// present-but-empty ones included, headers too once dead-lettering added
// x-death), and headers as the engine presents them.
func WireProps(m *engine.Message) amqp.Properties {
	var p amqp.Properties
	if ep := m.Props; ep != nil {
		p.ContentType, p.ContentEncoding = ep.ContentType, ep.ContentEncoding
		p.DeliveryMode, p.Priority = ep.DeliveryMode, ep.Priority
		p.CorrelationID, p.ReplyTo, p.Expiration, p.MessageID = ep.CorrelationID, ep.ReplyTo, ep.Expiration, ep.MessageID
		p.Timestamp = amqp.Timestamp(ep.Timestamp)
		p.Type, p.UserID, p.AppID, p.ClusterID = ep.Type, ep.UserID, ep.AppID, ep.ClusterID
	}
	p.Flags = uint16(m.PropertyFlags())
	if p.Flags&amqp.FlagHeaders != 0 {
		p.Headers = toWireTable(m.Headers()) // nil when empty: the flag writes {}
	}
	return p
}

// onlyDeliveryMode are the shared properties of ToEngineProps for
// delivery-mode 1 and 2 alone.
var onlyDeliveryMode = [2]engine.Properties{
	{DeliveryMode: 1, Present: engine.FlagDeliveryMode},
	{DeliveryMode: 2, Present: engine.FlagDeliveryMode},
}
