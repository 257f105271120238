package conn

import (
	"testing"

	"warren/engine/amqp"
	"warren/server/broker"
)

// expectChannelClose reads the server's channel.close and checks it.
func (c *client) expectChannelClose(ch uint16, code uint16, text string, class, method uint16) {
	c.t.Helper()
	cmd := c.expect(&amqp.ChannelClose{})
	cl := cmd.Method.(*amqp.ChannelClose)
	if cmd.Channel != ch || cl.ReplyCode != code || cl.ReplyText != text || cl.FailingClassID != class || cl.FailingMethodID != method {
		c.t.Fatalf("channel.close on %d: %d %q %d/%d, want on %d: %d %q %d/%d", cmd.Channel, cl.ReplyCode, cl.ReplyText, cl.FailingClassID, cl.FailingMethodID,
			ch, code, text, class, method)
	}
}

// openChannels opens channels 1..n.
func (c *client) openChannels(n uint16) {
	for ch := uint16(1); ch <= n; ch++ {
		c.method(ch, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
	}
}

// stillWorks checks that channel ch answers a declare: the connection
// survived.
func (c *client) stillWorks(ch uint16) {
	c.t.Helper()
	c.method(ch, &amqp.QueueDeclare{Queue: "alive"})
	if cmd := c.expect(&amqp.QueueDeclareOk{}); cmd.Channel != ch {
		c.t.Fatalf("declare-ok on channel %d, want %d", cmd.Channel, ch)
	}
}

// TestPipelinedPublishesAfterChannelError: publishes (with their content)
// and acks the client sent before it saw the server's channel.close are
// discarded until close-ok, as AMQP requires; they are not taken for
// commands on a channel that is not open (which closed the whole
// connection with 504). The channel number can be opened again after
// close-ok.
func TestPipelinedPublishesAfterChannelError(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.openChannels(2)
		pub := &amqp.BasicPublish{Exchange: "missing", RoutingKey: "k"}
		c.send(frames(t, 1, pub, pub, pub, &amqp.BasicAck{DeliveryTag: 5}, pub))
		c.expectChannelClose(1, 404, "NOT_FOUND - no exchange 'missing' in vhost '/'", 60, 40)
		c.stillWorks(2) // the next frame after the one close: no second close, no connection.close
		c.method(1, &amqp.ChannelCloseOk{})
		c.method(1, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
		c.stillWorks(1)
	})
}

// TestDoubleAckClosesOnlyTheChannel: acking a delivery twice is rabbit_
// channel's 406 "unknown delivery tag", a channel error, even with more
// acks pipelined behind it.
func TestDoubleAckClosesOnlyTheChannel(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.openChannels(2)
		c.method(1, &amqp.QueueDeclare{Queue: "q"})
		c.expect(&amqp.QueueDeclareOk{})
		c.send(frames(t, 1, &amqp.BasicPublish{RoutingKey: "q"}, &amqp.BasicPublish{RoutingKey: "q"}))
		c.method(1, &amqp.BasicGet{Queue: "q"})
		c.expect(&amqp.BasicGetOk{})
		c.method(1, &amqp.BasicGet{Queue: "q"})
		c.expect(&amqp.BasicGetOk{})
		c.send(frames(t, 1, &amqp.BasicAck{DeliveryTag: 1}, &amqp.BasicAck{DeliveryTag: 1}, &amqp.BasicAck{DeliveryTag: 2}, &amqp.BasicAck{DeliveryTag: 1}))
		c.expectChannelClose(1, 406, "PRECONDITION_FAILED - unknown delivery tag 1", 60, 80)
		c.stillWorks(2)
	})
}

// TestCloseWhileServerCloses: a client closing a channel while the
// server's channel.close is on its way gets close-ok, and the number stays
// taken until its own close-ok (rabbit_channel in state closing).
func TestCloseWhileServerCloses(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.openChannels(1)
		c.send(append(frames(t, 1, &amqp.BasicPublish{Exchange: "missing"}), frames(t, 1, &amqp.ChannelClose{ReplyCode: 200, ReplyText: "bye"})...))
		c.expectChannelClose(1, 404, "NOT_FOUND - no exchange 'missing' in vhost '/'", 60, 40)
		c.expect(&amqp.ChannelCloseOk{})
		c.method(1, &amqp.ChannelCloseOk{})
		c.method(1, &amqp.ChannelOpen{})
		c.expect(&amqp.ChannelOpenOk{})
	})
}

