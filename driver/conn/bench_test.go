package conn

import (
	"testing"

	"warren/engine"
	"warren/engine/amqp"
	"warren/server/broker"
)

// BenchmarkPipelinedPublish runs publishes through a whole connection —
// frame reader, assembler, batches, the broker's lock, the engine — from a
// client over a pipe that writes 100 at a time, and reports time and
// allocations per publish. Every allocation a message brings is GC work
// later (at 100,000 msgs/s a publish+consume ran the GC 46 times in a
// second while each batch had an array of its own, 15 times after),
// so allocs/op is the number to watch. The queued messages themselves
// (the engine's Message) are the part that must stay.
func BenchmarkPipelinedPublish(b *testing.B) {
	const queue = "orders.created" // a name longer than a byte, as most are
	br := broker.Start(engine.Config{}, nil)
	b.Cleanup(br.Stop)
	c := startPipe(b, br, Config{})
	c.handshake(0)
	c.method(1, &amqp.ChannelOpen{})
	c.expect(&amqp.ChannelOpenOk{})
	c.method(1, &amqp.QueueDeclare{Queue: queue})
	c.expect(&amqp.QueueDeclareOk{})

	const perWrite = 100
	var burst []byte
	for range perWrite {
		burst, _ = amqp.AppendMethodFrame(burst, 1, &amqp.BasicPublish{RoutingKey: queue})
		burst, _ = amqp.AppendContent(burst, 1, amqp.ClassBasic, amqp.Properties{}, make([]byte, 16), 131072)
	}
	one, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: queue})
	one, _ = amqp.AppendContent(one, 1, amqp.ClassBasic, amqp.Properties{}, make([]byte, 16), 131072)

	b.ReportAllocs()
	b.ResetTimer()
	for sent := 0; sent < b.N; {
		if b.N-sent >= perWrite {
			c.send(burst)
			sent += perWrite
		} else {
			c.send(one)
			sent++
		}
	}
	// A passive declare answers after every publish before it has run.
	c.method(1, &amqp.QueueDeclare{Queue: queue, Passive: true})
	ok := c.expect(&amqp.QueueDeclareOk{}).Method.(*amqp.QueueDeclareOk)
	b.StopTimer()
	if int(ok.MessageCount) != b.N {
		b.Fatalf("queue holds %d messages, want %d", ok.MessageCount, b.N)
	}
}
