package amqpconn

import (
	"testing"

	"warren/engine"
	"warren/engine/amqp"
)

// BenchmarkPipelinedPublishes maps bursts of 256 publishes on an open
// channel to their commands and takes their results, as a driver's turn
// does for a client that streams: the machine's own cost per publish
// (ns/op is per publish), the engine left out. It allocates nothing once
// its arrays have grown.
func BenchmarkPipelinedPublishes(b *testing.B) {
	m := New(Config{ChannelMax: 2047, FrameMax: 131072})
	m.phase, m.id = phaseOpen, 1
	m.chans.set(1, chanOpen)
	pub := &amqp.BasicPublish{RoutingKey: "orders.created"}
	body := make([]byte, 16)
	props := &amqp.Properties{}
	const burst = 256
	res := make([]engine.Result, burst)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += burst {
		for range burst {
			m.Recv(amqp.Command{Channel: 1, Method: pub, Props: props, Body: body})
		}
		r := m.Ready()
		if len(r.Commands) != burst {
			b.Fatalf("%d commands, want %d", len(r.Commands), burst)
		}
		m.Results(res[:len(r.Commands)])
		m.Advance()
	}
}
