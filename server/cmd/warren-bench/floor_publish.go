package main

import (
	"encoding/binary"
	"errors"

	"warren/engine/amqp"
)

// The floor's publishes (floor.go): collected whole, then written out as
// deliveries.

// floorPublish is a message being published on one channel: its frames
// are collected until the last one has come, so that a delivery goes out
// whole, never interleaved with another publisher's to the same channel.
type floorPublish struct {
	open      bool           // after basic.publish, until the last frame
	to        *floorConsumer // nil: no consumer, the message is dropped
	names     []byte         // the exchange and routing key, as shortstrs
	frames    []byte         // content frames, on the consumer's channel
	header    bool           // the content header has come
	remaining uint64         // body bytes still to come
}

// start begins a publish to exchange with key, for consumer c (or none).
func (p *floorPublish) start(c *floorConsumer, exchange, key []byte) {
	p.open, p.to, p.header = true, c, false
	p.names = appendShortstr(appendShortstr(p.names[:0], exchange), key)
	p.frames = p.frames[:0]
}

// add takes the publish's next content frame and says whether it was the
// last.
func (p *floorPublish) add(f amqp.Frame) (done bool, err error) {
	if !p.header {
		if f.Type != amqp.FrameHeader {
			return false, errors.New("basic.publish without a content header")
		}
		size, err := contentBodySize(f.Payload)
		if err != nil {
			return false, err
		}
		p.header, p.remaining = true, size
	} else {
		if f.Type != amqp.FrameBody || uint64(len(f.Payload)) > p.remaining {
			return false, errors.New("a body frame beyond the content's size")
		}
		p.remaining -= uint64(len(f.Payload))
	}
	if p.to != nil {
		p.frames = amqp.AppendFrame(p.frames, f.Type, p.to.channel, f.Payload)
	}
	p.open = p.remaining > 0
	return !p.open, nil
}

// deliver queues the whole message on its consumer's connection as a
// basic.deliver with the channel's next delivery tag, and returns that
// connection (nil when there is no consumer).
func (p *floorPublish) deliver() *floorConn {
	c := p.to
	if c == nil {
		return nil
	}
	fc := c.conn
	fc.wmu.Lock()
	defer fc.wmu.Unlock()
	*c.lastTag++
	start := len(fc.relayed)
	fc.relayed = append(fc.relayed, amqp.FrameMethod, byte(c.channel>>8), byte(c.channel), 0, 0, 0, 0)
	fc.relayed = binary.BigEndian.AppendUint16(fc.relayed, classBasic)
	fc.relayed = binary.BigEndian.AppendUint16(fc.relayed, methodDeliver)
	fc.relayed = appendShortstr(fc.relayed, c.tag)
	fc.relayed = binary.BigEndian.AppendUint64(fc.relayed, *c.lastTag)
	fc.relayed = append(fc.relayed, 0) // redelivered
	fc.relayed = append(fc.relayed, p.names...)
	binary.BigEndian.PutUint32(fc.relayed[start+3:], uint32(len(fc.relayed)-start-7))
	fc.relayed = append(fc.relayed, amqp.FrameEnd)
	fc.relayed = append(fc.relayed, p.frames...)
	return fc
}

func appendShortstr[S string | []byte](b []byte, s S) []byte {
	return append(append(b, byte(len(s))), s...)
}

// methodPublish is basic.publish's method id.
const methodPublish = 40

// publishNames reads a basic.publish payload's exchange and routing key
// without decoding the whole method; they alias the payload.
func publishNames(payload []byte) (exchange, key []byte, err error) {
	p := payload[min(len(payload), 6):] // class, method, ticket
	if len(p) < 1 || len(p) < 1+int(p[0]) {
		return nil, nil, errors.New("basic.publish: short exchange")
	}
	exchange, p = p[1:1+int(p[0])], p[1+int(p[0]):]
	if len(p) < 1 || len(p) < 1+int(p[0]) {
		return nil, nil, errors.New("basic.publish: short routing key")
	}
	return exchange, p[1 : 1+int(p[0])], nil
}
