package bridge

import (
	"math"
	"strings"
	"unicode/utf8"

	"warren/engine"
)

// Message is a message as a snapshot shows it, wherever it waits: ready in
// a queue, unacked at a channel, or held by a delayed exchange.
type Message struct {
	ID uint64 `json:"id"` // engine id; dead-lettering makes a new message with a new id
	// Body is the body as text: at most MaxBodyBytes of it, invalid UTF-8
	// replaced by U+FFFD. BodyBytes is its real size.
	Body          string `json:"body"`
	BodyBytes     int    `json:"bodyBytes"`
	BodyTruncated bool   `json:"bodyTruncated,omitempty"`
	Exchange      string `json:"exchange"` // last published (or dead-lettered) to
	RoutingKey    string `json:"routingKey"`
	// Properties are the basic properties other than headers; absent ones
	// are left out, and present ones kept even when empty or zero
	// (contentType "", priority 0), as a consumer receives them.
	Properties Properties `json:"properties"`
	// HeadersPresent says the headers property is present, even with no
	// header in it (a publisher's headers={}), as a consumer receives it.
	HeadersPresent bool `json:"headersPresent,omitempty"`
	// Headers are what a consumer would see, x-death and the
	// x-first-death-* / x-last-death-* headers of a dead-lettered message
	// included: x-death is an array of objects {queue, reason, count, time
	// (seconds), exchange, routing-keys, original-expiration?}, most
	// recent death first.
	Headers map[string]any `json:"headers"`
	// HeadersText has each header's value as show msg prints it
	// (engine.FormatTyped): JSON cannot tell the float 1.0 from the
	// integer 1, and a headers exchange compares values with their types,
	// so the page shows these texts rather than writing Headers itself.
	HeadersText map[string]string `json:"headersText"`
}

// Properties are the AMQP basic properties, headers aside: nil when
// absent, so that JSON leaves out exactly the absent ones.
type Properties struct {
	ContentType     *string `json:"contentType,omitempty"`
	ContentEncoding *string `json:"contentEncoding,omitempty"`
	DeliveryMode    *uint8  `json:"deliveryMode,omitempty"` // 2 is persistent
	Priority        *uint8  `json:"priority,omitempty"`
	CorrelationID   *string `json:"correlationId,omitempty"`
	ReplyTo         *string `json:"replyTo,omitempty"`
	Expiration      *string `json:"expiration,omitempty"` // per-message TTL, ms as text, exactly as published
	MessageID       *string `json:"messageId,omitempty"`
	Timestamp       *int64  `json:"timestamp,omitempty"` // seconds
	Type            *string `json:"type,omitempty"`
	UserID          *string `json:"userId,omitempty"`
	AppID           *string `json:"appId,omitempty"`
	ClusterID       *string `json:"clusterId,omitempty"`
}

// propertiesJSON gives each property present its value.
func propertiesJSON(p *engine.Properties, f engine.PropertyFlags) Properties {
	var out Properties
	if p == nil {
		return out
	}
	str := func(flag engine.PropertyFlags, v string) *string {
		if f&flag == 0 {
			return nil
		}
		return &v
	}
	octet := func(flag engine.PropertyFlags, v uint8) *uint8 {
		if f&flag == 0 {
			return nil
		}
		return &v
	}
	out.ContentType, out.ContentEncoding = str(engine.FlagContentType, p.ContentType), str(engine.FlagContentEncoding, p.ContentEncoding)
	out.DeliveryMode, out.Priority = octet(engine.FlagDeliveryMode, p.DeliveryMode), octet(engine.FlagPriority, p.Priority)
	out.CorrelationID, out.ReplyTo = str(engine.FlagCorrelationID, p.CorrelationID), str(engine.FlagReplyTo, p.ReplyTo)
	out.Expiration, out.MessageID = str(engine.FlagExpiration, p.Expiration), str(engine.FlagMessageID, p.MessageID)
	if f&engine.FlagTimestamp != 0 {
		ts := int64(p.Timestamp)
		out.Timestamp = &ts
	}
	out.Type, out.UserID = str(engine.FlagType, p.Type), str(engine.FlagUserID, p.UserID)
	out.AppID, out.ClusterID = str(engine.FlagAppID, p.AppID), str(engine.FlagClusterID, p.ClusterID)
	return out
}

func messageJSON(m *engine.Message) Message {
	body := m.Body
	headers := m.Headers()
	out := Message{ID: m.ID, BodyBytes: len(body), Exchange: m.Exchange, RoutingKey: m.RoutingKey, Headers: tableJSON(headers), HeadersText: tableText(headers)}
	if len(body) > MaxBodyBytes {
		body = body[:MaxBodyBytes]
		if i := lastRuneStart(body); !utf8.FullRune(body[i:]) {
			body = body[:i] // do not cut a character in two
		}
		out.BodyTruncated = true
	}
	out.Body = strings.ToValidUTF8(string(body), "\uFFFD")
	f := m.PropertyFlags()
	out.Properties = propertiesJSON(m.Props, f)
	out.HeadersPresent = f&engine.FlagHeaders != 0
	return out
}

// lastRuneStart returns the index where the last (possibly partial)
// UTF-8 sequence of b starts.
func lastRuneStart(b []byte) int {
	i := len(b) - 1
	for i > 0 && len(b)-i < utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

// tableJSON converts an AMQP field table into values encoding/json writes
// without loss or failure; nil becomes an empty object.
func tableJSON(t engine.Table) map[string]any {
	out := make(map[string]any, len(t))
	for k, v := range t {
		out[k] = valueJSON(v)
	}
	return out
}

// tableText writes each value of an AMQP field table as engine.FormatTyped
// does; nil becomes an empty object.
func tableText(t engine.Table) map[string]string {
	out := make(map[string]string, len(t))
	for k, v := range t {
		out[k] = engine.FormatTyped(v)
	}
	return out
}

// valueJSON converts one field-table value: integers to int64, floats to
// float64 (text when not finite, which JSON cannot hold), a timestamp to
// its seconds, bytes to text, tables and arrays recursively, and anything
// else to engine.FormatValue's text.
func valueJSON(v any) any {
	switch x := v.(type) {
	case nil, bool, string:
		return x
	case int8:
		return int64(x)
	case uint8:
		return int64(x)
	case int16:
		return int64(x)
	case uint16:
		return int64(x)
	case int32:
		return int64(x)
	case uint32:
		return int64(x)
	case int64:
		return x
	case int:
		return int64(x)
	case float32:
		return floatJSON(float64(x), v)
	case float64:
		return floatJSON(x, v)
	case engine.Timestamp:
		return int64(x)
	case []byte:
		return strings.ToValidUTF8(string(x), "\uFFFD")
	case engine.Table:
		return tableJSON(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = valueJSON(e)
		}
		return out
	}
	return engine.FormatValue(v)
}

func floatJSON(f float64, v any) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return engine.FormatValue(v)
	}
	return f
}
