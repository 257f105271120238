package main

import (
	"fmt"

	amqp "github.com/rabbitmq/amqp091-go"
)

// consumerScenarios: consumer priorities, single active consumer and
// priority queues.
var consumerScenarios = []scenario{
	{"consumer-priority", "A higher x-priority consumer gets messages while it has prefetch room; then the lower one does.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		lo, hi := s.Ch(), s.Ch()
		lo.Qos(1)
		hi.Qos(1)
		kl := lo.Consume("q", Cons{Tag: "low", Args: amqp.Table{"x-priority": int32(1)}})
		kh := hi.Consume("q", Cons{Tag: "high", Args: amqp.Table{"x-priority": int32(10)}})
		publishN(c, "q", "p", 3)
		c.Sync()
		th := kh.Recv(1)
		kl.Recv(1)
		kh.NoMore()
		kl.NoMore()
		if len(th) == 1 {
			hi.Ack(th[0])
		}
		kh.Recv(1)
		kl.NoMore()
	}},
	{"single-active-consumer", "x-single-active-consumer: the first consumer gets everything; on its cancel the next takes over at once; its unacked come back redelivered.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{Args: amqp.Table{"x-single-active-consumer": true}})
		k1, k2 := s.Ch(), s.Ch()
		a := k1.Consume("q", Cons{Tag: "sac-1"})
		b := k2.Consume("q", Cons{Tag: "sac-2"})
		publishN(c, "q", "s", 3)
		c.Sync()
		a.Recv(3)
		b.NoMore()
		c.DeclareQ("q", Q{Passive: true})
		k1.Cancel("sac-1")
		c.Pub("", "q", "s4")
		b.Recv(1)
		k1.Close()
		b.Recv(3)
		b.NoMore()
		s.Ch().Consume("q", Cons{Tag: "ex", Exclusive: true})
	}},
	{"sac-priority", "Single active consumer with consumer priorities: which consumer is active.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{Args: amqp.Table{"x-single-active-consumer": true}})
		k1, k2 := s.Ch(), s.Ch()
		lo := k1.Consume("q", Cons{Tag: "p-low", NoAck: true, Args: amqp.Table{"x-priority": int32(1)}})
		hi := k2.Consume("q", Cons{Tag: "p-high", NoAck: true, Args: amqp.Table{"x-priority": int32(10)}})
		c.Pub("", "q", "m1")
		c.Sync()
		lo.NoMore()
		hi.NoMore()
	}},
	{"priority-queue", "x-max-priority: higher priorities first, FIFO within a level, priorities above the max capped but delivered unchanged; requeue keeps priority order.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{Args: amqp.Table{"x-max-priority": int32(5)}})
		for _, p := range []uint8{1, 9, 3, 0, 5, 7} {
			c.Publish(Msg{Key: "q", Body: fmt.Sprintf("p%d", p), P: amqp.Publishing{Priority: p}})
		}
		c.Sync()
		t1 := c.Get("q")
		t2 := c.Get("q")
		c.Nack(t2, N{Requeue: true})
		c.Nack(t1, N{Requeue: true})
		c.Sync()
		for range 7 {
			c.GetAuto("q")
		}
	}},
}
