package bridge

import (
	"strconv"

	"warren/engine"
)

// Snapshot is engine.Snapshot as JavaScript draws it.
type Snapshot struct {
	Now    int64   `json:"now"`
	Vhosts []Vhost `json:"vhosts"` // sorted by name; "/" always exists
	// Timers lists the first MaxTimersShown armed timers, soonest first;
	// TimerCount counts them all.
	Timers     []Timer `json:"timers"`
	TimerCount int     `json:"timerCount"`
}

// Vhost is one vhost's topology and contents.
type Vhost struct {
	Name             string       `json:"name"`
	Exchanges        []Exchange   `json:"exchanges"` // by name; the default exchange is ""
	Bindings         []Binding    `json:"bindings"`
	Queues           []Queue      `json:"queues"` // by name
	Policies         []Policy     `json:"policies"`
	OperatorPolicies []Policy     `json:"operatorPolicies"`
	Connections      []Connection `json:"connections"`
}

// Exchange describes an exchange and, for x-delayed-message, the messages
// it holds.
type Exchange struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Durable    bool           `json:"durable"`
	AutoDelete bool           `json:"autoDelete"`
	Internal   bool           `json:"internal"`
	Args       map[string]any `json:"args"`
	Alternate  string         `json:"alternate,omitempty"`
	HeldCount  int            `json:"heldCount"`
	Held       []HeldMessage  `json:"held"` // the first MaxMessagesShown, soonest release first as the engine lists them
}

// HeldMessage is a message a delayed exchange routes at ReleaseAt.
type HeldMessage struct {
	Message
	ReleaseAt int64 `json:"releaseAt"`
}

// Binding routes from an exchange to a queue or another exchange.
type Binding struct {
	Source          string         `json:"source"`
	Destination     string         `json:"destination"`
	DestinationType string         `json:"destinationType"` // "queue" or "exchange"
	RoutingKey      string         `json:"routingKey"`
	Args            map[string]any `json:"args"`
}

// Queue describes a queue, its effective settings and its messages.
type Queue struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"` // "classic" or "quorum"
	Durable    bool           `json:"durable"`
	Exclusive  bool           `json:"exclusive"`
	AutoDelete bool           `json:"autoDelete"`
	Args       map[string]any `json:"args"` // as declared
	Effective  Settings       `json:"effective"`
	// ReadyCount is how many messages are ready; Ready lists the first
	// MaxMessagesShown of them in delivery order, head first.
	ReadyCount int            `json:"readyCount"`
	ReadyBytes int64          `json:"readyBytes"`
	Ready      []ReadyMessage `json:"ready"`
	Unacked    int            `json:"unacked"`
	// Expired counts ready messages past their TTL that still wait behind
	// a live head: a classic queue expires messages only at its head (the
	// Caveats of RabbitMQ's TTL guide).
	Expired   int        `json:"expired"`
	Consumers []Consumer `json:"consumers"` // by tag
}

// Settings are a queue's effective limits after its arguments and the
// policies that apply; null means unset (unlimited).
type Settings struct {
	MessageTTLMs         *int64  `json:"messageTtlMs"`
	ExpiresMs            *int64  `json:"expiresMs"`
	MaxLength            *int64  `json:"maxLength"`
	MaxLengthBytes       *int64  `json:"maxLengthBytes"`
	Overflow             string  `json:"overflow"` // drop-head, reject-publish, reject-publish-dlx
	DeadLetterExchange   *string `json:"deadLetterExchange"`
	DeadLetterRoutingKey *string `json:"deadLetterRoutingKey"`
	DeliveryLimit        *int64  `json:"deliveryLimit"` // quorum queues
	MaxPriority          *int    `json:"maxPriority"`   // null: no priorities
	Policy               string  `json:"policy"`        // "" when none applies
	OperatorPolicy       string  `json:"operatorPolicy"`
}

