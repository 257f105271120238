package bridge

import (
	"strings"

	"warren/engine"
	"warren/engine/script"
)

// Event is one engine event as JavaScript sees it: the fields of
// engine.Event that its trace line shows, under camelCase names. A field is
// present exactly when the trace line has it, so zero fields are absent,
// except that exchange and routingKey are present (possibly "") wherever
// the trace always prints them (published, dead-lettered, returned, bound,
// and a dropped event with no queue: a message that reached none).
// Channels are named as the script names them ("app", "c1.2"). Trace is the
// line itself, for an event log that wants the text.
//
// The engine's multi-purpose fields (name, reason, text, count, at) are
// present under their generic names, and again under the name the trace
// gives them for the kind (type, features, destination, argsText, policy,
// operatorPolicy, priority, remaining, deliveries, overflow, cause,
// expiresAt, releaseAt): read the specific one.
type Event struct {
	Kind        string  `json:"kind"`  // engine.EventKind word: "enqueued", "dead-lettered", ...
	Time        int64   `json:"time"`  // virtual ms when it happened
	Vhost       string  `json:"vhost"` // "/" unless the trace names another
	Channel     string  `json:"channel,omitempty"`
	Exchange    *string `json:"exchange,omitempty"`
	Queue       string  `json:"queue,omitempty"`
	Name        string  `json:"name,omitempty"` // policy, binding destination, other names
	RoutingKey  *string `json:"routingKey,omitempty"`
	MsgID       uint64  `json:"msgId,omitempty"`
	NewMsgID    uint64  `json:"newMsgId,omitempty"` // dead-lettered: the copy republished to the DLX
	Consumer    string  `json:"consumer,omitempty"` // consumer tag
	DeliveryTag uint64  `json:"deliveryTag,omitempty"`
	Multiple    bool    `json:"multiple,omitempty"`
	Redelivered bool    `json:"redelivered,omitempty"`
	NoAck       bool    `json:"noAck,omitempty"`
	Reason      string  `json:"reason,omitempty"` // dead-letter reason ("expired", "rejected", "maxlen", ...), drop cause
	Code        int     `json:"code,omitempty"`   // AMQP reply code (returned, channel.closed, ...)
	Text        string  `json:"text,omitempty"`   // reply text or detail
	Count       int     `json:"count,omitempty"`
	At          int64   `json:"at,omitempty"` // expiry or release deadline, virtual ms

	Type            string `json:"type,omitempty"`            // exchange.declared: the exchange type
	Features        string `json:"features,omitempty"`        // exchange/queue.declared: "durable x-message-ttl=5000 ..."
	Destination     string `json:"destination,omitempty"`     // bound, unbound: the queue or exchange bound
	DestinationType string `json:"destinationType,omitempty"` // bound, unbound: "queue" or "exchange"
	ArgsText        string `json:"argsText,omitempty"`        // bound, unbound: the binding arguments as the trace prints them
	Policy          string `json:"policy,omitempty"`          // queue.policy: the policy now applying
	OperatorPolicy  string `json:"operatorPolicy,omitempty"`  // queue.policy: the operator policy now applying
	Priority        int    `json:"priority,omitempty"`        // consumer.added: the consumer's x-priority
	Remaining       int    `json:"remaining,omitempty"`       // delivered by basic.get: messages left (get-ok's message-count)
	Deliveries      int    `json:"deliveries,omitempty"`      // delivery-limited: deliveries the copy had
	Overflow        string `json:"overflow,omitempty"`        // overflowed: the overflow mode that acted
	Cause           string `json:"cause,omitempty"`           // dropped: why nothing took the message ("routed to no queue", ...)
	ExpiresAt       *int64 `json:"expiresAt,omitempty"`       // enqueued: the copy's expiry deadline, virtual ms
	ReleaseAt       *int64 `json:"releaseAt,omitempty"`       // delayed: when the exchange routes the message, virtual ms
	Via             *Via   `json:"via,omitempty"`             // enqueued: the binding that routed the copy to queue

	Trace string `json:"trace"`
}

// Via is the binding that routed a copy to its queue (engine.Via).
type Via struct {
	Exchange  string         `json:"exchange"`            // the binding's source; "" for the default exchange
	Type      string         `json:"type"`                // how exchange routes: direct, fanout, topic, headers
	Key       string         `json:"key"`                 // the binding key (topic pattern; the queue's name for the default exchange)
	Args      map[string]any `json:"args,omitempty"`      // headers bindings: the arguments that matched
	ArgsText  string         `json:"argsText,omitempty"`  // Args as the trace writes them, types told apart (engine.FormatTyped)
	Alternate bool           `json:"alternate,omitempty"` // reached through an alternate exchange
	Text      string         `json:"text"`                // as the trace prints it: "x:*.orange.*", "(default):q", "logs"
}

