package main

import (
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// messageScenarios: what a message carries through the broker: header
// field types, large and empty bodies, delivery tags.
var messageScenarios = []scenario{
	{"header-types", "Every AMQP field type in headers comes back with its type (or as the broker converts it).", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		c.Publish(Msg{Key: "q", Body: "typed", P: amqp.Publishing{Headers: amqp.Table{
			"bool": true, "int8": int8(-8), "uint8": uint8(8), "int16": int16(-16), "int32": int32(-32),
			"int64": int64(-64), "float32": float32(1.5), "float64": 2.25, "decimal": amqp.Decimal{Scale: 2, Value: 12345},
			"string": "s", "bytes": []byte("raw"), "time": time.Unix(1700000000, 0), "void": nil,
			"array": []any{int32(1), "two", []any{true}}, "table": amqp.Table{"k": "v", "n": amqp.Table{"deep": int16(1)}},
		}}})
		c.Sync()
		c.GetAuto("q")
	}},
	{"message-bodies", "An empty body, and bodies larger than frame-max (split into several body frames), arrive intact.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		c.Pub("", "q", "")
		big := strings.Repeat("0123456789abcdef", 300000/16)
		c.Publish(Msg{Key: "q", Body: big})
		c.Publish(Msg{Key: "q", Body: big + big + "tail"})
		c.Sync()
		for range 4 {
			c.GetAuto("q")
		}
	}},
	{"delivery-tags", "Delivery tags count up per channel across basic.get and consumers, and restart on a new channel.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("a", Q{})
		c.DeclareQ("b", Q{})
		publishN(c, "a", "a", 3)
		publishN(c, "b", "b", 2)
		c.Sync()
		k := s.Ch()
		k.Get("a")
		k.Consume("b", Cons{Tag: "cb"}).Recv(2)
		k.Get("a")
		k2 := s.Ch()
		k2.Get("a")
	}},
	{"ttl-requeue-expired", "A message whose TTL ran out while it was unacked is dead-lettered (expired) when requeued, not redelivered.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Args: dlxTo(s, "dead", amqp.Table{"x-message-ttl": int32(100)})})
		publishN(c, "q", "m", 2)
		c.Sync()
		k := s.Ch()
		tags := k.Consume("q", Cons{Tag: "c"}).Recv(2)
		s.Wait(ttlWait)
		if len(tags) == 2 {
			k.Nack(tags[1], N{Multiple: true, Requeue: true})
		}
		k.Sync()
		s.Wait(quietWait)
		s.Count("q")
		s.Dump("dead")
	}},
	{"exchange-binding-cycle", "Exchange-to-exchange bindings that form a cycle deliver once per queue.", func(s *S) {
		c := s.Ch()
		c.DeclareX("x1", "fanout", X{})
		c.DeclareX("x2", "fanout", X{})
		c.DeclareQ("q1", Q{})
		c.DeclareQ("q2", Q{})
		c.BindX("x2", "x1", "", nil)
		c.BindX("x1", "x2", "", nil)
		c.Bind("q1", "x1", "", nil)
		c.Bind("q2", "x2", "", nil)
		c.Bind("q2", "x1", "", nil)
		c.Pub("x1", "", "m1")
		c.Pub("x2", "", "m2")
		c.Sync()
		s.Dump("q1")
		s.Dump("q2")
	}},
	{"no-ack-ignores-prefetch", "A no-ack consumer is not limited by basic.qos; acking its tags is 406.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		publishN(c, "q", "m", 4)
		c.Sync()
		k := s.Ch()
		k.Qos(1)
		cons := k.Consume("q", Cons{Tag: "c", NoAck: true})
		cons.Recv(4)
		cons.NoMore()
		k.Ack(1)
		k.Sync()
		s.Count("q")
	}},
}
