package engine

// Message is one published message as the broker holds it. A message routed
// to several queues is shared by them: it is never modified after routing.
// Dead-lettering makes a new Message with rewritten headers.
//
// The struct is kept small (it is the bulk of a queued message's memory):
// rarely used data lives behind extra.
type Message struct {
	ID         uint64 // engine-assigned, unique; dead-lettering assigns a new one
	Exchange   string // exchange it was last published (or dead-lettered) to
	RoutingKey string
	Props      *Properties // nil when the publisher set none
	Body       []byte
	extra      *msgExtra
}

// ttlMs returns the per-message TTL from the expiration property, or -1.
// It is parsed when needed rather than stored, which keeps Message in a
// smaller allocation size class; BasicPublish validated the property.
func (m *Message) ttlMs() int64 {
	if p := m.Props; p != nil && p.Expiration != "" {
		return expirationMs(p.Expiration)
	}
	return -1
}

// expirationMs parses a validated expiration property.
func expirationMs(s string) int64 {
	ttl, _ := parseExpiration(s)
	return ttl
}

// msgExtra holds what only some messages have.
type msgExtra struct {
	// keys are the routing keys added by CC and BCC headers; dead-lettering
	// without x-dead-letter-routing-key routes by all of them.
	keys []string
	// deaths is the x-death history, most recent first, kept structured
	// and rendered into headers on demand.
	deaths                                 []Death
	firstQueue, firstReason, firstExchange string
	// lastExchange is the exchange the message was published to before
	// its latest death. It can differ from deaths[0].Exchange, which keeps
	// the exchange of the first death for that (queue, reason).
	lastExchange string
}

// RoutingKeys returns every key the message is routed by: the publish key,
// then the CC and BCC keys.
func (m *Message) RoutingKeys() []string {
	if m.extra == nil || len(m.extra.keys) == 0 {
		return []string{m.RoutingKey}
	}
	return append([]string{m.RoutingKey}, m.extra.keys...)
}

// Size is the body size in bytes, the size x-max-length-bytes counts.
func (m *Message) Size() int { return len(m.Body) }

// Deaths returns the message's x-death history, most recent first.
func (m *Message) Deaths() []Death {
	if m.extra == nil {
		return nil
	}
	return m.extra.deaths
}

// Expiration returns the expiration property ("" if none).
func (m *Message) Expiration() string {
	if m.Props == nil {
		return ""
	}
	return m.Props.Expiration
}

// Priority returns the priority property (0 if none).
func (m *Message) Priority() uint8 {
	if m.Props == nil {
		return 0
	}
	return m.Props.Priority
}

// Headers returns the headers a consumer sees: the published headers plus,
// for a dead-lettered message, x-death, x-first-death-* and x-last-death-*.
// The result must not be modified.
func (m *Message) Headers() Table {
	var h Table
	if m.Props != nil {
		h = m.Props.Headers
	}
	if m.extra == nil || len(m.extra.deaths) == 0 {
		return h
	}
	out := make(Table, len(h)+7)
	for k, v := range h {
		out[k] = v
	}
	ds := m.extra.deaths
	arr := make([]any, len(ds))
	for i, d := range ds {
		arr[i] = d.Table()
	}
	out["x-death"] = arr
	out["x-first-death-queue"] = m.extra.firstQueue
	out["x-first-death-reason"] = m.extra.firstReason
	out["x-first-death-exchange"] = m.extra.firstExchange
	out["x-last-death-queue"] = ds[0].Queue
	out["x-last-death-reason"] = ds[0].Reason
	out["x-last-death-exchange"] = m.extra.lastExchange
	return out
}

// Table renders the entry as RabbitMQ puts it in the x-death array.
func (d Death) Table() Table {
	keys := make([]any, len(d.RoutingKeys))
	for i, k := range d.RoutingKeys {
		keys[i] = k
	}
	t := Table{
		"queue":        d.Queue,
		"reason":       d.Reason,
		"count":        d.Count,
		"time":         d.Time,
		"exchange":     d.Exchange,
		"routing-keys": keys,
	}
	if d.OriginalExpiration != "" {
		t["original-expiration"] = d.OriginalExpiration
	}
	return t
}

// Death is one x-death entry: the message died in Queue for Reason; Count
// counts deaths for that (queue, reason) pair.
type Death struct {
	Queue              string
	Reason             string
	Count              int64
	Time               Timestamp // seconds
	Exchange           string
	RoutingKeys        []string
	OriginalExpiration string // set when the message had a per-message TTL
}

// Dead-letter reasons, as they appear in x-death.
const (
	ReasonRejected      = "rejected"
	ReasonExpired       = "expired"
	ReasonMaxLen        = "maxlen"
	ReasonDeliveryLimit = "delivery_limit"
)