func viaJSON(v *engine.Via) *Via {
	if v == nil {
		return nil
	}
	out := &Via{Exchange: v.Exchange, Type: v.Type, Key: v.Key, Alternate: v.Alternate, Text: v.String()}
	if v.Args != nil {
		out.Args, out.ArgsText = tableJSON(v.Args), engine.FormatTyped(v.Args)
	}
	return out
}

// eventsOf converts the runner's events for the last line into the JSON
// shape, in order, within the budget. The implicit opening of connections
// and channels is left out, as the trace leaves it out.
func eventsOf(r *script.Runner, b *budget) (events []Event, truncated bool) {
	events = []Event{} // never null in JSON
	for _, e := range r.LastEvents() {
		if e.Kind == engine.EvConnectionOpened || e.Kind == engine.EvChannelOpened {
			continue
		}
		if !b.event() {
			return events, true
		}
		events = append(events, toEvent(r, e))
	}
	return events, false
}

func toEvent(r *script.Runner, e engine.Event) Event {
	channel := ""
	if e.Channel.Conn != 0 {
		channel = r.ChannelName(e.Channel)
	}
	return eventOf(e, r.EventLine(e), channel)
}

// eventOf converts e, whose trace line is trace and whose channel's
// script name is channel ("" for none).
func eventOf(e engine.Event, trace, channel string) Event {
	ev := Event{Kind: e.Kind.String(), Time: int64(e.Time), Vhost: e.Vhost, Queue: e.Queue,
		MsgID: e.MsgID, NewMsgID: e.NewMsgID, Consumer: e.ConsumerTag, DeliveryTag: e.DeliveryTag, Multiple: e.Multiple,
		Redelivered: e.Redelivered, NoAck: e.NoAck, Code: e.Code,
		At: int64(e.At), Trace: trace, Channel: channel}
	if ev.Vhost == "" {
		ev.Vhost = "/"
	}
	named(&ev, e)
	switch {
	case e.Kind == engine.EvPublished, e.Kind == engine.EvDeadLettered, e.Kind == engine.EvReturned, e.Kind == engine.EvDropped && e.Queue == "":
		x := e.Exchange
		ev.Exchange = &x
	default:
		if e.Exchange != "" {
			x := e.Exchange
			ev.Exchange = &x
		}
	}
	switch e.Kind {
	case engine.EvPublished, engine.EvBound, engine.EvUnbound, engine.EvReturned:
		k := e.RoutingKey
		ev.RoutingKey = &k
	default:
		if e.RoutingKey != "" {
			k := e.RoutingKey
			ev.RoutingKey = &k
		}
	}
	return ev
}

// named fills the fields named for what they hold in e's kind, and the
// generic ones (name, reason, text, count) as the page has read them since
// engine.Event's fields each got one meaning: for these kinds they repeat
// the specific field, as they did when the engine's Event carried them
// under its generic names.
func named(ev *Event, e engine.Event) {
	at := func() *int64 {
		if e.At == 0 {
			return nil
		}
		t := int64(e.At)
		return &t
	}
	d := e.Detail
	if d == nil {
		d = &engine.EventDetail{}
	}
	ev.Type, ev.Features = d.ExchangeType, d.Features
	ev.ArgsText = d.Args
	ev.Policy, ev.OperatorPolicy = d.Policy, d.OperatorPolicy
	ev.Priority, ev.Remaining, ev.Deliveries = d.Priority, e.Remaining, e.Deliveries
	ev.Overflow, ev.Cause = e.Overflow, e.Cause
	if d.Destination != "" {
		ev.Destination, ev.DestinationType = d.Destination, "queue"
		if d, ok := strings.CutPrefix(d.Destination, "exchange:"); ok {
			ev.Destination, ev.DestinationType = d, "exchange"
		}
	}
	switch e.Kind {
	case engine.EvEnqueued:
		ev.ExpiresAt, ev.Via = at(), viaJSON(e.Via)
	case engine.EvDelayed:
		ev.ReleaseAt = at()
	}
	ev.Name = first(e.Name, d.Destination, d.Policy)
	ev.Reason = first(e.Reason, d.ExchangeType, e.Overflow)
	ev.Text = first(e.Text, d.Features, d.Definition, d.Args, d.OperatorPolicy, e.Cause)
	for _, n := range [...]int{e.Operations, d.Priority, e.Remaining, e.Deliveries} {
		if n != 0 {
			ev.Count = n
			break
		}
	}
}

// first returns the first of vs that is not empty.
func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
