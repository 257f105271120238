package conn

import (
	"testing"

	"warren/engine/amqp"
	"warren/server/broker"
)

// TestTuneOkNegotiation: connection.tune-ok may lower channel_max and
// frame_max, never raise them or ask for "no limit" (0), and frame_max
// may not go below 4096; a refusal is rabbit_reader's 530 with its text
// (observed, RabbitMQ 3.10.8, which logs the same text) naming
// connection.tune.
func TestTuneOkNegotiation(t *testing.T) {
	for _, tc := range []struct {
		name string
		tune amqp.ConnectionTuneOk
		want string // the close text; "" when connection.open succeeds
	}{
		{"the server's values", amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 131072}, ""},
		{"lower values", amqp.ConnectionTuneOk{ChannelMax: 10, FrameMax: 4096}, ""},
		{"frame_max below the minimum", amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 1000}, "NOT_ALLOWED - negotiated frame_max = 1000 is lower than the minimum allowed value (4096)"},
		{"frame_max no limit", amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 0}, "NOT_ALLOWED - negotiated frame_max = 0 is higher than the maximum allowed value (131072)"},
		{"frame_max above the server's", amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 200000}, "NOT_ALLOWED - negotiated frame_max = 200000 is higher than the maximum allowed value (131072)"},
		{"channel_max no limit", amqp.ConnectionTuneOk{ChannelMax: 0, FrameMax: 131072}, "NOT_ALLOWED - negotiated channel_max = 0 (no limit) is higher than the maximum allowed value (2047)"},
		{"channel_max above the server's", amqp.ConnectionTuneOk{ChannelMax: 5000, FrameMax: 131072}, "NOT_ALLOWED - negotiated channel_max = 5000 is higher than the maximum allowed value (2047)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest(t, func(t *testing.T, b *broker.Broker) {
				c := startPipe(t, b, Config{})
				c.send(amqp.ProtocolHeader[:])
				c.expect(&amqp.ConnectionStart{})
				c.method(0, &amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00guest\x00guest", Locale: "en_US"})
				c.expect(&amqp.ConnectionTune{})
				c.method(0, &tc.tune)
				c.method(0, &amqp.ConnectionOpen{VirtualHost: "/"})
				if tc.want == "" {
					c.expect(&amqp.ConnectionOpenOk{})
					return
				}
				cl := c.expect(&amqp.ConnectionClose{}).Method.(*amqp.ConnectionClose)
				if cl.ReplyCode != 530 || cl.ReplyText != tc.want || cl.FailingClassID != 10 || cl.FailingMethodID != 30 {
					t.Fatalf("close %+v, want 530 %q on connection.tune", cl, tc.want)
				}
				c.method(0, &amqp.ConnectionCloseOk{})
			})
		})
	}
}
