package engine

// Properties are the AMQP basic content properties. A property is present
// when its flag is set in Present or its value is not the zero value: a
// non-zero value cannot have come from an absent property, so callers
// that build Properties by hand need set flags only for the properties
// they mean to send empty or zero (the rule engine/amqp's encoder follows
// too). Presence matters to clients: RabbitMQ 3.10.8 hands a consumer
// priority=0, timestamp=0, content_type="" or headers={} exactly as
// published, and a client reading headers[...] of absent headers fails.
//
// Strings are empty, and numbers 0, when absent; AMQP treats a missing
// priority as 0, and so does RabbitMQ, so the engine's rules read the
// values alone. ClusterID is deprecated in 0-9-1 but RabbitMQ carries it.
type Properties struct {
	ContentType     string
	ContentEncoding string
	Headers         Table
	DeliveryMode    uint8
	Priority        uint8
	// Present marks the properties that were present, zero or empty
	// included; see Flags for the ones a consumer receives. A driver
	// copies AMQP's flags here, and Load and DecodeCommand set every
	// present property's flag, so Present == Flags() for them.
	Present       PropertyFlags
	CorrelationID string
	ReplyTo       string
	Expiration    string
	MessageID     string
	Timestamp     Timestamp
	Type          string
	UserID        string
	AppID         string
	ClusterID     string
}

// PropertyFlags is a set of basic properties, with AMQP's property-flags
// bits (the content header's flag word), so a driver copies it both ways.
type PropertyFlags uint16

// The property flags, bit 15 first, in the order AMQP writes properties.
const (
	FlagContentType     PropertyFlags = 0x8000
	FlagContentEncoding PropertyFlags = 0x4000
	FlagHeaders         PropertyFlags = 0x2000
	FlagDeliveryMode    PropertyFlags = 0x1000
	FlagPriority        PropertyFlags = 0x0800
	FlagCorrelationID   PropertyFlags = 0x0400
	FlagReplyTo         PropertyFlags = 0x0200
	FlagExpiration      PropertyFlags = 0x0100
	FlagMessageID       PropertyFlags = 0x0080
	FlagTimestamp       PropertyFlags = 0x0040
	FlagType            PropertyFlags = 0x0020
	FlagUserID          PropertyFlags = 0x0010
	FlagAppID           PropertyFlags = 0x0008
	FlagClusterID       PropertyFlags = 0x0004

	// AllPropertyFlags holds every property of class basic.
	AllPropertyFlags PropertyFlags = 0xfffc
)

// Flags returns the properties present: those marked in Present and those
// with a non-zero value. A nil p has none.
func (p *Properties) Flags() PropertyFlags {
	if p == nil {
		return 0
	}
	return p.Present&AllPropertyFlags | p.nonZero()
}

// nonZero returns the flags of the properties whose value is not zero.
func (p *Properties) nonZero() PropertyFlags {
	var f PropertyFlags
	set := func(flag PropertyFlags, nonZero bool) {
		if nonZero {
			f |= flag
		}
	}
	set(FlagContentType, p.ContentType != "")
	set(FlagContentEncoding, p.ContentEncoding != "")
	set(FlagHeaders, p.Headers != nil)
	set(FlagDeliveryMode, p.DeliveryMode != 0)
	set(FlagPriority, p.Priority != 0)
	set(FlagCorrelationID, p.CorrelationID != "")
	set(FlagReplyTo, p.ReplyTo != "")
	set(FlagExpiration, p.Expiration != "")
	set(FlagMessageID, p.MessageID != "")
	set(FlagTimestamp, p.Timestamp != 0)
	set(FlagType, p.Type != "")
	set(FlagUserID, p.UserID != "")
	set(FlagAppID, p.AppID != "")
	set(FlagClusterID, p.ClusterID != "")
	return f
}

// Has reports whether the property with the given flag is present (see
// Flags). A nil p has none.
func (p *Properties) Has(flag PropertyFlags) bool { return p.Flags()&flag != 0 }

// PropertyFlags returns the properties a consumer receives: the message's
// own, and headers once dead-lettering has added x-death (RabbitMQ adds
// the headers property to a message published without one).
func (m *Message) PropertyFlags() PropertyFlags {
	f := m.Props.Flags()
	if m.extra != nil && len(m.extra.deaths) > 0 {
		f |= FlagHeaders
	}
	return f
}
