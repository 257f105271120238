package amqp

// Properties are the content properties of class basic, carried by a
// content header frame. Flags records which properties were present on the
// wire, because presence matters: RabbitMQ rejects an expiration that is
// present but empty (406, "invalid expiration" ... "no_integer"), while an
// absent one means no expiry.
//
//	bit (Flags)  property          type
//	15  0x8000   content-type      shortstr
//	14  0x4000   content-encoding  shortstr
//	13  0x2000   headers           table
//	12  0x1000   delivery-mode     octet
//	11  0x0800   priority          octet
//	10  0x0400   correlation-id    shortstr
//	 9  0x0200   reply-to          shortstr
//	 8  0x0100   expiration        shortstr
//	 7  0x0080   message-id        shortstr
//	 6  0x0040   timestamp         timestamp
//	 5  0x0020   type              shortstr
//	 4  0x0010   user-id           shortstr
//	 3  0x0008   app-id            shortstr
//	 2  0x0004   cluster-id        shortstr
//
// Decoding sets Flags to exactly the properties present. Encoding writes a
// property when its flag is set or its value is not the zero value, so a
// server can fill in fields without managing flags; to remove a property,
// zero it and clear its flag.
type Properties struct {
	ContentType     string
	ContentEncoding string
	Headers         Table
	DeliveryMode    uint8 // 1 transient, 2 persistent
	Priority        uint8
	CorrelationID   string
	ReplyTo         string
	Expiration      string // per-message TTL in milliseconds, as decimal text
	MessageID       string
	Timestamp       Timestamp
	Type            string
	UserID          string
	AppID           string
	ClusterID       string
	Flags           uint16
}

// The property flags, one bit per property in Properties.Flags.
const (
	FlagContentType     uint16 = 0x8000
	FlagContentEncoding uint16 = 0x4000
	FlagHeaders         uint16 = 0x2000
	FlagDeliveryMode    uint16 = 0x1000
	FlagPriority        uint16 = 0x0800
	FlagCorrelationID   uint16 = 0x0400
	FlagReplyTo         uint16 = 0x0200
	FlagExpiration      uint16 = 0x0100
	FlagMessageID       uint16 = 0x0080
	FlagTimestamp       uint16 = 0x0040
	FlagType            uint16 = 0x0020
	FlagUserID          uint16 = 0x0010
	FlagAppID           uint16 = 0x0008
	FlagClusterID       uint16 = 0x0004

	// propertyFlags are the bits that name a property. The two low bits
	// (bit 1, unused, and bit 0, which the spec says announces a further
	// flag word) are ignored, as RabbitMQ's generated decoder ignores them
	// (observed, RabbitMQ 3.10.8: flags 0x0001 or 0x0002 alone are
	// accepted; 0x0001 followed by a second flag word is refused, the
	// word being bytes after the last property).
	propertyFlags = 0xfffc
)

// Has reports whether the property with the given flag was present.
func (p *Properties) Has(flag uint16) bool { return p.Flags&flag != 0 }

// contentHeaderSize is the fixed part of a header payload: class-id,
// weight, body-size, property-flags.
const contentHeaderSize = 2 + 2 + 8 + 2

// DecodeContentHeader decodes a content header frame's payload. It does not
// check the weight field (always 0 in 0-9-1); the Assembler does, with
// RabbitMQ's error. Properties are decoded as class basic's, the only
// class with content. Errors are *Error with code 501, ClassID and MethodID
// zero; the Assembler fills in the method the content belongs to.
func DecodeContentHeader(payload []byte) (classID uint16, bodySize uint64, props Properties, err error) {
	if len(payload) < contentHeaderSize-2 {
		return 0, 0, Properties{}, cannotDecode(0, 0, payload)
	}
	d := decoder{b: payload}
	classID = d.uint16()
	d.uint16() // weight
	bodySize = d.uint64()
	props, err = decodeProperties(payload[12:])
	return classID, bodySize, props, err
}

