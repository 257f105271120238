package engine

import (
	"strconv"
	"strings"
)

// EventKind says what happened. Its String form is the word used in traces
// and in the browser's event log.
type EventKind uint8

// Event kinds. Message-copy lifecycle: a copy is created by Enqueued and
// ended by exactly one of Acked, Expired, Rejected, Overflowed,
// DeliveryLimited, Purged, Discarded or an auto-acked Delivered (NoAck).
// Requeued returns an unacked copy to ready. DeadLettered and Dropped describe
// what happened next to a copy that died; Dropped with no Queue is a message
// its exchange routed to no queue (Text DropUnroutable, or why). Restarted
// marks a restart (restart.go); the events that follow tell what it did.
const (
	EvNone EventKind = iota
	EvVhostAdded
	EvVhostDeleted
	EvConnectionOpened
	EvConnectionClosed
	EvChannelOpened
	EvChannelClosed
	EvExchangeDeclared
	EvExchangeDeleted
	EvQueueDeclared
	EvQueueDeleted
	EvBound
	EvUnbound
	EvPolicySet
	EvPolicyCleared
	EvQueuePolicyChanged
	EvConsumerAdded
	EvConsumerCancelled
	EvConsumerActivated
	EvPublished
	EvDelayed
	EvEnqueued
	EvReturned
	EvConfirmed
	EvNacked
	EvDelivered
	EvAcked
	EvRequeued
	EvRejected
	EvExpired
	EvOverflowed
	EvDeliveryLimited
	EvPurged
	EvDiscarded
	EvDeadLettered
	EvDropped
	EvTxCommitted
	EvTxRolledBack
	EvRestarted
	evKindCount
)

var eventNames = [...]string{
	EvNone:               "none",
	EvVhostAdded:         "vhost.added",
	EvVhostDeleted:       "vhost.deleted",
	EvConnectionOpened:   "connection.opened",
	EvConnectionClosed:   "connection.closed",
	EvChannelOpened:      "channel.opened",
	EvChannelClosed:      "channel.closed",
	EvExchangeDeclared:   "exchange.declared",
	EvExchangeDeleted:    "exchange.deleted",
	EvQueueDeclared:      "queue.declared",
	EvQueueDeleted:       "queue.deleted",
	EvBound:              "bound",
	EvUnbound:            "unbound",
	EvPolicySet:          "policy.set",
	EvPolicyCleared:      "policy.cleared",
	EvQueuePolicyChanged: "queue.policy",
	EvConsumerAdded:      "consumer.added",
	EvConsumerCancelled:  "consumer.cancelled",
	EvConsumerActivated:  "consumer.activated",
	EvPublished:          "published",
	EvDelayed:            "delayed",
	EvEnqueued:           "enqueued",
	EvReturned:           "returned",
	EvConfirmed:          "confirmed",
	EvNacked:             "nacked",
	EvDelivered:          "delivered",
	EvAcked:              "acked",
	EvRequeued:           "requeued",
	EvRejected:           "rejected",
	EvExpired:            "expired",
	EvOverflowed:         "overflowed",
	EvDeliveryLimited:    "delivery-limited",
	EvPurged:             "purged",
	EvDiscarded:          "discarded",
	EvDeadLettered:       "dead-lettered",
	EvDropped:            "dropped",
	EvTxCommitted:        "tx.committed",
	EvTxRolledBack:       "tx.rolledback",
	EvRestarted:          "restarted",
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "event(" + strconv.Itoa(int(k)) + ")"
}

// EventKindByName maps a trace word back to its kind (for the script
// language's assertions).
func EventKindByName(name string) (EventKind, bool) {
	for k, n := range eventNames {
		if n == name {
			return EventKind(k), true
		}
	}
	return EvNone, false
}

// ChannelID names a channel: its connection and channel number, as on the
// wire. The zero value means "no channel" (the broker itself acted).
type ChannelID struct {
	Conn ConnID
	Num  uint16
}

// ConnID is an engine-assigned connection number, starting at 1.
type ConnID uint32

func (c ChannelID) String() string {
	if c.Conn == 0 {
		return ""
	}
	return strconv.Itoa(int(c.Conn)) + "/" + strconv.Itoa(int(c.Num))
}

// Event is one state change. Fields not relevant to a kind are zero. Events
// are values so that appending them does not allocate per event.
type Event struct {
	Kind    EventKind
	Time    Time
	Vhost   string
	Channel ChannelID

	Exchange   string // exchange concerned (published to, dead-lettered to, declared ...)
	Queue      string
	RoutingKey string
	Msg        *Message // the message copy concerned (shared, read-only)
	MsgID      uint64
	NewMsgID   uint64 // dead-lettered: the id of the message republished to the DLX

	ConsumerTag string
	DeliveryTag uint64
	Multiple    bool
	Redelivered bool
	NoAck       bool
	// HasDeliveryCount marks a delivery from a quorum queue, which carries
	// an x-delivery-count header: DeliveryCount is how many times the copy
	// was returned before.
	HasDeliveryCount bool
	DeliveryCount    int32

	// Reason is why it happened: a dead-letter reason (dead-lettered, and
	// dropped for a dead-lettered copy), why a queue was deleted, a
	// consumer cancelled or a delivery discarded, "delay-elapsed" for a
	// delayed message published.
	Reason string
	Code   int    // reply code (returned, channel/connection closed)
	Method Method // the method that caused a channel or connection close
	Text   string // reply text (returned, channel/connection closed)
	// Operations is, for tx.committed and tx.rolledback, how many
	// publishes and acknowledgements the transaction held. (Named apart
	// from the Count that once also meant get-ok's message count, so that
	// a reader of that old meaning fails to compile: it is Remaining now.)
	Operations int
	At         Time   // the deadline: when an enqueued copy expires, a delayed message is released
	Name       string // the connection's name (connection.opened), the policy's (policy.set, policy.cleared)

	Overflow   string // overflowed: the overflow mode that acted
	Cause      string // dropped: why nothing took the message (DropUnroutable, ...)
	Remaining  int    // delivered by basic.get: the messages left (get-ok's message-count)
	Deliveries int    // delivery-limited: the deliveries the copy had
	// Detail describes the object of a declaration, binding, policy or
	// consumer event; nil for every other kind.
	Detail *EventDetail
	// Via is, for Enqueued, the binding that routed the copy to Queue
	// (shared, read-only).
	Via *Via
	// Durable marks a Confirmed publish that some queue keeps across a
	// restart (queue.keeps): a driver that writes the command log to
	// disk sends its confirm only once the publish is on disk.
	Durable bool
}

