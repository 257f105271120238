package main

import (
	"fmt"
	"strings"

	amqp "github.com/rabbitmq/amqp091-go"
)

// quorum returns queue arguments for a quorum queue, plus extra.
func quorum(extra amqp.Table) amqp.Table {
	t := amqp.Table{"x-queue-type": "quorum"}
	for k, v := range extra {
		t[k] = v
	}
	return t
}

// quorumScenarios: quorum queues, where 4.x and 3.10 differ most.
var quorumScenarios = []scenario{
	{"quorum-delivery-limit", "A quorum queue message nacked with requeue again and again (3.10: no default delivery limit; 4.x: 20).", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Durable: true, Args: quorum(dlxTo(s, "dead", nil))})
		c.Pub("", "q", "m")
		c.Sync()
		var rounds []string
		for i := range 25 {
			d, ok, err := c.ch.Get(s.N("q"), false)
			if err != nil || !ok {
				rounds = append(rounds, fmt.Sprintf("%d:%s", i+1, map[bool]string{true: "error", false: "empty"}[err != nil]))
				break
			}
			rounds = append(rounds, fmt.Sprintf("%d:redelivered=%t", i+1, d.Redelivered))
			c.ch.Nack(d.DeliveryTag, false, true)
		}
		c.log("basic.get + basic.nack(requeue) rounds: %s", strings.Join(rounds, " "))
		s.Wait(quietWait)
		s.Count("q")
		c.Get("dead")
	}},
	{"quorum-basics", "A quorum queue's declare-ok, redeclaration without x-queue-type, and delivery.", func(s *S) {
		conn := s.Conn()
		conn.Ch().DeclareQ("q", Q{Durable: true, Args: quorum(nil)})
		conn.Ch().DeclareQ("q", Q{Durable: true})
		conn.Ch().DeclareQ("q", Q{Durable: true, Args: amqp.Table{"x-queue-type": "classic"}})
		c := conn.Ch()
		c.Pub("", "q", "m1")
		c.Sync()
		tag := c.Get("q")
		c.Reject(tag, N{Requeue: true})
		c.Get("q")
	}},
	{"quorum-requeue-order", "Where a quorum queue puts messages returned by a closed channel and by nack.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{Durable: true, Args: quorum(nil)})
		publishN(c, "q", "m", 5)
		c.Sync()
		k := s.Ch()
		tags := k.Consume("q", Cons{Tag: "k"}).Recv(3)
		k.Cancel("k")
		if len(tags) == 3 {
			k.Nack(tags[1], N{Requeue: true})
		}
		k.Sync()
		k.Close()
		s.Wait(quietWait)
		s.Dump("q")
	}},
	{"quorum-ttl", "A quorum queue's message TTL dead-letters expired messages.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Durable: true, Args: quorum(dlxTo(s, "dead", amqp.Table{"x-message-ttl": int32(50)}))})
		publishN(c, "q", "m", 2)
		c.Sync()
		s.Wait(ttlWait)
		s.Count("q")
		c.Get("dead")
		c.Get("dead")
	}},
	{"quorum-sac-priority", "Single active consumer on a quorum queue with consumer priorities: which consumer is active.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{Durable: true, Args: quorum(amqp.Table{"x-single-active-consumer": true})})
		k1, k2 := s.Ch(), s.Ch()
		lo := k1.Consume("q", Cons{Tag: "p-low", NoAck: true, Args: amqp.Table{"x-priority": int32(1)}})
		hi := k2.Consume("q", Cons{Tag: "p-high", NoAck: true, Args: amqp.Table{"x-priority": int32(10)}})
		c.Pub("", "q", "m1")
		c.Sync()
		lo.NoMore()
		hi.NoMore()
	}},
}
