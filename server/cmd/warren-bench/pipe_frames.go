package main

import (
	"encoding/binary"
	"errors"
	"fmt"

	"warren/engine/amqp"
)

// The pipelining client (pipe_*.go) writes many frames with one system
// call and reads many with one, the way RabbitMQ's PerfTest or
// lavinmqperf load a broker, so that on a machine with few cores the
// client costs far less than the broker it measures. This file holds its
// wire pieces: publishes encoded once and copied, and the few fields it
// reads off the hot frames without decoding a whole method.

// AMQP ids of the methods on the hot path (class basic is 60).
const (
	classBasic    = 60
	methodDeliver = 60
	methodAck     = 80
	methodNack    = 120
)

// msgIDBytes is the size of the message id at the start of every body the
// pipelining client publishes: the publisher's index in the high 32 bits,
// its sequence number (from 0) in the low 32.
const msgIDBytes = 8

// msgHeadBytes is how much of the start of each body the consumer keeps
// (consumeState): the id, and what a scale workload puts after it.
const msgHeadBytes = scaleBodyMin

func msgID(publisher, seq int) uint64 { return uint64(publisher)<<32 | uint64(uint32(seq)) }

func splitMsgID(id uint64) (publisher, seq int) { return int(id >> 32), int(uint32(id)) }

// publishTemplate is one basic.publish (method frame, content header
// frame, body frames) encoded once with the project's codec. A batch is
// the template copied n times, each copy's message id written into its
// body: no encoding per message.
type publishTemplate struct {
	frames    []byte
	idAt      int // offset in frames of the body's first byte
	firstBody int // bytes of the body in its first body frame
}

// newPublishTemplate encodes a publish of body (at least msgIDBytes long)
// to exchange with routing key on channel, cutting the body into frames
// that fit frameMax.
func newPublishTemplate(channel uint16, exchange, key string, props amqp.Properties, body []byte, frameMax uint32) (publishTemplate, error) {
	if len(body) < msgIDBytes {
		return publishTemplate{}, fmt.Errorf("a body of %d bytes has no room for the %d-byte message id", len(body), msgIDBytes)
	}
	b, err := amqp.AppendMethodFrame(nil, channel, &amqp.BasicPublish{Exchange: exchange, RoutingKey: key})
	if err != nil {
		return publishTemplate{}, err
	}
	header, err := amqp.AppendContentHeaderFrame(nil, channel, classBasic, uint64(len(body)), props)
	if err != nil {
		return publishTemplate{}, err
	}
	idAt := len(b) + len(header) + 7 // past the first body frame's own header
	b, err = amqp.AppendContent(b, channel, classBasic, props, body, frameMax)
	if err != nil {
		return publishTemplate{}, err
	}
	// The first body frame's size field ends where its payload starts.
	firstBody := int(binary.BigEndian.Uint32(b[idAt-4:]))
	return publishTemplate{frames: b, idAt: idAt, firstBody: firstBody}, nil
}

// appendOne appends one publish and returns the buffer with the part of
// the copy's body in its first body frame (at least msgIDBytes), for the
// caller to write the message's own bytes into: its id first.
func (t publishTemplate) appendOne(b []byte) (out, body []byte) {
	start := len(b) + t.idAt
	b = append(b, t.frames...)
	return b, b[start : start+t.firstBody]
}

// appendBatch appends n publishes whose message ids run from firstID.
func (t publishTemplate) appendBatch(b []byte, firstID uint64, n int) []byte {
	for i := 0; i < n; i++ {
		var body []byte
		b, body = t.appendOne(b)
		binary.BigEndian.PutUint64(body, firstID+uint64(i))
	}
	return b
}

// errShortMethod reports a hot method frame too short for its fields.
var errShortMethod = errors.New("method frame too short")

// methodIDs returns a method frame payload's class and method ids.
func methodIDs(payload []byte) (class, method uint16, ok bool) {
	if len(payload) < 4 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint16(payload), binary.BigEndian.Uint16(payload[2:]), true
}

// parseDeliver returns the delivery tag of a basic.deliver payload:
// class and method ids, consumer-tag (shortstr), delivery-tag (longlong),
// then fields the client does not need.
func parseDeliver(payload []byte) (uint64, error) {
	if len(payload) < 5 {
		return 0, errShortMethod
	}
	at := 5 + int(payload[4]) // past the consumer tag
	if len(payload) < at+8 {
		return 0, errShortMethod
	}
	return binary.BigEndian.Uint64(payload[at:]), nil
}

// parseConfirm reads a basic.ack or basic.nack payload from the broker:
// delivery-tag (longlong), then a bits octet whose lowest bit is multiple.
func parseConfirm(payload []byte) (tag uint64, multiple bool, err error) {
	if len(payload) < 4+8+1 {
		return 0, false, errShortMethod
	}
	return binary.BigEndian.Uint64(payload[4:]), payload[12]&1 != 0, nil
}

// contentBodySize returns the body size a content header frame announces:
// class-id, weight, then body-size (longlong).
func contentBodySize(payload []byte) (uint64, error) {
	if len(payload) < 12 {
		return 0, errors.New("content header too short")
	}
	return binary.BigEndian.Uint64(payload[4:]), nil
}

// closeReason decodes a method that is not on the hot path and, when it
// ends the channel or the connection (or cancels a consumer), returns an
// error that says so.
func closeReason(f amqp.Frame) error {
	m, err := amqp.DecodeMethod(f.Payload)
	if err != nil {
		return err
	}
	switch m := m.(type) {
	case *amqp.ConnectionClose:
		return fmt.Errorf("the broker closed the connection: %d %s", m.ReplyCode, m.ReplyText)
	case *amqp.ChannelClose:
		return fmt.Errorf("the broker closed channel %d: %d %s", f.Channel, m.ReplyCode, m.ReplyText)
	case *amqp.BasicCancel:
		return fmt.Errorf("the broker cancelled consumer %q", m.ConsumerTag)
	case *amqp.ConnectionBlocked:
		return nil // publishers keep going; the broker holds their input
	}
	return nil
}
