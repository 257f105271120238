package bridge

import (
	"warren/engine"
	"warren/engine/script"
)

// Event is one engine event as JavaScript sees it: the fields of
// engine.Event that its trace line shows, under camelCase names. A field is
// present exactly when the trace line has it, so zero fields are absent,
// except that exchange and routingKey are present (possibly "") wherever
// the trace always prints them (published, dead-lettered, returned, bound).
// Channels are named as the script names them ("app", "c1.2"). Trace is the
// line itself, for an event log that wants the text.
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
	Trace       string  `json:"trace"`
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
	ev := Event{Kind: e.Kind.String(), Time: int64(e.Time), Vhost: e.Vhost, Queue: e.Queue, Name: e.Name,
		MsgID: e.MsgID, NewMsgID: e.NewMsgID, Consumer: e.ConsumerTag, DeliveryTag: e.DeliveryTag, Multiple: e.Multiple,
		Redelivered: e.Redelivered, NoAck: e.NoAck, Reason: e.Reason, Code: e.Code, Text: e.Text, Count: e.Count,
		At: int64(e.At), Trace: r.EventLine(e)}
	if ev.Vhost == "" {
		ev.Vhost = "/"
	}
	if e.Channel.Conn != 0 {
		ev.Channel = r.ChannelName(e.Channel)
	}
	switch e.Kind {
	case engine.EvPublished, engine.EvDeadLettered, engine.EvReturned:
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
