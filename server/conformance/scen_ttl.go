package main

import (
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// ttlWait is how long TTL scenarios wait for expiries of tens of
// milliseconds: generous, so that both brokers have settled.
const ttlWait = 400 * time.Millisecond

// dlxTo returns queue arguments that dead-letter through the default
// exchange to queue target, plus extra.
func dlxTo(s *S, target string, extra amqp.Table) amqp.Table {
	t := amqp.Table{"x-dead-letter-exchange": "", "x-dead-letter-routing-key": s.N(target)}
	for k, v := range extra {
		t[k] = v
	}
	return t
}

// ttlScenarios: per-queue and per-message TTL, TTL 0, the head-of-line
// caveat and queue expiry.
var ttlScenarios = []scenario{
	{"ttl-queue", "x-message-ttl expires messages and dead-letters them with an x-death entry (reason expired).", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Args: dlxTo(s, "dead", amqp.Table{"x-message-ttl": int32(50)})})
		c.Pub("", "q", "m1")
		c.Publish(Msg{Key: "q", Body: "m2", P: amqp.Publishing{Headers: amqp.Table{"h": int32(1)}, ContentType: "text/plain"}})
		c.Sync()
		s.Wait(ttlWait)
		s.Count("q")
		c.Get("dead")
		c.Get("dead")
		c.Get("dead")
	}},
	{"ttl-message-values", "Per-message expiration: invalid values are 406 on basic.publish; valid ones are delivered unchanged or expire.", func(s *S) {
		conn := s.Conn()
		conn.Ch().DeclareQ("q", Q{})
		for _, e := range []string{"abc", "-1", "1.5", "1e3", " 5", "315360000001"} {
			c := conn.Ch()
			c.Publish(Msg{Key: "q", Body: "bad " + e, P: amqp.Publishing{Expiration: e}})
			c.Sync()
		}
		c := conn.Ch()
		for _, e := range []string{"0", "-0", "+5", "05", "+100000", "0100000", "100000", "315360000000"} {
			c.Publish(Msg{Key: "q", Body: "ok " + e, P: amqp.Publishing{Expiration: e}})
		}
		c.Sync()
		s.Wait(ttlWait)
		s.Count("q")
		for range 5 {
			c.GetAuto("q")
		}
	}},
	{"ttl-min-of-queue-and-message", "When both a queue TTL and a message expiration are set, the lower applies.", func(s *S) {
		c := s.Ch()
		// One dead-letter queue each: both expire at about the same time.
		c.DeclareQ("dead-a", Q{})
		c.DeclareQ("dead-b", Q{})
		c.DeclareQ("long-q", Q{Args: dlxTo(s, "dead-a", amqp.Table{"x-message-ttl": int32(10000)})})
		c.DeclareQ("short-q", Q{Args: dlxTo(s, "dead-b", amqp.Table{"x-message-ttl": int32(50)})})
		c.Publish(Msg{Key: "long-q", Body: "short-msg", P: amqp.Publishing{Expiration: "50"}})
		c.Publish(Msg{Key: "short-q", Body: "long-msg", P: amqp.Publishing{Expiration: "10000"}})
		c.Sync()
		s.Wait(ttlWait)
		s.Count("long-q")
		s.Count("short-q")
		c.Get("dead-a")
		c.Get("dead-b")
	}},
	{"ttl-zero-no-consumer", "x-message-ttl 0 with no consumer: the message is dead-lettered at once; basic.get finds nothing.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Args: dlxTo(s, "dead", amqp.Table{"x-message-ttl": int32(0)})})
		c.Pub("", "q", "m1")
		c.Sync()
		c.Get("q")
		s.Wait(quietWait)
		s.Count("q")
		c.Get("dead")
	}},
	{"ttl-zero-consumer", "x-message-ttl 0 with a consumer: delivered while prefetch allows, else dead-lettered; a requeued TTL-0 message expires.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Args: dlxTo(s, "dead", amqp.Table{"x-message-ttl": int32(0)})})
		k := s.Ch()
		k.Qos(1)
		cons := k.Consume("q", Cons{Tag: "c"})
		c.Pub("", "q", "m1")
		tags := cons.Recv(1)
		c.Pub("", "q", "m2")
		c.Sync()
		s.Wait(quietWait)
		s.Count("q")
		s.Dump("dead")
		if len(tags) == 1 {
			k.Nack(tags[0], N{Requeue: true})
		}
		cons.NoMore()
		s.Count("q")
		c.Get("dead")
	}},
	{"ttl-message-zero-consumer", "expiration \"0\" on a queue with a waiting consumer: delivered, the property kept.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		cons := s.Ch().Consume("q", Cons{Tag: "c", NoAck: true})
		c.Publish(Msg{Key: "q", Body: "m1", P: amqp.Publishing{Expiration: "0"}})
		cons.Recv(1)
	}},
	{"ttl-head-of-line", "Per-message TTL: an expired message behind an unexpired one stays until it reaches the head (the caveat).", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Args: dlxTo(s, "dead", nil)})
		c.Publish(Msg{Key: "q", Body: "long", P: amqp.Publishing{Expiration: "800"}})
		c.Publish(Msg{Key: "q", Body: "short", P: amqp.Publishing{Expiration: "50"}})
		c.Pub("", "q", "none")
		c.Sync()
		s.Wait(ttlWait)
		s.Count("q")
		s.Count("dead")
		s.Wait(ttlWait + ttlWait)
		s.Count("q")
		s.Dump("dead")
		c.Publish(Msg{Key: "q", Body: "keep", P: amqp.Publishing{Expiration: "100000"}})
		c.Publish(Msg{Key: "q", Body: "short2", P: amqp.Publishing{Expiration: "50"}})
		c.Sync()
		s.Wait(ttlWait)
		s.Count("q")
		c.GetAuto("q")
		s.Wait(quietWait)
		s.Count("q")
		s.Dump("dead")
		s.Dump("q")
	}},
	{"queue-expires", "x-expires deletes an unused queue (messages not dead-lettered); a consumer keeps it alive.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("idle", Q{Args: amqp.Table{"x-expires": int32(150)}})
		c.DeclareQ("full", Q{Args: dlxTo(s, "dead", amqp.Table{"x-expires": int32(150)})})
		c.Pub("", "full", "m1")
		c.Pub("", "full", "m2")
		c.DeclareQ("consumed", Q{Args: amqp.Table{"x-expires": int32(150)}})
		k := s.Ch()
		k.Consume("consumed", Cons{Tag: "c"})
		s.Wait(2 * ttlWait)
		s.Count("idle")
		s.Count("full")
		s.Count("dead")
		s.Count("consumed")
		k.Cancel("c")
		s.Wait(2 * ttlWait)
		s.Count("consumed")
	}},
}
