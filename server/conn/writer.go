package conn

import (
	"time"

	"warren/engine"
	"warren/server/amqp"
)

// startHeartbeats tells the writer the negotiated heartbeat interval.
func (c *conn) startHeartbeats() {
	select {
	case c.hbStart <- c.heartbeat:
	default:
	}
}

// writer drains the outbox into frames. It sends a heartbeat when nothing
// else went out for half the negotiated interval, and closes the transport
// after an item marked closeAfter (a connection.close or close-ok).
func (c *conn) writer() {
	var (
		items   []outItem
		frames  [][]byte
		buf     []byte
		hb      *time.Ticker
		hbC     <-chan time.Time
		lastOut = time.Now()
		hbEvery time.Duration
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
				hbEvery = time.Duration(sec) * time.Second / 2
				hb = time.NewTicker(hbEvery)
				hbC = hb.C
			}
			continue
		case <-hbC:
			if time.Since(lastOut) >= hbEvery {
				if err := c.t.WriteFrames([][]byte{amqp.AppendFrame(nil, amqp.FrameHeartbeat, 0, nil)}); err != nil {
					return
				}
				lastOut = time.Now()
			}
			continue
		}
		items, _ = c.out.take(items[:0])
		frames, buf = frames[:0], buf[:0]
		closeNow := false
		for _, it := range items {
			start := len(buf)
			buf = c.encode(buf, it)
			frames = splitFrames(frames, buf[start:])
			if it.closeAfter {
				closeNow = true
				break
			}
		}
		if len(frames) > 0 {
			if err := c.t.WriteFrames(frames); err != nil {
				c.t.Close()
				return
			}
			lastOut = time.Now()
		}
		clear(items)
		if closeNow {
			c.t.Close()
			return
		}
		if c.pausedFlag.Load() && c.out.size() < c.cfg.OutboxHighWater/4 {
			go c.resume()
		}
		c.out.mu.Lock()
		closed := c.out.closed && len(c.out.items) == 0
		c.out.mu.Unlock()
		if closed {
			return
		}
	}
}

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
func (c *conn) encode(b []byte, it outItem) []byte {
	if it.raw != nil {
		return append(b, it.raw...)
	}
	if it.ev != nil {
		return c.encodeEvent(b, it.channel, it.ev)
	}
	b, err := amqp.AppendMethodFrame(b, it.channel, it.method)
	if err != nil {
		panic("conn: encoding " + it.method.Name() + ": " + err.Error())
	}
	if it.props != nil {
		if b, err = amqp.AppendContent(b, it.channel, it.method.ClassID(), *it.props, it.body, c.frameMax); err != nil {
			panic("conn: encoding content: " + err.Error())
		}
	}
	return b
}

func (c *conn) encodeEvent(b []byte, ch uint16, ev *engine.Event) []byte {
	var m amqp.Method
	switch ev.Kind {
	case engine.EvDelivered:
		if ev.ConsumerTag != "" {
			m = &amqp.BasicDeliver{ConsumerTag: ev.ConsumerTag, DeliveryTag: ev.DeliveryTag, Redelivered: ev.Redelivered, Exchange: ev.Exchange, RoutingKey: ev.RoutingKey}
		} else {
			m = &amqp.BasicGetOk{DeliveryTag: ev.DeliveryTag, Redelivered: ev.Redelivered, Exchange: ev.Exchange, RoutingKey: ev.RoutingKey, MessageCount: uint32(ev.Count)}
		}
	case engine.EvReturned:
		m = &amqp.BasicReturn{ReplyCode: uint16(ev.Code), ReplyText: ev.Text, Exchange: ev.Exchange, RoutingKey: ev.RoutingKey}
	case engine.EvConfirmed:
		b, _ = amqp.AppendMethodFrame(b, ch, &amqp.BasicAck{DeliveryTag: ev.DeliveryTag, Multiple: ev.Multiple})
		return b
	case engine.EvNacked:
		b, _ = amqp.AppendMethodFrame(b, ch, &amqp.BasicNack{DeliveryTag: ev.DeliveryTag, Multiple: ev.Multiple, Requeue: true})
		return b
	default:
		return b
	}
	b, err := amqp.AppendMethodFrame(b, ch, m)
	if err != nil {
		panic("conn: encoding " + m.Name() + ": " + err.Error())
	}
	b, err = amqp.AppendContent(b, ch, 60, wireProps(ev.Msg), ev.Msg.Body, c.frameMax)
	if err != nil {
		panic("conn: encoding content: " + err.Error())
	}
	return b
}
