package conn

import (
	"bytes"
	"encoding/binary"
	"testing"

	"warren/engine/amqp"
	"warren/server/broker"
)

// rawProps builds a content header's property part by hand, flag word
// first, from the properties in AMQP's order, so that the test does not
// trust the codec it checks.
type rawProps struct {
	flags uint16
	b     []byte
}

func (r *rawProps) shortstr(flag uint16, s string) *rawProps {
	r.flags |= flag
	r.b = append(append(r.b, byte(len(s))), s...)
	return r
}

func (r *rawProps) octet(flag uint16, v byte) *rawProps {
	r.flags |= flag
	r.b = append(r.b, v)
	return r
}

func (r *rawProps) table(flag uint16, t []byte) *rawProps {
	r.flags |= flag
	r.b = binary.BigEndian.AppendUint32(r.b, uint32(len(t)))
	r.b = append(r.b, t...)
	return r
}

func (r *rawProps) timestamp(flag uint16, v uint64) *rawProps {
	r.flags |= flag
	r.b = binary.BigEndian.AppendUint64(r.b, v)
	return r
}

func (r *rawProps) bytes() []byte { return append(binary.BigEndian.AppendUint16(nil, r.flags), r.b...) }

func props() *rawProps { return &rawProps{} }

// TestPropertiesKeptOnTheWire publishes with raw frames carrying each
// basic property present but zero or empty, one at a time and all
// together, and with values, and checks that the content header the
// consumer receives (basic.deliver) and basic.get-ok carry the same flags
// and the same property bytes as published.
//
// Observed, RabbitMQ 3.10.8 (pika 1.2.0, basic.get): content_type="",
// content_encoding="", headers={}, priority=0, correlation_id="",
// reply_to="", message_id="", timestamp=0, type="", app_id="",
// cluster_id="" came back present, empty or zero, each of them; a
// cluster_id "c1" came back "c1"; and with raw frames every case here
// came back byte for byte (server/e2e's TestRawPropertiesRoundTrip).
// RabbitMQ refuses three properties present but empty or zero, so they
// are sent with values here: see TestPropertiesRefused.
func TestPropertiesKeptOnTheWire(t *testing.T) {
	cases := []struct {
		name  string
		props *rawProps
	}{
		{"none", props()},
		{"content-type", props().shortstr(amqp.FlagContentType, "")},
		{"content-encoding", props().shortstr(amqp.FlagContentEncoding, "")},
		{"headers", props().table(amqp.FlagHeaders, nil)},
		{"delivery-mode", props().octet(amqp.FlagDeliveryMode, 1)},
		{"priority", props().octet(amqp.FlagPriority, 0)},
		{"correlation-id", props().shortstr(amqp.FlagCorrelationID, "")},
		{"reply-to", props().shortstr(amqp.FlagReplyTo, "")},
		{"expiration", props().shortstr(amqp.FlagExpiration, "60000")},
		{"message-id", props().shortstr(amqp.FlagMessageID, "")},
		{"timestamp", props().timestamp(amqp.FlagTimestamp, 0)},
		{"type", props().shortstr(amqp.FlagType, "")},
		{"user-id", props().shortstr(amqp.FlagUserID, "guest")},
		{"app-id", props().shortstr(amqp.FlagAppID, "")},
		{"cluster-id", props().shortstr(amqp.FlagClusterID, "")},
		{"cluster-id with a value", props().shortstr(amqp.FlagClusterID, "c1")},
		{"all, empty or zero", props().shortstr(amqp.FlagContentType, "").shortstr(amqp.FlagContentEncoding, "").
			table(amqp.FlagHeaders, nil).octet(amqp.FlagDeliveryMode, 1).octet(amqp.FlagPriority, 0).
			shortstr(amqp.FlagCorrelationID, "").shortstr(amqp.FlagReplyTo, "").shortstr(amqp.FlagExpiration, "60000").
			shortstr(amqp.FlagMessageID, "").timestamp(amqp.FlagTimestamp, 0).shortstr(amqp.FlagType, "").
			shortstr(amqp.FlagUserID, "guest").shortstr(amqp.FlagAppID, "").shortstr(amqp.FlagClusterID, "")},
		{"all, with values", props().shortstr(amqp.FlagContentType, "text/plain").shortstr(amqp.FlagContentEncoding, "gzip").
			table(amqp.FlagHeaders, []byte("\x01kS\x00\x00\x00\x01v")).octet(amqp.FlagDeliveryMode, 2).octet(amqp.FlagPriority, 9).
			shortstr(amqp.FlagCorrelationID, "c").shortstr(amqp.FlagReplyTo, "r").shortstr(amqp.FlagExpiration, "60000").
			shortstr(amqp.FlagMessageID, "m").timestamp(amqp.FlagTimestamp, 1700000000).shortstr(amqp.FlagType, "t").
			shortstr(amqp.FlagUserID, "guest").shortstr(amqp.FlagAppID, "a").shortstr(amqp.FlagClusterID, "c1")},
	}
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.method(1, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
		c.method(1, &amqp.QueueDeclare{Queue: "props"})
		c.expect(&amqp.QueueDeclareOk{})
		c.method(1, &amqp.QueueDeclare{Queue: "props.consumed"})
		c.expect(&amqp.QueueDeclareOk{})
		c.method(1, &amqp.BasicConsume{Queue: "props.consumed", ConsumerTag: "c", NoAck: true})
		c.expect(&amqp.BasicConsumeOk{})
		for _, tc := range cases {
			want := tc.props.bytes()
			for _, q := range []string{"props", "props.consumed"} {
				c.publishRaw(1, q, want, "body")
				if q == "props" {
					c.method(1, &amqp.BasicGet{Queue: q, NoAck: true})
				}
				method, header := c.rawContent()
				if got := header[12:]; !bytes.Equal(got, want) {
					t.Errorf("%s, %s: sent properties % x, received % x", tc.name, method.Name(), want, got)
				}
			}
		}
	})
}

