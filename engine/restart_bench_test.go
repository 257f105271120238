package engine_test

import (
	"strconv"
	"testing"

	"warren/engine"
)

// BenchmarkRestart measures one Restart call on a durable classic queue
// of 200,000 messages, half of them transient, with 10,000 more
// unacknowledged: the call walks every message once (dropTransient) and
// requeues every delivery; the discards' events come in later calls.
func BenchmarkRestart(b *testing.B) {
	persistent := &engine.Properties{DeliveryMode: 2}
	transient := &engine.Properties{DeliveryMode: 1}
	body := []byte("0123456789abcdef")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		br := engine.New(engine.Config{Seed: 1})
		c, _ := br.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
		ch, _ := br.OpenChannel(c, 1)
		if _, err := br.QueueDeclare(ch, engine.QueueDeclare{Queue: "q", Durable: true}); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 210000; j++ {
			p := persistent
			if j%2 == 1 {
				p = transient
			}
			if err := br.BasicPublish(ch, engine.BasicPublish{RoutingKey: "q", Props: p, Body: body}); err != nil {
				b.Fatal(err)
			}
		}
		if err := br.BasicQos(ch, engine.BasicQos{PrefetchCount: 10000}); err != nil {
			b.Fatal(err)
		}
		if _, err := br.BasicConsume(ch, engine.BasicConsume{Queue: "q"}); err != nil {
			b.Fatal(err)
		}
		br.Settle(br.Now())
		br.DrainEvents(nil)
		b.StartTimer()
		br.Restart(br.Now() + 1000)
		b.StopTimer()
		if n := br.PendingEvents(); n > 20000 {
			b.Fatalf("the restart made %d events in one call", n)
		}
	}
}

// BenchmarkRestartTransientQueues measures one Restart call dropping
// 20,000 exclusive queues, each bound to amq.topic (a reply queue each):
// the transient bindings go in one pass per exchange (unbindTransient).
func BenchmarkRestartTransientQueues(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		br := engine.New(engine.Config{Seed: 1})
		c, _ := br.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
		ch, _ := br.OpenChannel(c, 1)
		for j := 0; j < 20000; j++ {
			name := "reply-" + strconv.Itoa(j)
			if _, err := br.QueueDeclare(ch, engine.QueueDeclare{Queue: name, Exclusive: true}); err != nil {
				b.Fatal(err)
			}
			if err := br.QueueBind(ch, engine.QueueBind{Queue: name, Exchange: "amq.topic", RoutingKey: "reply." + strconv.Itoa(j)}); err != nil {
				b.Fatal(err)
			}
		}
		br.DrainEvents(nil)
		b.StartTimer()
		br.Restart(br.Now())
		b.StopTimer()
		if q, _ := br.VhostTotals("/"); q.Queues != 0 {
			b.Fatalf("%d queues left", q.Queues)
		}
	}
}
