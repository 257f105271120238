package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// BasicPublish is basic.publish with its content.
type BasicPublish struct {
	Exchange   string
	RoutingKey string
	Mandatory  bool
	Immediate  bool
	Props      *Properties
	Body       []byte
}

func (b *Broker) basicPublish(id ChannelID, p *BasicPublish) error {
	ch, err := b.channelFor(id, MethodBasicPublish)
	if err != nil {
		return err
	}
	m := MethodBasicPublish
	v := ch.conn.vhost
	if p.Immediate {
		return b.fail(ch, connectionErr(NotImplemented, m, "immediate=true"))
	}
	x, e := ch.publishTarget(p.Exchange)
	if e != nil {
		return b.fail(ch, e)
	}
	// Direct reply-to (replyto.go): a request's reply_to is rewritten and
	// a reply goes straight to its consumer, in rabbit_channel's order.
	if p.Props != nil && p.Props.ReplyTo == ReplyToQueue {
		rewritten := *p // the command keeps what the client sent
		if e := ch.rewriteReplyTo(&rewritten); e != nil {
			return b.fail(ch, e)
		}
		p = &rewritten
	}
	if p.Exchange == "" && strings.HasPrefix(p.RoutingKey, replyToPrefix) {
		return b.publishReply(ch, p)
	}
	if lim := b.cfg.MaxMessagesPerVhost; lim > 0 && v.ready.msgs >= lim {
		return b.fail(ch, channelErr(PreconditionFailed, m, "message limit in vhost '%s' (%d) is reached", v.name, lim))
	}
	// rabbit_channel's order (observed, RabbitMQ 3.10.8): the topic
	// permission on the routing key, then user-id, then the message's
	// own checks (a user-id not the user's is refused before an empty
	// expiration or a delivery mode of 0), then the CC and BCC keys'
	// topic permissions, which need the message's headers read.
	if ch.pubTopic != nil {
		if e := ch.conn.permittedTopic(ch.pubTopic, accessWrite, x, p.RoutingKey, m); e != nil {
			return b.fail(ch, e)
		}
	}
	if e := ch.conn.checkUserID(p.Props); e != nil {
		return b.fail(ch, e)
	}
	msg, e := b.newMessage(p)
	if e != nil {
		return b.fail(ch, e)
	}
	if ch.pubTopic != nil && msg.extra != nil {
		for _, k := range msg.extra.keys {
			if e := ch.conn.permittedTopic(ch.pubTopic, accessWrite, x, k, m); e != nil {
				return b.fail(ch, e)
			}
		}
	}
	seq := ch.nextPublishSeq()
	if ch.tx {
		ch.txPubs = append(ch.txPubs, txPublish{x: x, msg: msg, mandatory: p.Mandatory})
		return nil
	}
	b.publish(ch, x, msg, p.Mandatory, seq)
	b.flush()
	return nil
}

// publishTarget is the exchange a publish on ch goes to, after the checks
// rabbit_channel makes first: write permission before the exchange's
// existence, then internal. The connection's permissions are fixed, so an
// exchange in pubX has passed them: a publisher pays for the check once
// per exchange, as RabbitMQ's channel caches it.
func (ch *channel) publishTarget(name string) (*exchange, *Error) {
	m := MethodBasicPublish
	v := ch.conn.vhost
	x := ch.pubX
	if x == nil || x.name != name || x.deleted {
		if e := ch.conn.permitted(accessWrite, "exchange", name, m); e != nil {
			return nil, e
		}
		var ok bool
		if x, ok = v.exchanges[name]; !ok {
			return nil, channelErr(NotFound, m, "no %s", rs("exchange", name, v.name))
		}
		ch.pubX, ch.pubTopic = x, ch.conn.topicGrant(x)
	}
	if x.internal {
		return nil, channelErr(AccessRefused, m, "cannot publish to internal %s", rs("exchange", x.name, v.name))
	}
	return x, nil
}