// TestPropertiesRefused: the properties RabbitMQ refuses present but
// empty or zero. Observed, RabbitMQ 3.10.8 (raw frames): 406
// "PRECONDITION_FAILED - invalid expiration ”: no_integer"; for guest
// 406 "PRECONDITION_FAILED - user_id property set to ” but
// authenticated user was 'guest'"; and for a delivery mode of 0 (or 3,
// or 255) 406 "PRECONDITION_FAILED - invalid message:
// {delivery_mode_unknown,0}".
func TestPropertiesRefused(t *testing.T) {
	cases := []struct {
		props *rawProps
		text  string
	}{
		{props().shortstr(amqp.FlagExpiration, ""), "PRECONDITION_FAILED - invalid expiration '': no_integer"},
		{props().shortstr(amqp.FlagUserID, ""), "PRECONDITION_FAILED - user_id property set to '' but authenticated user was 'guest'"},
		{props().octet(amqp.FlagDeliveryMode, 0), "PRECONDITION_FAILED - invalid message: {delivery_mode_unknown,0}"},
		{props().octet(amqp.FlagDeliveryMode, 3), "PRECONDITION_FAILED - invalid message: {delivery_mode_unknown,3}"},
		// user-id first (observed, RabbitMQ 3.10.8, both cases).
		{props().octet(amqp.FlagDeliveryMode, 0).shortstr(amqp.FlagUserID, "bob"), "PRECONDITION_FAILED - user_id property set to 'bob' but authenticated user was 'guest'"},
		{props().shortstr(amqp.FlagExpiration, "").shortstr(amqp.FlagUserID, "bob"), "PRECONDITION_FAILED - user_id property set to 'bob' but authenticated user was 'guest'"},
		// Asking for a direct reply with no reply consumer: the empty
		// expiration first, then the missing consumer (the engine's
		// replyto.go).
		{props().shortstr(amqp.FlagReplyTo, "amq.rabbitmq.reply-to").shortstr(amqp.FlagExpiration, ""), "PRECONDITION_FAILED - invalid expiration '': no_integer"},
		{props().shortstr(amqp.FlagReplyTo, "amq.rabbitmq.reply-to"), "PRECONDITION_FAILED - fast reply consumer does not exist"},
	}
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		for _, tc := range cases {
			c.method(1, &amqp.ChannelOpen{})
			c.expect(&amqp.ChannelOpenOk{})
			c.publishRaw(1, "q", tc.props.bytes(), "x")
			cl := c.expect(&amqp.ChannelClose{}).Method.(*amqp.ChannelClose)
			if cl.ReplyCode != 406 || cl.ReplyText != tc.text || cl.FailingClassID != 60 || cl.FailingMethodID != 40 {
				t.Errorf("close %+v, want 406 %q", cl, tc.text)
			}
			c.method(1, &amqp.ChannelCloseOk{})
		}
	})
}

