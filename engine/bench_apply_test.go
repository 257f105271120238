package engine

import "testing"

// BenchmarkApplyPublishDeliverAck is BenchmarkPublishDeliverAck as the
// drivers run it: every input a Command value through Apply, as the
// script runner hands them over (the wrappers are a convenience for tests
// and tools); engine/amqpconn, for driver/conn and the hub, gives
// publishes and acks by pointer (BenchmarkApplyPublishDeliverAckByPointer).
// A speed-up that only the wrappers see does not reach a client; these
// must not regress.
func BenchmarkApplyPublishDeliverAck(b *testing.B) {
	body := []byte("0123456789abcdef") // 16 bytes
	for _, via := range []string{"direct", "default"} {
		b.Run("exchange="+via, func(b *testing.B) {
			br, ch := benchBroker(b, Config{Seed: 1})
			must(b, br.Apply(CmdQueueDeclare{Channel: ch, Declare: QueueDeclare{Queue: "q"}}).Err)
			pub := CmdBasicPublish{Channel: ch, Publish: BasicPublish{Exchange: "", RoutingKey: "q", Body: body}}
			if via == "direct" {
				must(b, br.Apply(CmdExchangeDeclare{Channel: ch, Declare: ExchangeDeclare{Exchange: "x", Type: KindDirect}}).Err)
				must(b, br.Apply(CmdQueueBind{Channel: ch, Bind: QueueBind{Queue: "q", Exchange: "x", RoutingKey: "k"}}).Err)
				pub.Publish = BasicPublish{Exchange: "x", RoutingKey: "k", Body: body}
			}
			must(b, br.Apply(CmdBasicConsume{Channel: ch, Consume: BasicConsume{Queue: "q", ConsumerTag: "c"}}).Err)
			events := br.DrainEvents(nil)
			var cmd Command
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cmd = pub
				if err := br.Apply(cmd).Err; err != nil {
					b.Fatal(err)
				}
				cmd = CmdBasicAck{Channel: ch, DeliveryTag: uint64(i + 1)}
				if err := br.Apply(cmd).Err; err != nil {
					b.Fatal(err)
				}
				events = br.DrainEvents(events[:0])
				if i%1024 == 1023 {
					yieldLikeADriver()
				}
			}
			b.StopTimer()
			if len(events) == 0 || events[len(events)-1].Kind != EvAcked {
				b.Fatalf("last event %v, want acked", events)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkApplyPublishDeliverAckByPointer is BenchmarkApplyPublishDeliverAck
// with the commands given by pointer into storage the caller reuses, as
// engine/amqpconn hands over publishes and acks: the one allocation left
// is the message's.
func BenchmarkApplyPublishDeliverAckByPointer(b *testing.B) {
	body := []byte("0123456789abcdef") // 16 bytes
	br, ch := benchBroker(b, Config{Seed: 1})
	must(b, br.Apply(CmdQueueDeclare{Channel: ch, Declare: QueueDeclare{Queue: "q"}}).Err)
	must(b, br.Apply(CmdBasicConsume{Channel: ch, Consume: BasicConsume{Queue: "q", ConsumerTag: "c"}}).Err)
	events := br.DrainEvents(nil)
	pub := &CmdBasicPublish{Channel: ch, Publish: BasicPublish{Exchange: "", RoutingKey: "q", Body: body}}
	ack := &CmdBasicAck{Channel: ch}
	var cmd Command
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd = pub
		if err := br.Apply(cmd).Err; err != nil {
			b.Fatal(err)
		}
		ack.DeliveryTag = uint64(i + 1)
		cmd = ack
		if err := br.Apply(cmd).Err; err != nil {
			b.Fatal(err)
		}
		events = br.DrainEvents(events[:0])
		if i%1024 == 1023 {
			yieldLikeADriver()
		}
	}
	b.StopTimer()
	if len(events) == 0 || events[len(events)-1].Kind != EvAcked {
		b.Fatalf("last event %v, want acked", events)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}
