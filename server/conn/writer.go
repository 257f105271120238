package conn

import (
	"time"
	"unicode/utf8"

	"warren/engine"
	"warren/server/amqp"
)

// startHeartbeats starts both halves of heartbeating once the connection
// is open: the writer sends, the reader watches for the client's.
func (c *conn) startHeartbeats() {
	c.r.watchLiveness(c.t, c.heartbeat)
	select {
	case c.hbStart <- c.heartbeat:
	default:
	}
}

// writer drains the outbox into frames. It sends a heartbeat every half
// negotiated interval whatever else goes out, so a client never waits
// longer than that for one, and closes the transport after an item marked
// closeAfter (a refused login, the protocol header, a server shutdown, the
// close-ok to a close before connection.open).
func (c *conn) writer() {
	var (
		chunks []*outChunk
		frames [][]byte
		buf    []byte
		hb     *time.Ticker
		hbC    <-chan time.Time
	)
	defer func() {
		if hb != nil {
			hb.Stop()
		}
	}()
	for {
		select {
		case <-c.out.notify:
		case sec := <-c.hbStart:
			if sec > 0 {
				hb = time.NewTicker(time.Duration(sec) * time.Second / 2)
				hbC = hb.C
			}
			continue
		case <-hbC:
			if err := c.t.WriteFrames([][]byte{heartbeatFrame}); err != nil {
				return
			}
			continue
		}
		chunks, _ = c.out.take(chunks)
		coalesceConfirms(chunks)
		frames, buf = frames[:0], buf[:0]
		closeNow := false
		flush := func() bool {
			if len(frames) == 0 {
				return true
			}
			if err := c.t.WriteFrames(frames); err != nil {
				c.t.Close()
				return false
			}
			frames, buf = frames[:0], buf[:0]
			return true
		}
	items:
		for _, ch := range chunks {
			for i := range ch.items[:ch.n] {
				it := &ch.items[i]
				if it.skip {
					continue
				}
				if it.raw != nil {
					// The protocol header is not a frame: send it as it is.
					frames = append(frames, it.raw)
					if it.closeAfter {
						closeNow = true
						break items
					}
					continue
				}
				start := len(buf)
				var err error
				if buf, err = c.encode(buf, it); err != nil {
					// Nothing the server builds should fail to encode; if it
					// does, end the connection rather than send garbage.
					c.t.Close()
					return
				}
				frames = splitFrames(frames, buf[start:])
				if it.closeAfter {
					closeNow = true
					break items
				}
				// A long backlog goes out in writes of about writeBatch
				// bytes: the buffer stays small and the first deliveries
				// leave before the last are encoded.
				if len(buf) >= writeBatch && !flush() {
					return
				}
			}
		}
		if !flush() {
			return
		}
		if closeNow {
			c.t.Close()
			return
		}
		if c.pausedFlag.Load() && c.out.size() < c.cfg.OutboxHighWater/4 {
			go c.resume()
		}
		if c.out.drained() {
			return
		}
	}
}

// coalesceConfirms folds each run of publisher confirms (basic.ack) for
// consecutive delivery tags on one channel, next to each other in the
// outbox, into the run's last ack with multiple=true, as RabbitMQ
// coalesces confirms: a client pipelining publishes then reads one frame
// for many. It is sound because the engine settles a channel's publishes
// in order, so when tag t is confirmed every earlier tag has been acked or
// nacked already; and the ack that stays is the last, so a basic.return
// still precedes the ack of its message.
func coalesceConfirms(chunks []*outChunk) {
	var prev *outItem
	for _, ch := range chunks {
		for i := range ch.items[:ch.n] {
			it := &ch.items[i]
			if it.ev.Kind == engine.EvConfirmed && prev != nil && prev.ev.Kind == engine.EvConfirmed &&
				prev.channel == it.channel && prev.ev.DeliveryTag+1 == it.ev.DeliveryTag && !prev.closeAfter {
				prev.skip = true
				it.ev.Multiple = true
			}
			prev = it
		}
	}
}

// heartbeatFrame is the heartbeat frame: type 8 on channel 0, no payload.
var heartbeatFrame = amqp.AppendFrame(nil, amqp.FrameHeartbeat, 0, nil)