// newMessage validates a publish's properties and builds the Message: the
// routing key and the short-string properties must fit (see shortstr.go),
// expiration must be a non-negative integer string (RabbitMQ's
// parse_expiration), a delivery mode 1 or 2, CC and BCC must be arrays, and BCC is removed so that
// no consumer ever sees it.
func (b *Broker) newMessage(p *BasicPublish) (*Message, *Error) {
	if problem := shortStringLength(p.RoutingKey); problem != "" {
		return nil, badName(MethodBasicPublish, "routing key", p.RoutingKey, problem)
	}
	msg := &Message{Exchange: p.Exchange, RoutingKey: p.RoutingKey, Props: p.Props, Body: p.Body}
	if p.Props == nil {
		msg.ID = b.newMsgID()
		return msg, nil
	}
	if e := checkPropertyLengths(p.Props); e != nil {
		return nil, e
	}
	if p.Props.Expiration != "" || p.Props.Present&FlagExpiration != 0 {
		// Present but empty is refused too (observed, RabbitMQ 3.10.8:
		// 406 "invalid expiration '': no_integer").
		if _, term := parseExpiration(p.Props.Expiration); term != "" {
			return nil, channelErr(PreconditionFailed, MethodBasicPublish, "invalid expiration '%s': %s", p.Props.Expiration, term)
		}
	}
	if dm := p.Props.DeliveryMode; (dm != 0 || p.Props.Present&FlagDeliveryMode != 0) && dm != 1 && dm != 2 {
		// A delivery mode present is 1 or 2 (observed, RabbitMQ 3.10.8:
		// 0, 3 and 255 are 406 "invalid message:
		// {delivery_mode_unknown,N}").
		return nil, channelErr(PreconditionFailed, MethodBasicPublish, "invalid message: {delivery_mode_unknown,%d}", dm)
	}
	var extra []string
	for _, h := range []string{"CC", "BCC"} {
		v, ok := p.Props.Headers[h]
		if !ok {
			continue
		}
		arr, isArr := v.([]any)
		if !isArr {
			// rabbit_basic:header_routes/1 throws, and rabbit_channel
			// prints the term (observed, RabbitMQ 3.10.8).
			return nil, channelErr(PreconditionFailed, MethodBasicPublish, "invalid message: {unacceptable_type_in_header,\"%s\",%s}", h, typeName(v))
		}
		for _, k := range arr {
			if s, ok := k.(string); ok {
				extra = append(extra, s)
			}
		}
	}
	if len(extra) > 0 {
		msg.extra = &msgExtra{keys: extra}
	}
	if _, ok := p.Props.Headers["BCC"]; ok {
		props := *p.Props
		props.Headers = make(Table, len(p.Props.Headers))
		for k, v := range p.Props.Headers {
			if k != "BCC" {
				props.Headers[k] = v
			}
		}
		msg.Props = &props
	}
	msg.ID = b.newMsgID()
	return msg, nil
}

