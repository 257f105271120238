package amqp

import (
	"bytes"
	"errors"
	"testing"
)

// clientHandshake is what a client such as amqp091-go sends in its first
// milliseconds: the protocol header, the handshake, a channel, a queue, a
// publish with a body in two frames, a consumer, an ack, a heartbeat and
// the close. It is built with the codec itself; golden tests pin the
// encoding separately.
func clientHandshake(t testing.TB) []byte {
	t.Helper()
	b := append([]byte(nil), ProtocolHeader[:]...)
	method := func(ch uint16, m Method) {
		var err error
		if b, err = AppendMethodFrame(b, ch, m); err != nil {
			t.Fatal(err)
		}
	}
	method(0, &ConnectionStartOk{
		ClientProperties: Table{
			"product":      "amqp091-go",
			"version":      "β",
			"capabilities": Table{"publisher_confirms": true, "consumer_cancel_notify": true},
		},
		Mechanism: "PLAIN",
		Response:  "\x00guest\x00guest",
		Locale:    "en_US",
	})
	method(0, &ConnectionTuneOk{ChannelMax: 2047, FrameMax: 131072, Heartbeat: 10})
	method(0, &ConnectionOpen{VirtualHost: "/"})
	method(1, &ChannelOpen{})
	method(1, &QueueDeclare{Queue: "q1", Durable: true, Arguments: Table{"x-message-ttl": int32(60000)}})
	method(1, &BasicPublish{Exchange: "", RoutingKey: "q1", Mandatory: true})
	var err error
	b, err = AppendContentHeaderFrame(b, 1, ClassBasic, 11, Properties{
		ContentType:  "text/plain",
		DeliveryMode: 2,
		Headers:      Table{"h": "v"},
		Expiration:   "5000",
	})
	if err != nil {
		t.Fatal(err)
	}
	b = AppendFrame(b, FrameBody, 1, []byte("hello "))
	b = AppendFrame(b, FrameBody, 1, []byte("world"))
	method(1, &BasicConsume{Queue: "q1", ConsumerTag: "ctag-1"})
	method(1, &BasicAck{DeliveryTag: 1})
	b = AppendHeartbeat(b)
	method(1, &ChannelClose{ReplyCode: ReplySuccess, ReplyText: "bye"})
	method(0, &ConnectionClose{ReplyCode: ReplySuccess, ReplyText: "bye"})
	return b
}

// readAll feeds data to a fresh reader in pieces cut at the given offsets
// (ascending), draining after each, as a connection would. Payloads are
// copied out, and each fed piece is overwritten after its drain, the way a
// reused read buffer is, so that a reader keeping a reference to fed
// memory beyond its contract is caught.
func readAll(data []byte, cfg ReaderConfig, cuts []int) ([]Frame, error) {
	r := NewFrameReader(cfg)
	var frames []Frame
	prev := 0
	for _, cut := range append(cuts, len(data)) {
		piece := append([]byte(nil), data[prev:cut]...)
		prev = cut
		r.Feed(piece)
		err := drain(r, &frames)
		for i := range piece {
			piece[i] = 0xAA
		}
		if err != nil {
			return frames, err
		}
	}
	return frames, nil
}

// drain reads the protocol header if still due, then every complete frame.
func drain(r *FrameReader, out *[]Frame) error {
	if ok, err := r.ReadProtocolHeader(); !ok {
		return err
	}
	for {
		f, ok, err := r.Next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		f.Payload = bytes.Clone(f.Payload)
		*out = append(*out, f)
	}
}

// asError returns err as an *Error or fails the test.
func asError(t testing.TB, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *amqp.Error", err, err)
	}
	return e
}

// frameBytes concatenates hand-written frame bytes for golden tests.
func frameBytes(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
