package engine_test

import (
	"testing"

	"warren/engine"
)

// TestClosesCarryRabbitText: every connection exception the engine raises
// for a channel that is not open reaches the driver's ConnectionClosed
// event with RabbitMQ's reply text and the offending method, which the
// driver copies into connection.close.
func TestClosesCarryRabbitText(t *testing.T) {
	tests := []struct {
		name string
		run  func(b *engine.Broker, conn engine.ConnID) error
		want engine.Event
	}{
		{"ack on a channel never opened", func(b *engine.Broker, conn engine.ConnID) error {
			return b.Apply(engine.CmdBasicAck{Channel: engine.ChannelID{Conn: conn, Num: 3}, DeliveryTag: 1}).Err
		}, engine.Event{Code: 504, Text: "CHANNEL_ERROR - expected 'channel.open'", Method: engine.MethodBasicAck}},
		{"declare on a channel never opened", func(b *engine.Broker, conn engine.ConnID) error {
			_, err := b.QueueDeclare(engine.ChannelID{Conn: conn, Num: 3}, engine.QueueDeclare{Queue: "q"})
			return err
		}, engine.Event{Code: 504, Text: "CHANNEL_ERROR - expected 'channel.open'", Method: engine.MethodQueueDeclare}},
		{"channel.open on channel 0", func(b *engine.Broker, conn engine.ConnID) error {
			_, err := b.OpenChannel(conn, 0)
			return err
		}, engine.Event{Code: 504, Text: "CHANNEL_ERROR - unexpected method in connection state running", Method: engine.MethodChannelOpen}},
		{"basic.recover requeue=false", func(b *engine.Broker, conn engine.ConnID) error {
			return b.Apply(engine.CmdBasicRecover{Channel: engine.ChannelID{Conn: conn, Num: 1}}).Err
		}, engine.Event{Code: 540, Text: "NOT_IMPLEMENTED - requeue=false", Method: engine.MethodBasicRecover}},
		{"basic.recover-async requeue=false", func(b *engine.Broker, conn engine.ConnID) error {
			return b.Apply(engine.CmdBasicRecoverAsync{Channel: engine.ChannelID{Conn: conn, Num: 1}}).Err
		}, engine.Event{Code: 540, Text: "NOT_IMPLEMENTED - requeue=false", Method: engine.MethodBasicRecoverAsync}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := engine.New(engine.Config{})
			conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
			if _, err := b.OpenChannel(conn, 1); err != nil {
				t.Fatal(err)
			}
			b.DrainEvents(nil)
			err := tt.run(b, conn)
			e, ok := err.(*engine.Error)
			if !ok || !e.Connection || e.Code != tt.want.Code || e.Text != tt.want.Text || e.Method != tt.want.Method {
				t.Fatalf("error %#v, want connection error %d %q %v", err, tt.want.Code, tt.want.Text, tt.want.Method)
			}
			var closed *engine.Event
			for _, ev := range b.DrainEvents(nil) {
				if ev.Kind == engine.EvConnectionClosed {
					closed = &ev
				}
			}
			if closed == nil || closed.Code != tt.want.Code || closed.Text != tt.want.Text || closed.Method != tt.want.Method {
				t.Fatalf("connection closed event %+v, want %d %q %v", closed, tt.want.Code, tt.want.Text, tt.want.Method)
			}
		})
	}
}

// TestChannelIsOpen: a driver running several commands in one turn learns
// at once that one of them closed its channel.
func TestChannelIsOpen(t *testing.T) {
	b := engine.New(engine.Config{})
	conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
	ch, _ := b.OpenChannel(conn, 1)
	other, _ := b.OpenChannel(conn, 2)
	if !b.ChannelIsOpen(ch) || !b.ChannelIsOpen(other) {
		t.Fatal("open channels reported closed")
	}
	if err := b.BasicPublish(ch, engine.BasicPublish{Exchange: "missing"}); err == nil {
		t.Fatal("publish to a missing exchange succeeded")
	}
	if b.ChannelIsOpen(ch) {
		t.Fatal("channel closed by a 404 reported open")
	}
	if !b.ChannelIsOpen(other) {
		t.Fatal("the other channel was closed too")
	}
	if _, err := b.OpenChannel(conn, ch.Num); err != nil || !b.ChannelIsOpen(ch) {
		t.Fatalf("channel reopened after its error reported closed (%v)", err)
	}
	if b.ChannelIsOpen(engine.ChannelID{Conn: conn, Num: 9}) {
		t.Fatal("a channel never opened reported open")
	}
}