// EventDetail is what exchange.declared, queue.declared, bound, unbound,
// policy.set, queue.policy and consumer.added say about their object.
// It is kept apart so that the events of the message flow, copied by
// value into every driver's buffers, stay small; these events are rare.
type EventDetail struct {
	ExchangeType   string // exchange.declared: direct, fanout, topic, headers, x-delayed-message
	Features       string // exchange.declared, queue.declared: "durable x-message-ttl=5000 ..."
	Definition     string // policy.set: the policy's kind, pattern, apply-to, priority and definition
	Destination    string // bound, unbound: the queue, or "exchange:" and the exchange
	Args           string // bound, unbound: the binding's arguments, as FormatValue writes them
	Policy         string // queue.policy: the policy now applying to the queue
	OperatorPolicy string // queue.policy: the operator policy now applying to the queue
	Priority       int    // consumer.added: the consumer's x-priority
}

// DropUnroutable is the Cause of a Dropped event for a message routed to no
// queue: a non-mandatory publish, a dead-lettered copy its dead-letter
// exchange could not route, a delayed message released to no binding.
const DropUnroutable = "routed to no queue"

// atName is the trace's name for At in kind k.
func (k EventKind) atName() string {
	switch k {
	case EvEnqueued:
		return "expires"
	case EvDelayed:
		return "release"
	}
	return "at"
}

// String renders the event as one trace line: "kind key=value ...", with
// fields in a fixed order and zero fields omitted.
func (e Event) String() string {
	var sb strings.Builder
	sb.WriteString(e.Kind.String())
	kv := func(k, v string) {
		sb.WriteByte(' ')
		sb.WriteString(k)
		sb.WriteByte('=')
		sb.WriteString(quoteIfNeeded(v))
	}
	if e.Vhost != "" && e.Vhost != "/" {
		kv("vhost", e.Vhost)
	}
	if e.Channel.Conn != 0 {
		kv("ch", e.Channel.String())
	}
	if e.Exchange != "" || e.Kind == EvPublished || e.Kind == EvDeadLettered || e.Kind == EvReturned || e.Kind == EvDropped && e.Queue == "" {
		kv("x", e.Exchange)
	}
	if e.Queue != "" {
		kv("q", e.Queue)
	}
	d := e.Detail
	if d == nil {
		d = &EventDetail{}
	}
	if e.Name != "" {
		kv("name", e.Name)
	}
	if d.Destination != "" {
		kv("dest", d.Destination)
	}
	if d.Policy != "" {
		kv("policy", d.Policy)
	}
	if e.RoutingKey != "" || e.Kind == EvPublished || e.Kind == EvBound || e.Kind == EvUnbound || e.Kind == EvReturned {
		kv("key", e.RoutingKey)
	}
	if e.MsgID != 0 {
		kv("msg", strconv.FormatUint(e.MsgID, 10))
	}
	if e.NewMsgID != 0 {
		kv("new", strconv.FormatUint(e.NewMsgID, 10))
	}
	if e.Via != nil {
		sb.WriteString(" via=")
		sb.WriteString(e.Via.String()) // quoted part by part
		if e.Via.Alternate {
			kv("alternate", "true")
		}
	}
	if e.ConsumerTag != "" {
		kv("consumer", e.ConsumerTag)
	}
	if e.DeliveryTag != 0 {
		kv("tag", strconv.FormatUint(e.DeliveryTag, 10))
	}
	if e.Multiple {
		kv("multiple", "true")
	}
	if e.Redelivered {
		kv("redelivered", "true")
	}
	if e.NoAck {
		kv("noack", "true")
	}
	if e.Reason != "" {
		kv("reason", e.Reason)
	}
	if d.ExchangeType != "" {
		kv("type", d.ExchangeType)
	}
	if e.Overflow != "" {
		kv("overflow", e.Overflow)
	}
	if e.Code != 0 {
		kv("code", strconv.Itoa(e.Code))
	}
	for _, f := range [...]struct{ k, v string }{{"text", e.Text}, {"features", d.Features}, {"text", d.Definition},
		{"args", d.Args}, {"operator-policy", d.OperatorPolicy}, {"cause", e.Cause}} {
		if f.v != "" {
			kv(f.k, f.v)
		}
	}
	for _, f := range [...]struct {
		k string
		v int
	}{{"count", e.Operations}, {"priority", d.Priority}, {"remaining", e.Remaining}, {"deliveries", e.Deliveries}} {
		if f.v != 0 {
			kv(f.k, strconv.Itoa(f.v))
		}
	}
	if e.At != 0 {
		kv(e.Kind.atName(), FormatDuration(int64(e.At)))
	}
	return sb.String()
}

func quoteIfNeeded(s string) string {
	if s == "" {
		return `""`
	}
	if strings.ContainsAny(s, " \t\"'=") {
		return strconv.Quote(s)
	}
	return s
}