// ReadyMessage is a message copy ready in a queue.
type ReadyMessage struct {
	Message
	// Via is the binding that routed the copy to this queue, as the
	// enqueued event showed it.
	Via        *Via   `json:"via"`
	EnqueuedAt int64  `json:"enqueuedAt"`
	ExpiresAt  *int64 `json:"expiresAt"` // null without a TTL
	Priority   uint8  `json:"priority"`
	// Redelivered is true after the copy was delivered and returned;
	// Deliveries counts those deliveries.
	Redelivered bool `json:"redelivered"`
	Deliveries  int  `json:"deliveries"`
	// Expired is true when the TTL has passed but the copy waits behind a
	// live head (see Queue.Expired).
	Expired bool `json:"expired"`
}

// Consumer is a consumer on a queue, with its credit.
type Consumer struct {
	Tag       string `json:"tag"`
	Channel   string `json:"channel"` // script name of its channel
	NoAck     bool   `json:"noAck"`
	Exclusive bool   `json:"exclusive"`
	Priority  int64  `json:"priority"`
	Prefetch  int    `json:"prefetch"` // 0 is unlimited
	Unacked   int    `json:"unacked"`
	Active    bool   `json:"active"` // false for a waiting single-active consumer
	// HasCredit says whether prefetch (its own and its channel's) lets it
	// take another message now.
	HasCredit bool `json:"hasCredit"`
}

// Policy is a (user or operator) policy.
type Policy struct {
	Name       string         `json:"name"`
	Pattern    string         `json:"pattern"`
	ApplyTo    string         `json:"applyTo"`
	Priority   int            `json:"priority"`
	Definition map[string]any `json:"definition"`
}

// Connection is a client connection the script opened.
type Connection struct {
	ID       uint32    `json:"id"`
	Name     string    `json:"name"` // the script's connection name
	User     string    `json:"user"`
	Channels []Channel `json:"channels"`
}

// Channel is an open channel with its modes and unacked deliveries.
type Channel struct {
	Name           string   `json:"name"` // the script's name: "app", "c1", "c1.2"
	Number         uint16   `json:"number"`
	Confirm        bool     `json:"confirm"`
	Tx             bool     `json:"tx"`
	Prefetch       int      `json:"prefetch"`
	GlobalPrefetch int      `json:"globalPrefetch"`
	Consumers      []string `json:"consumers"` // tags
	PendingTx      int      `json:"pendingTx"` // publishes and acks awaiting tx commit
	// ReplyTo is the channel's direct reply-to address and ReplyConsumer
	// the tag of the consumer it reaches; both absent without one.
	ReplyTo       string `json:"replyTo,omitempty"`
	ReplyConsumer string `json:"replyConsumer,omitempty"`
	// UnackedCount is how many deliveries await an ack; Unacked lists the
	// first MaxMessagesShown, oldest first.
	UnackedCount int               `json:"unackedCount"`
	Unacked      []UnackedDelivery `json:"unacked"`
}

// UnackedDelivery is a delivery awaiting acknowledgement on its channel.
type UnackedDelivery struct {
	Message
	Via         *Via   `json:"via"` // the binding that routed the copy to Queue
	DeliveryTag uint64 `json:"deliveryTag"`
	Queue       string `json:"queue"`
	ConsumerTag string `json:"consumerTag"` // "" for basic.get
	DeliveredAt int64  `json:"deliveredAt"`
	Redelivered bool   `json:"redelivered"`
}

// Timer is an armed timer: what happens next, and when.
type Timer struct {
	At       int64  `json:"at"`
	Kind     string `json:"kind"` // message-ttl, queue-expires, delayed-release, consumer-timeout
	Vhost    string `json:"vhost"`
	Queue    string `json:"queue,omitempty"`    // message-ttl, queue-expires
	Exchange string `json:"exchange,omitempty"` // delayed-release
	Channel  string `json:"channel,omitempty"`  // consumer-timeout
	MsgID    uint64 `json:"msgId,omitempty"`    // the message that expires or is released
}

// channelName names a channel as the script does: CONN for channel 1 of
// connection CONN, CONN.N otherwise (see engine/script's Channels).
func channelName(conn string, num uint16) string {
	if num == 1 {
		return conn
	}
	return conn + "." + strconv.Itoa(int(num))
}