// writeBatch is about how many bytes the writer encodes before it writes.
const writeBatch = 128 << 10

// splitFrames appends each whole frame in b to frames (b holds complete
// frames back to back).
func splitFrames(frames [][]byte, b []byte) [][]byte {
	for len(b) >= 8 {
		size := int(b[3])<<24 | int(b[4])<<16 | int(b[5])<<8 | int(b[6])
		n := 7 + size + 1
		frames = append(frames, b[:n:n])
		b = b[n:]
	}
	return frames
}

// encode appends the frames for one outbox item.
func (c *conn) encode(b []byte, it *outItem) ([]byte, error) {
	if it.raw != nil {
		return append(b, it.raw...), nil
	}
	if it.ev.Kind != 0 {
		return c.encodeEvent(b, it.channel, &it.ev)
	}
	b, err := amqp.AppendMethodFrame(b, it.channel, it.method)
	if err != nil || it.props == nil {
		return b, err
	}
	return amqp.AppendContent(b, it.channel, it.method.ClassID(), *it.props, it.body, c.frameMax)
}

// writerMethods are the writer's reusable method values (see conn.wm).
type writerMethods struct {
	deliver amqp.BasicDeliver
	getOk   amqp.BasicGetOk
	ret     amqp.BasicReturn
	ack     amqp.BasicAck
	nack    amqp.BasicNack
}

func (c *conn) encodeEvent(b []byte, ch uint16, ev *engine.Event) ([]byte, error) {
	var m amqp.Method
	w := &c.wm
	switch ev.Kind {
	case engine.EvDelivered:
		if ev.ConsumerTag != "" {
			w.deliver = amqp.BasicDeliver{ConsumerTag: ev.ConsumerTag, DeliveryTag: ev.DeliveryTag, Redelivered: ev.Redelivered, Exchange: ev.Exchange, RoutingKey: ev.RoutingKey}
			m = &w.deliver
		} else {
			w.getOk = amqp.BasicGetOk{DeliveryTag: ev.DeliveryTag, Redelivered: ev.Redelivered, Exchange: ev.Exchange, RoutingKey: ev.RoutingKey, MessageCount: uint32(ev.Count)}
			m = &w.getOk
		}
	case engine.EvReturned:
		w.ret = amqp.BasicReturn{ReplyCode: uint16(ev.Code), ReplyText: shortText(ev.Text), Exchange: ev.Exchange, RoutingKey: ev.RoutingKey}
		m = &w.ret
	case engine.EvConfirmed:
		w.ack = amqp.BasicAck{DeliveryTag: ev.DeliveryTag, Multiple: ev.Multiple}
		return amqp.AppendMethodFrame(b, ch, &w.ack)
	case engine.EvNacked:
		// RabbitMQ's nacks carry requeue=true (observed, 3.10.8).
		w.nack = amqp.BasicNack{DeliveryTag: ev.DeliveryTag, Multiple: ev.Multiple, Requeue: true}
		return amqp.AppendMethodFrame(b, ch, &w.nack)
	default:
		return b, nil
	}
	b, err := amqp.AppendMethodFrame(b, ch, m)
	if err != nil {
		return b, err
	}
	props := wireProps(ev.Msg)
	if ev.HasDeliveryCount && (ev.DeliveryCount > 0 || ev.ConsumerTag == "") {
		// Quorum queues tell consumers how often a message came back,
		// once it has, and basic.get always, 0 the first time (observed,
		// RabbitMQ 3.10.8; 4.x sets it on redeliveries only).
		h := make(amqp.Table, len(props.Headers)+1)
		for k, v := range props.Headers {
			h[k] = v
		}
		h["x-delivery-count"] = int64(ev.DeliveryCount)
		props.Headers = h
		props.Flags |= amqp.FlagHeaders
	}
	return amqp.AppendContent(b, ch, amqp.ClassBasic, props, ev.Msg.Body, c.frameMax)
}

// shortText fits a reply text in a shortstr (255 bytes), as RabbitMQ
// truncates long ones; the cut falls between characters, so that a text
// naming a queue in UTF-8 stays UTF-8.
func shortText(s string) string {
	if len(s) <= 255 {
		return s
	}
	n := 252
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
