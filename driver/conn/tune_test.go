package conn

import (
	"testing"

	"warren/engine/amqp"
	"warren/server/broker"
)

// TestTuneOkNegotiation: a tune-ok the server takes opens the connection
// and one it refuses is 530 on connection.tune, over the wire. The rules
// themselves, case by case, are engine/amqpconn's (testdata/tune.txt,
// handshake.txt).
func TestTuneOkNegotiation(t *testing.T) {
	for _, tc := range []struct {
		name string
		tune amqp.ConnectionTuneOk
		want string // the close text; "" when connection.open succeeds
	}{
		{"the server's values", amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 131072}, ""},
		{"frame_max below the minimum", amqp.ConnectionTuneOk{ChannelMax: 2047, FrameMax: 1000}, "NOT_ALLOWED - negotiated frame_max = 1000 is lower than the minimum allowed value (4096)"},
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
