package conn

import (
	"sync/atomic"
	"testing"

	"warren/engine"
	"warren/engine/amqp"
	"warren/server/broker"
)

// ackCountingPipe is a pipe transport whose reads could wait for acks: it
// counts what the connection told it (acksHeld).
type ackCountingPipe struct {
	pipeTransport
	held *atomic.Int32
}

func (p ackCountingPipe) AcksHeld() { p.held.Add(1) }

// TestAcksWaitedForOnlyWithDeliveriesInHand: after a batch of acks the
// next read may wait for more only when the batch is two or more acks
// and nothing else, and every channel it acked still has ackBacklog
// deliveries unacknowledged (acks.go).
func TestAcksWaitedForOnlyWithDeliveriesInHand(t *testing.T) {
	b := broker.Start(engine.Config{}, nil)
	t.Cleanup(b.Stop)
	var held atomic.Int32
	c := startPipeOn(t, b, Config{}, func(p pipeTransport) Transport { return ackCountingPipe{p, &held} })
	c.handshake(0)
	c.method(1, &amqp.ChannelOpen{})
	c.expect(&amqp.ChannelOpenOk{})
	c.method(1, &amqp.BasicQos{PrefetchCount: 300})
	c.expect(&amqp.BasicQosOk{})
	c.method(1, &amqp.QueueDeclare{Queue: "work"})
	c.expect(&amqp.QueueDeclareOk{})
	c.method(1, &amqp.BasicConsume{Queue: "work", ConsumerTag: "w"})
	c.expect(&amqp.BasicConsumeOk{})
	go publishNumbered(c.nc, "work", 300)
	for range 300 {
		c.expect(&amqp.BasicDeliver{})
	}

	acks := func(tags ...uint64) []byte {
		var b []byte
		for _, tag := range tags {
			b, _ = amqp.AppendMethodFrame(b, 1, &amqp.BasicAck{DeliveryTag: tag})
		}
		return b
	}
	tags := func(from, to uint64) []uint64 {
		var ts []uint64
		for tag := from; tag <= to; tag++ {
			ts = append(ts, tag)
		}
		return ts
	}
	// step sends one write and then a basic.qos, whose qos-ok says the
	// write was taken; held must then have grown by want.
	step := func(name string, write []byte, want int32) {
		t.Helper()
		before := held.Load()
		c.send(write)
		c.method(1, &amqp.BasicQos{PrefetchCount: 300})
		c.expect(&amqp.BasicQosOk{})
		if got := held.Load() - before; got != want {
			t.Fatalf("%s: acksHeld called %d times, want %d", name, got, want)
		}
	}
	step("ten acks, 290 left unacknowledged", acks(tags(1, 10)...), 1)
	step("one ack alone", acks(11), 0)
	publish, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicPublish{RoutingKey: "elsewhere"})
	publish, _ = amqp.AppendContent(publish, 1, amqp.ClassBasic, amqp.Properties{}, []byte("x"), 131072)
	step("acks and a publish", append(acks(12, 13), publish...), 0)
	step("acks that leave 128", acks(tags(14, 172)...), 1)
	step("acks that leave 126", acks(173, 174), 0)
}