// publishRaw sends basic.publish to the default exchange and its content
// with the property bytes given (flag word included), as raw frames.
func (c *client) publishRaw(ch uint16, key string, props []byte, body string) {
	c.t.Helper()
	c.method(ch, &amqp.BasicPublish{RoutingKey: key})
	header := binary.BigEndian.AppendUint16(nil, amqp.ClassBasic)
	header = binary.BigEndian.AppendUint16(header, 0)
	header = binary.BigEndian.AppendUint64(header, uint64(len(body)))
	frames := amqp.AppendFrame(nil, amqp.FrameHeader, ch, append(header, props...))
	c.send(amqp.AppendFrame(frames, amqp.FrameBody, ch, []byte(body)))
}

// rawContent reads frames up to the next content header and returns the
// method before it and the header's payload as the server wrote it.
func (c *client) rawContent() (amqp.Method, []byte) {
	c.t.Helper()
	var method amqp.Method
	buf := make([]byte, 4096)
	for {
		f, ok, err := c.fr.Next()
		if err != nil {
			c.t.Fatalf("server sent bad frames: %v", err)
		}
		if !ok {
			n, err := c.nc.Read(buf)
			if err != nil {
				c.t.Fatalf("read: %v", err)
			}
			c.fr.Feed(append([]byte(nil), buf[:n]...))
			continue
		}
		switch f.Type {
		case amqp.FrameMethod:
			m, err := amqp.DecodeMethod(f.Payload)
			if err != nil {
				c.t.Fatal(err)
			}
			method = m
		case amqp.FrameHeader:
			payload := append([]byte(nil), f.Payload...)
			// The body follows; the assembler is not used here, so
			// nothing else needs it.
			return method, payload
		}
	}
}

// TestDeadLetterKeepsPresentProperties: a dead letter keeps the
// publisher's properties present as they were, empty or zero ones
// included, and gains the headers property (x-death) when it had none.
// Observed, RabbitMQ 3.10.8 (pika): a message published with priority=0
// and message_id "", rejected without requeue to a DLX, came back with
// priority 0, message_id "" and headers holding x-death and the
// x-first-death-* headers.
func TestDeadLetterKeepsPresentProperties(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.method(1, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
		c.method(1, &amqp.QueueDeclare{Queue: "dead"})
		c.expect(&amqp.QueueDeclareOk{})
		c.method(1, &amqp.QueueDeclare{Queue: "work", Arguments: amqp.Table{"x-dead-letter-exchange": "", "x-dead-letter-routing-key": "dead"}})
		c.expect(&amqp.QueueDeclareOk{})
		c.publishRaw(1, "work", props().octet(amqp.FlagPriority, 0).shortstr(amqp.FlagMessageID, "").bytes(), "x")
		c.method(1, &amqp.BasicGet{Queue: "work"})
		_, header := c.rawContent()
		c.method(1, &amqp.BasicReject{DeliveryTag: 1, Requeue: false})
		c.method(1, &amqp.BasicGet{Queue: "dead", NoAck: true})
		_, header = c.rawContent()
		_, _, p, err := amqp.DecodeContentHeader(header)
		if err != nil {
			t.Fatal(err)
		}
		if p.Flags != amqp.FlagHeaders|amqp.FlagPriority|amqp.FlagMessageID || p.Priority != 0 || p.MessageID != "" {
			t.Fatalf("dead letter's properties: flags %#04x, %+v", p.Flags, p)
		}
		if _, ok := p.Headers["x-death"]; !ok || p.Headers["x-first-death-reason"] != "rejected" {
			t.Errorf("dead letter's headers %v", p.Headers)
		}
	})
}