// connNames maps connection ids to the script's connection names.
type connNames map[engine.ConnID]string

func (n connNames) channel(id engine.ChannelID) string {
	if id.Conn == 0 {
		return ""
	}
	if name, ok := n[id.Conn]; ok {
		return channelName(name, id.Num)
	}
	return id.String()
}

func namesOf(s engine.Snapshot) connNames {
	n := connNames{}
	for _, v := range s.Vhosts {
		for _, c := range v.Connections {
			n[c.ID] = c.Name
		}
	}
	return n
}

func snapshotJSON(s engine.Snapshot) Snapshot {
	names := namesOf(s)
	out := Snapshot{Now: int64(s.Now), Vhosts: make([]Vhost, 0, len(s.Vhosts)), Timers: timersJSON(s.Timers, names), TimerCount: s.TimerCount}
	for _, v := range s.Vhosts {
		out.Vhosts = append(out.Vhosts, vhostJSON(v, names))
	}
	return out
}

func vhostJSON(v engine.VhostView, names connNames) Vhost {
	out := Vhost{Name: v.Name, Exchanges: make([]Exchange, 0, len(v.Exchanges)), Bindings: make([]Binding, 0, len(v.Bindings)),
		Queues: make([]Queue, 0, len(v.Queues)), Policies: policiesJSON(v.Policies), OperatorPolicies: policiesJSON(v.OperatorPolicies),
		Connections: make([]Connection, 0, len(v.Connections))}
	for _, x := range v.Exchanges {
		xj := Exchange{Name: x.Name, Type: x.Type, Durable: x.Durable, AutoDelete: x.AutoDelete, Internal: x.Internal,
			Args: tableJSON(x.Args), Alternate: x.Alternate, HeldCount: x.HeldCount, Held: make([]HeldMessage, 0, min(len(x.Held), MaxMessagesShown))}
		for _, h := range x.Held[:min(len(x.Held), MaxMessagesShown)] {
			xj.Held = append(xj.Held, HeldMessage{Message: messageJSON(h.Msg), ReleaseAt: int64(h.ReleaseAt)})
		}
		out.Exchanges = append(out.Exchanges, xj)
	}
	for _, b := range v.Bindings {
		typ := "queue"
		if b.DestinationIsExchange {
			typ = "exchange"
		}
		out.Bindings = append(out.Bindings, Binding{Source: b.Source, Destination: b.Destination, DestinationType: typ, RoutingKey: b.RoutingKey, Args: tableJSON(b.Args)})
	}
	for _, q := range v.Queues {
		out.Queues = append(out.Queues, queueJSON(q, names))
	}
	for _, c := range v.Connections {
		cj := Connection{ID: uint32(c.ID), Name: c.Name, User: c.User, Channels: make([]Channel, 0, len(c.Channels))}
		for _, ch := range c.Channels {
			cj.Channels = append(cj.Channels, channelJSON(ch, c.Name))
		}
		out.Connections = append(out.Connections, cj)
	}
	return out
}

func queueJSON(q engine.QueueView, names connNames) Queue {
	shown := q.Ready[:min(len(q.Ready), MaxMessagesShown)]
	out := Queue{Name: q.Name, Type: q.Type, Durable: q.Durable, Exclusive: q.Exclusive, AutoDelete: q.AutoDelete, Args: tableJSON(q.Args),
		Effective: settingsJSON(q.Effective), ReadyCount: q.ReadyCount, ReadyBytes: q.ReadyBytes, Ready: make([]ReadyMessage, 0, len(shown)),
		Unacked: q.Unacked, Expired: q.Expired, Consumers: make([]Consumer, 0, len(q.Consumers))}
	for _, r := range shown {
		out.Ready = append(out.Ready, ReadyMessage{Message: messageJSON(r.Msg), Via: viaJSON(r.Via), EnqueuedAt: int64(r.EnqueuedAt), ExpiresAt: timeOrNull(r.ExpiresAt),
			Priority: r.Priority, Redelivered: r.Redelivered, Deliveries: r.Deliveries, Expired: r.Expired})
	}
	for _, c := range q.Consumers {
		out.Consumers = append(out.Consumers, Consumer{Tag: c.Tag, Channel: names.channel(c.Channel), NoAck: c.NoAck, Exclusive: c.Exclusive,
			Priority: c.Priority, Prefetch: c.Prefetch, Unacked: c.Unacked, Active: c.Active, HasCredit: c.HasCredit})
	}
	return out
}