// TestConnectionExceptions: what RabbitMQ answers with connection.close,
// each with its reply text and the offending method's ids
// (rabbit_reader, rabbit_channel, rabbit_command_assembler).
func TestConnectionExceptions(t *testing.T) {
	tests := []struct {
		name   string
		send   func(t *testing.T) []byte
		code   uint16
		text   string
		failed [2]uint16
	}{
		{"declare on a channel never opened", func(t *testing.T) []byte {
			return frames(t, 3, &amqp.QueueDeclare{Queue: "q"})
		}, 504, "CHANNEL_ERROR - expected 'channel.open'", [2]uint16{50, 10}},
		{"publish on a channel never opened", func(t *testing.T) []byte {
			return frames(t, 3, &amqp.BasicPublish{RoutingKey: "q"})
		}, 504, "CHANNEL_ERROR - expected 'channel.open'", [2]uint16{60, 40}},
		{"channel.close on a channel never opened", func(t *testing.T) []byte {
			return frames(t, 3, &amqp.ChannelClose{ReplyCode: 200})
		}, 504, "CHANNEL_ERROR - expected 'channel.open'", [2]uint16{20, 40}},
		{"second channel.open", func(t *testing.T) []byte {
			return frames(t, 1, &amqp.ChannelOpen{})
		}, 504, "CHANNEL_ERROR - second 'channel.open' seen", [2]uint16{20, 10}},
		{"heartbeat on channel 1", func(t *testing.T) []byte {
			return amqp.AppendFrame(nil, amqp.FrameHeartbeat, 1, nil)
		}, 505, "UNEXPECTED_FRAME - type 8, all octets = <<>>", [2]uint16{0, 0}},
		{"channel method on channel 0", func(t *testing.T) []byte {
			return frames(t, 0, &amqp.BasicQos{PrefetchCount: 1})
		}, 504, "CHANNEL_ERROR - unexpected method in connection state running", [2]uint16{60, 10}},
		{"close-ok nobody asked for", func(t *testing.T) []byte {
			return frames(t, 0, &amqp.ConnectionCloseOk{})
		}, 504, "CHANNEL_ERROR - unexpected method in connection state running", [2]uint16{10, 51}},
		{"a server method from the client", func(t *testing.T) []byte {
			return frames(t, 1, &amqp.BasicDeliver{ConsumerTag: "x", DeliveryTag: 1})
		}, 503, "COMMAND_INVALID - unimplemented method", [2]uint16{60, 60}},
		{"channel.flow active=false", func(t *testing.T) []byte {
			return frames(t, 1, &amqp.ChannelFlow{Active: false})
		}, 540, "NOT_IMPLEMENTED - active=false", [2]uint16{20, 20}},
		{"basic.recover requeue=false", func(t *testing.T) []byte {
			return frames(t, 1, &amqp.BasicRecover{Requeue: false})
		}, 540, "NOT_IMPLEMENTED - requeue=false", [2]uint16{60, 110}},
		{"basic.recover-async requeue=false", func(t *testing.T) []byte {
			return frames(t, 1, &amqp.BasicRecoverAsync{Requeue: false})
		}, 540, "NOT_IMPLEMENTED - requeue=false", [2]uint16{60, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest(t, func(t *testing.T, b *broker.Broker) {
				c := startPipe(t, b, Config{})
				c.handshake(0)
				c.openChannels(1)
				c.send(tt.send(t))
				cmd := c.expect(&amqp.ConnectionClose{})
				cl := cmd.Method.(*amqp.ConnectionClose)
				if cmd.Channel != 0 || cl.ReplyCode != tt.code || cl.ReplyText != tt.text || [2]uint16{cl.FailingClassID, cl.FailingMethodID} != tt.failed {
					t.Fatalf("connection.close %d %q %d/%d, want %d %q %v", cl.ReplyCode, cl.ReplyText, cl.FailingClassID, cl.FailingMethodID, tt.code, tt.text, tt.failed)
				}
			})
		})
	}
}

// TestMethodsRabbitAnswers: channel.flow(active=true) is answered
// flow-ok(true); access.request, long gone from AMQP, gets ticket 1.
func TestMethodsRabbitAnswers(t *testing.T) {
	synctest(t, func(t *testing.T, b *broker.Broker) {
		c := startPipe(t, b, Config{})
		c.handshake(0)
		c.openChannels(1)
		c.method(1, &amqp.ChannelFlow{Active: true})
		if ok := c.expect(&amqp.ChannelFlowOk{}).Method.(*amqp.ChannelFlowOk); !ok.Active {
			t.Fatal("flow-ok active=false")
		}
		c.method(1, &amqp.AccessRequest{Realm: "/data"})
		if ok := c.expect(&amqp.AccessRequestOk{}).Method.(*amqp.AccessRequestOk); ok.Ticket != 1 {
			t.Fatalf("ticket %d", ok.Ticket)
		}
	})
}
