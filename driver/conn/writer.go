package conn

import (
	"time"

	"warren/engine"
	"warren/engine/amqp"
	"warren/engine/amqpconn"
)

// startHeartbeats starts both halves of heartbeating once the connection
// is open: the writer sends, the reader watches for the client's.
func (c *conn) startHeartbeats() {
	c.r.watchLiveness(c.t, c.m.SilenceLimitMs())
	select {
	case c.hbStart <- c.m.HeartbeatEveryMs():
	default:
	}
}

// writer drains the outbox into frames. It sends a heartbeat every half
// negotiated interval whatever else goes out, so a client never waits
// longer than that for one, and closes the transport after an item marked
// closeAfter (a refused login, the protocol header, a server shutdown, the
// close-ok to a close before connection.open). The connection's own
// goroutine writes too, when it can without waiting (writeInline); wmu
// keeps the two apart.
func (c *conn) writer() {
	var (
		hb  *time.Ticker
		hbC <-chan time.Time
	)
	defer func() {
		if hb != nil {
			hb.Stop()
		}
	}()
	for {
		select {
		case <-c.out.notify:
		case everyMs := <-c.hbStart:
			if everyMs > 0 {
				hb = time.NewTicker(time.Duration(everyMs) * time.Millisecond)
				hbC = hb.C
			}
			continue
		case <-hbC:
			if err := c.t.WriteFrames([][]byte{heartbeatFrame}); err != nil {
				return
			}
			continue
		}
		c.wmu.Lock()
		if !c.ws.ended {
			c.drain(nil)
		}
		ended := c.ws.ended
		c.wmu.Unlock()
		if ended || c.out.drained() {
			return
		}
	}
}

// writeState belongs to whoever writes, the writer or the connection's
// goroutine, under conn.wmu: the buffers reused from one write to the
// next, and whether writing is over.
type writeState struct {
	chunks []*outChunk
	frames [][]byte
	buf    []byte
	// ended: the connection's last frame has gone (closeAfter) or a
	// write failed; the transport is closed or closing and nothing more
	// is written.
	ended bool
	// closeLater: writeInline met a closeAfter item but the socket had
	// not taken everything before it; the writer closes once it has.
	closeLater bool
	// wm are the method values reused for every event encoded, so a
	// delivery or a confirm allocates no method struct.
	wm writerMethods
}

// drain takes what the outbox holds and writes it. With try nil it may
// wait for the socket, writing a long backlog in pieces of about
// writeBatch bytes (the writer). With a try writer it writes without
// waiting, all in one (writeInline), and reports whether bytes were left
// for the writer to send. The caller holds wmu.
func (c *conn) drain(try TryWriter) (blocked bool) {
	w := &c.ws
	if w.closeLater {
		c.t.WriteFrames(nil) // what TryWrite left, before the close
		c.t.Close()
		w.ended = true
		return false
	}
	w.chunks, _ = c.out.take(w.chunks)
	// The chunks go back to the pool once written: a connection that
	// has gone quiet holds none.
	defer func() {
		w.chunks = recycle(w.chunks)
		c.out.written()
	}()
	coalesceConfirms(w.chunks)
	w.frames, w.buf = w.frames[:0], w.buf[:0]
	closeNow := false
	flush := func() bool {
		var err error
		if try != nil {
			if len(w.buf) > 0 {
				blocked, err = try.TryWrite(w.buf)
			}
		} else {
			// Always: a TCP transport may hold bytes a TryWrite left.
			err = c.t.WriteFrames(w.frames)
		}
		if err != nil {
			c.t.Close()
			w.ended = true
			return false
		}
		w.frames, w.buf = w.frames[:0], w.buf[:0]
		return true
	}
items:
	for _, ch := range w.chunks {
		for i := range ch.items[:ch.n] {
			it := &ch.items[i]
			if it.skip {
				continue
			}
			if it.raw != nil && try == nil {
				// The protocol header is not a frame: send it as it is.
				w.frames = append(w.frames, it.raw)
				if it.closeAfter {
					closeNow = true
					break items
				}
				continue
			}
			start := len(w.buf)
			var err error
			if w.buf, err = c.encode(w.buf, it); err != nil {
				// Nothing the server builds should fail to encode; if it
				// does, end the connection rather than send garbage.
				c.t.Close()
				w.ended = true
				return false
			}
			if try == nil {
				w.frames = splitFrames(w.frames, w.buf[start:])
			}
			if it.closeAfter {
				closeNow = true
				break items
			}
			// A long backlog goes out in writes of about writeBatch
			// bytes: the buffer stays small and the first deliveries
			// leave before the last are encoded.
			if try == nil && len(w.buf) >= writeBatch && !flush() {
				return false
			}
		}
	}
	if !flush() {
		return false
	}
	if closeNow {
		if blocked {
			w.closeLater = true
		} else {
			c.t.Close()
			w.ended = true
		}
	}
	c.out.written()
	if c.pausedFlag.Load() && c.out.size() < c.cfg.OutboxHighWater/4 {
		c.wake.wake() // the owner resumes the connection (drive.go's backlog)
	}
	return blocked
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
	return amqp.AppendMethodFrame(b, it.channel, it.method)
}

// writerMethods are the writer's reusable method values (see conn.wm).
type writerMethods struct {
	deliver amqp.BasicDeliver
	getOk   amqp.BasicGetOk
	ret     amqp.BasicReturn
	ack     amqp.BasicAck
	nack    amqp.BasicNack
}

func (c *conn) encodeEvent(b []byte, ch uint16, ev *amqpconn.EventFrames) ([]byte, error) {
	var m amqp.Method
	w := &c.ws.wm
	switch ev.Kind {
	case engine.EvDelivered:
		if ev.ConsumerTag != "" {
			w.deliver = amqp.BasicDeliver{ConsumerTag: ev.ConsumerTag, DeliveryTag: ev.DeliveryTag, Redelivered: ev.Redelivered, Exchange: ev.Exchange, RoutingKey: ev.RoutingKey}
			m = &w.deliver
		} else {
			w.getOk = amqp.BasicGetOk{DeliveryTag: ev.DeliveryTag, Redelivered: ev.Redelivered, Exchange: ev.Exchange, RoutingKey: ev.RoutingKey, MessageCount: uint32(ev.Remaining)}
			m = &w.getOk
		}
	case engine.EvReturned:
		w.ret = amqp.BasicReturn{ReplyCode: uint16(ev.Code), ReplyText: amqpconn.ShortText(ev.Text), Exchange: ev.Exchange, RoutingKey: ev.RoutingKey}
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
	props := amqpconn.WireProps(ev.Msg)
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