func settingsJSON(s engine.Settings) Settings {
	out := Settings{MessageTTLMs: setOrNull(s.MessageTTLMs), ExpiresMs: setOrNull(s.ExpiresMs), MaxLength: setOrNull(s.MaxLength),
		MaxLengthBytes: setOrNull(s.MaxLengthBytes), Overflow: s.Overflow, DeliveryLimit: setOrNull(s.DeliveryLimit),
		Policy: s.Policy, OperatorPolicy: s.OperatorPolicy}
	if s.HasDeadLetterExchange {
		out.DeadLetterExchange = &s.DeadLetterExchange
	}
	if s.HasDeadLetterRoutingKey {
		out.DeadLetterRoutingKey = &s.DeadLetterRoutingKey
	}
	if s.MaxPriority > 0 {
		out.MaxPriority = &s.MaxPriority
	}
	return out
}

func channelJSON(ch engine.ChannelView, conn string) Channel {
	shown := ch.Unacked[:min(len(ch.Unacked), MaxMessagesShown)]
	out := Channel{Name: channelName(conn, ch.ID.Num), Number: ch.ID.Num, Confirm: ch.Confirm, Tx: ch.Tx, Prefetch: ch.Prefetch,
		GlobalPrefetch: ch.GlobalPrefetch, Consumers: append(make([]string, 0, len(ch.Consumers)), ch.Consumers...),
		PendingTx: ch.PendingTx, ReplyTo: ch.ReplyTo, ReplyConsumer: ch.ReplyConsumer, UnackedCount: ch.UnackedCount, Unacked: make([]UnackedDelivery, 0, len(shown))}
	for _, u := range shown {
		out.Unacked = append(out.Unacked, UnackedDelivery{Message: messageJSON(u.Msg), Via: viaJSON(u.Via), DeliveryTag: u.DeliveryTag, Queue: u.Queue,
			ConsumerTag: u.ConsumerTag, DeliveredAt: int64(u.DeliveredAt), Redelivered: u.Redelivered})
	}
	return out
}

func policiesJSON(ps []engine.Policy) []Policy {
	out := make([]Policy, 0, len(ps))
	for _, p := range ps {
		out = append(out, Policy{Name: p.Name, Pattern: p.Pattern, ApplyTo: p.ApplyTo, Priority: p.Priority, Definition: tableJSON(p.Definition)})
	}
	return out
}

// timersJSON converts the first MaxTimersShown of ts.
func timersJSON(ts []engine.PendingTimer, names connNames) []Timer {
	ts = ts[:min(len(ts), MaxTimersShown)]
	out := make([]Timer, 0, len(ts))
	for _, t := range ts {
		out = append(out, timerJSON(t, names))
	}
	return out
}

func timerJSON(t engine.PendingTimer, names connNames) Timer {
	out := Timer{At: int64(t.At), Kind: t.Kind, Vhost: t.Vhost, Channel: names.channel(t.Channel), MsgID: t.MsgID}
	if t.Kind == "delayed-release" {
		out.Exchange = t.Queue // engine.PendingTimer names the exchange in Queue
	} else {
		out.Queue = t.Queue
	}
	return out
}

// setOrNull maps the engine's -1 ("unset") to null.
func setOrNull(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

// timeOrNull maps engine.Never to null.
func timeOrNull(t engine.Time) *int64 {
	if t == engine.Never {
		return nil
	}
	v := int64(t)
	return &v
}
