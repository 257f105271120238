package main

import (
	"encoding/binary"
	"fmt"

	"warren/engine/amqp"
)

// consumeState is the consumer side of the pipelining client without its
// socket: frames in (handle), acknowledgements out (appendAcks). It reads
// only what it needs off each delivery (the delivery tag, the body size,
// the first msgHeadBytes of the body, which start with the message id),
// records every id, or hands the start of the body to take, and
// acknowledges with multiple=true once a channel has ackEvery messages
// unacknowledged, so that one ack frame settles many deliveries.
type consumeState struct {
	channels  []*consumerChannel // indexed by channel number; [0] unused
	manualAck bool
	ackEvery  int
	delivered int // complete messages received, on every channel
	ackFrames int // basic.ack frames appended
	// take, when set, is given each whole message's queue, the first
	// msgHeadBytes of its body (all of it when shorter) and readAtNs, in
	// place of the channels' id sets; an error from it is handle's.
	take func(queue int, head []byte, readAtNs int64) error
	// readAtNs is when the frames being handled were read (Unix
	// nanoseconds), set by the connection's reader for take.
	readAtNs int64
}

// consumerChannel is one channel of a consumer connection, consuming one
// queue.
type consumerChannel struct {
	queue   int
	ids     *idSet
	lastTag uint64 // delivery tag of the last basic.deliver
	ackedTo uint64 // acknowledged up to here, with multiple=true
	// The message being received: after its basic.deliver, waiting for the
	// content header (header) and then remaining body bytes, of which the
	// first msgHeadBytes are kept in head (the first msgIDBytes are its id).
	receiving bool
	header    bool
	remaining uint64
	head      [msgHeadBytes]byte
	headLen   int
}

// newConsumeState returns the state of a connection whose channel i+1
// consumes queues[i]; sent is what each publisher sends, for the id sets.
func newConsumeState(queues []int, sent []int, manualAck bool, ackEvery int) *consumeState {
	s := &consumeState{channels: make([]*consumerChannel, len(queues)+1), manualAck: manualAck, ackEvery: max(ackEvery, 1)}
	for i, q := range queues {
		s.channels[i+1] = &consumerChannel{queue: q, ids: newIDSet(sent)}
	}
	return s
}

// newTakingConsumeState returns the state of a connection whose channel
// i+1 consumes queues[i] with manual acks, handing every whole message to
// take instead of recording its id.
func newTakingConsumeState(queues []int, ackEvery int, take func(queue int, head []byte, readAtNs int64) error) *consumeState {
	s := &consumeState{channels: make([]*consumerChannel, len(queues)+1), manualAck: true, ackEvery: max(ackEvery, 1), take: take}
	for i, q := range queues {
		s.channels[i+1] = &consumerChannel{queue: q}
	}
	return s
}

// handle takes one frame from the broker.
func (s *consumeState) handle(f amqp.Frame) error {
	if f.Type == amqp.FrameHeartbeat {
		return nil
	}
	var c *consumerChannel
	if int(f.Channel) < len(s.channels) {
		c = s.channels[f.Channel]
	}
	if c == nil {
		if f.Type != amqp.FrameMethod {
			return fmt.Errorf("content frame on channel %d, which consumes nothing", f.Channel)
		}
		if err := closeReason(f); err != nil || f.Channel == 0 {
			return err // connection.close, or connection.blocked and such
		}
		class, method, _ := methodIDs(f.Payload)
		return fmt.Errorf("unexpected %s on channel %d, which consumes nothing", amqp.MethodName(class, method), f.Channel)
	}
	switch f.Type {
	case amqp.FrameMethod:
		if c.receiving {
			return fmt.Errorf("channel %d: a method frame in the middle of a message", f.Channel)
		}
		if class, method, _ := methodIDs(f.Payload); class != classBasic || method != methodDeliver {
			if err := closeReason(f); err != nil {
				return err
			}
			return fmt.Errorf("channel %d: unexpected %s", f.Channel, amqp.MethodName(class, method))
		}
		tag, err := parseDeliver(f.Payload)
		if err != nil {
			return fmt.Errorf("channel %d: basic.deliver: %w", f.Channel, err)
		}
		c.lastTag, c.receiving, c.header, c.headLen = tag, true, true, 0
	case amqp.FrameHeader:
		if !c.receiving || !c.header {
			return fmt.Errorf("channel %d: a content header without basic.deliver", f.Channel)
		}
		size, err := contentBodySize(f.Payload)
		if err != nil {
			return err
		}
		if size < msgIDBytes {
			return fmt.Errorf("channel %d: a body of %d bytes has no message id", f.Channel, size)
		}
		c.header, c.remaining = false, size
	case amqp.FrameBody:
		if !c.receiving || c.header || uint64(len(f.Payload)) > c.remaining {
			return fmt.Errorf("channel %d: a body frame that no content header announced", f.Channel)
		}
		if c.headLen < msgHeadBytes {
			c.headLen += copy(c.head[c.headLen:], f.Payload)
		}
		c.remaining -= uint64(len(f.Payload))
		if c.remaining == 0 {
			c.receiving = false
			s.delivered++
			if s.take != nil {
				return s.take(c.queue, c.head[:c.headLen], s.readAtNs)
			}
			c.ids.mark(binary.BigEndian.Uint64(c.head[:]))
		}
	default:
		return fmt.Errorf("channel %d: frame type %d", f.Channel, f.Type)
	}
	return nil
}

// appendAcks appends a basic.ack with multiple=true for every channel
// with at least ackEvery deliveries unacknowledged, or with any at all
// when all is set (the end of a run).
func (s *consumeState) appendAcks(b []byte, all bool) []byte {
	if !s.manualAck {
		return b
	}
	for ch, c := range s.channels {
		if c == nil {
			continue
		}
		// A message is acknowledged once it has arrived whole; the one
		// being received (its tag is lastTag) waits for the next ack.
		upTo := c.lastTag
		if c.receiving {
			upTo--
		}
		if upTo <= c.ackedTo || (!all && upTo-c.ackedTo < uint64(s.ackEvery)) {
			continue
		}
		var err error
		b, err = amqp.AppendMethodFrame(b, uint16(ch), &amqp.BasicAck{DeliveryTag: upTo, Multiple: true})
		if err != nil {
			panic("warren-bench: encoding basic.ack: " + err.Error()) // it has no field that can fail
		}
		c.ackedTo = upTo
		s.ackFrames++
	}
	return b
}