// parseExpiration is rabbit_basic:parse_expiration/1: Erlang's
// string:to_integer on the property, which must consume the whole string
// (an optional sign, then digits), and a value from 0 to ten years in
// milliseconds. It returns the TTL or the error term as RabbitMQ prints it
// after "invalid expiration '...': " (observed, RabbitMQ 3.10.8).
func parseExpiration(s string) (int64, string) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, "no_integer"
	}
	if j < len(s) {
		return 0, fmt.Sprintf("{leftover_string,%q}", s[j:])
	}
	// Erlang integers have no size limit: print the number as Erlang
	// does (no plus sign, no leading zeros) and compare it by length
	// first, so that a value beyond int64 is "too large", not "no integer".
	digits := strings.TrimLeft(s[i:j], "0")
	if digits == "" {
		return 0, ""
	}
	neg := s[0] == '-'
	num := digits
	if neg {
		num = "-" + digits
	}
	tag := ""
	if len(digits) > 18 {
		tag = "value_too_large"
		if neg {
			tag = "value_negative"
		}
	} else if n, _ := strconv.ParseInt(num, 10, 64); n < 0 {
		tag = "value_negative"
	} else if n > maxExpiryMs {
		tag = "value_too_large"
	} else {
		return n, ""
	}
	// The term is printed with ~p at the column after the prefix; Erlang's
	// pretty printer breaks a tuple that does not fit in 80 columns
	// (observed: a 19-digit expiration gives "{value_too_large,\n" plus
	// 43 spaces and the number).
	col := len("invalid expiration '") + len([]rune(s)) + len("': ") + 1
	term := "{" + tag + "," + num + "}"
	if len(term) >= 80-col {
		term = "{" + tag + ",\n" + strings.Repeat(" ", col) + num + "}"
	}
	return 0, term
}

// publish routes an accepted message and settles its confirm. An
// unroutable message is returned when mandatory; otherwise RabbitMQ drops
// it without a word (amqp0-9-1.xml, basic.publish mandatory: "If this flag
// is zero, the server silently drops the message"), and the Dropped event
// says so, since a learner cannot see a silence. A message a
// delayed-message exchange holds is neither.
func (b *Broker) publish(ch *channel, x *exchange, msg *Message, mandatory bool, seq uint64) {
	v := x.vhost
	ev := b.emitted(EvPublished)
	ev.Vhost, ev.Channel, ev.Exchange, ev.RoutingKey, ev.MsgID, ev.Msg, ev.DeliveryTag = v.name, ch.id, x.name, msg.RoutingKey, msg.ID, msg, seq
	delayed := b.delayedCount
	targets := b.route(x, msg, msg.RoutingKeys(), b.queueScratch[:0])
	b.queueScratch = targets[:0]
	if len(targets) == 0 {
		if mandatory {
			b.emit(Event{Kind: EvReturned, Vhost: v.name, Channel: ch.id, Exchange: x.name, RoutingKey: msg.RoutingKey, MsgID: msg.ID, Msg: msg,
				Code: NoRoute, Text: "NO_ROUTE"})
		} else if b.delayedCount == delayed {
			b.emit(Event{Kind: EvDropped, Vhost: v.name, Channel: ch.id, Exchange: x.name, MsgID: msg.ID, Msg: msg, Cause: DropUnroutable})
		}
	}
	// A delayed-message exchange keeps what it holds across a restart
	// (restart.go), so its confirm waits for the disk too.
	accepted, kept := true, b.delayedCount != delayed
	for _, t := range targets {
		if !t.q.offer(msg, t.via) {
			accepted = false
		} else if t.q.keeps(msg) {
			kept = true
		}
	}
	if seq != 0 {
		kind := EvConfirmed
		if !accepted {
			kind = EvNacked
		}
		b.emit(Event{Kind: kind, Vhost: v.name, Channel: ch.id, DeliveryTag: seq, Durable: kept && accepted})
	}
}

// keeps says whether the queue keeps m across a restart: a durable queue
// keeps persistent (delivery-mode 2) messages (persistence.md), and a
// quorum queue, always durable, keeps every message it holds whatever its
// delivery mode (quorum-queues.md). A driver with a disk makes such a
// message's confirm wait until it is written (confirms.md: for persistent
// messages routed to durable queues, the ack means the message was
// persisted to disk).
func (q *queue) keeps(m *Message) bool {
	return q.quorum || (q.durable && m.Props != nil && m.Props.DeliveryMode == 2)
}

// nextPublishSeq numbers a publish for confirms: 1, 2, ... in confirm mode,
// 0 (no confirm) otherwise.
func (ch *channel) nextPublishSeq() uint64 {
	if !ch.confirm {
		return 0
	}
	ch.publishSeq++
	return ch.publishSeq
}