// decodeProperties decodes the property flags and the properties present.
func decodeProperties(p []byte) (Properties, error) {
	// A header must carry the flag word, even with no properties: one
	// that ends before it is malformed (RabbitMQ 3.10.8's channel crashes
	// on it, 541 INTERNAL_ERROR; here it is the 501 of the other
	// undecodable headers, "cannot decode <<>>").
	d := decoder{b: p}
	var props Properties
	flags := d.uint16()
	props.Flags = flags & propertyFlags
	if flags&FlagContentType != 0 {
		props.ContentType = d.shortstr()
	}
	if flags&FlagContentEncoding != 0 {
		props.ContentEncoding = d.shortstr()
	}
	if flags&FlagHeaders != 0 {
		props.Headers = d.table()
	}
	if flags&FlagDeliveryMode != 0 {
		props.DeliveryMode = d.uint8()
	}
	if flags&FlagPriority != 0 {
		props.Priority = d.uint8()
	}
	if flags&FlagCorrelationID != 0 {
		props.CorrelationID = d.shortstr()
	}
	if flags&FlagReplyTo != 0 {
		props.ReplyTo = d.shortstr()
	}
	if flags&FlagExpiration != 0 {
		props.Expiration = d.shortstr()
	}
	if flags&FlagMessageID != 0 {
		props.MessageID = d.shortstr()
	}
	if flags&FlagTimestamp != 0 {
		props.Timestamp = d.timestamp()
	}
	if flags&FlagType != 0 {
		props.Type = d.shortstr()
	}
	if flags&FlagUserID != 0 {
		props.UserID = d.shortstr()
	}
	if flags&FlagAppID != 0 {
		props.AppID = d.shortstr()
	}
	if flags&FlagClusterID != 0 {
		props.ClusterID = d.shortstr()
	}
	if d.failed || d.remaining() != 0 {
		if d.reason != "" {
			return Properties{}, newError(FrameError, 0, 0, "cannot decode content header: %s", d.reason)
		}
		return Properties{}, cannotDecode(0, 0, p)
	}
	return props, nil
}

// AppendContentHeader appends a content header payload (not a frame; see
// AppendContentHeaderFrame) announcing bodySize bytes of content.
func AppendContentHeader(b []byte, classID uint16, bodySize uint64, p Properties) ([]byte, error) {
	b = appendUint16(b, classID)
	b = appendUint16(b, 0) // weight
	b = appendUint64(b, bodySize)
	flags := p.presentFlags()
	b = appendUint16(b, flags)
	var err error
	str := func(flag uint16, s, name string) {
		if err == nil && flags&flag != 0 {
			b, err = appendShortstr(b, s, name)
		}
	}
	str(FlagContentType, p.ContentType, "content-type")
	str(FlagContentEncoding, p.ContentEncoding, "content-encoding")
	if err == nil && flags&FlagHeaders != 0 {
		b, err = AppendTable(b, p.Headers)
	}
	if flags&FlagDeliveryMode != 0 {
		b = append(b, p.DeliveryMode)
	}
	if flags&FlagPriority != 0 {
		b = append(b, p.Priority)
	}
	str(FlagCorrelationID, p.CorrelationID, "correlation-id")
	str(FlagReplyTo, p.ReplyTo, "reply-to")
	str(FlagExpiration, p.Expiration, "expiration")
	str(FlagMessageID, p.MessageID, "message-id")
	if flags&FlagTimestamp != 0 {
		b = appendTimestamp(b, p.Timestamp)
	}
	str(FlagType, p.Type, "type")
	str(FlagUserID, p.UserID, "user-id")
	str(FlagAppID, p.AppID, "app-id")
	str(FlagClusterID, p.ClusterID, "cluster-id")
	return b, err
}

// presentFlags is Flags plus the flag of every property with a value.
func (p *Properties) presentFlags() uint16 {
	f := p.Flags & propertyFlags
	set := func(flag uint16, present bool) {
		if present {
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
