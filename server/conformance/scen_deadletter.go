package main

import (
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// deadLetterScenarios: x-death and x-first-death headers, CC/BCC handling,
// cycles, and dead-lettering to a missing exchange.
var deadLetterScenarios = []scenario{
	{"dlx-headers", "A dead-lettered message keeps its properties except expiration (moved to original-expiration); CC and BCC are removed when a dead-letter routing key is set.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("b", Q{})
		c.DeclareQ("cc1", Q{})
		c.DeclareQ("a", Q{Args: dlxTo(s, "b", amqp.Table{"x-message-ttl": int32(50)})})
		c.Publish(Msg{Key: "a", Body: "m", P: amqp.Publishing{
			Headers:     amqp.Table{"CC": []any{s.N("cc1")}, "BCC": []any{s.N("bcc1")}, "h1": "v1", "n": int64(7)},
			Expiration:  "40",
			ContentType: "text/plain", DeliveryMode: 2, Priority: 3, CorrelationId: "corr", ReplyTo: "rt",
			MessageId: "mid", Timestamp: time.Unix(1700000000, 0), Type: "typ", AppId: "app",
		}})
		c.Sync()
		s.Wait(ttlWait)
		c.Get("b")
		s.Count("cc1")
	}},
	{"dlx-cc-bcc-no-dlrk", "Without a dead-letter routing key the original key, CC and BCC all route the dead letter; CC stays in the headers.", func(s *S) {
		c := s.Ch()
		c.DeclareX("d", "direct", X{})
		for _, q := range []string{"b", "c", "y"} {
			c.DeclareQ(q, Q{})
		}
		c.DeclareQ("a", Q{Args: amqp.Table{"x-message-ttl": int32(50), "x-dead-letter-exchange": s.N("d")}})
		c.Bind("b", "d", s.N("a"), nil)
		c.Bind("c", "d", "xx", nil)
		c.Bind("y", "d", "yy", nil)
		c.Publish(Msg{Key: "a", Body: "m", P: amqp.Publishing{Headers: amqp.Table{"CC": []any{"xx"}, "BCC": []any{"yy"}}}})
		c.Sync()
		s.Wait(ttlWait)
		c.Get("b")
		c.Get("c")
		c.Get("y")
	}},
	{"dlx-cc-with-dlrk", "With a dead-letter routing key only that key routes; CC and BCC are ignored.", func(s *S) {
		c := s.Ch()
		c.DeclareX("d", "direct", X{})
		c.DeclareQ("z", Q{})
		c.DeclareQ("c", Q{})
		c.DeclareQ("a", Q{Args: amqp.Table{"x-message-ttl": int32(50), "x-dead-letter-exchange": s.N("d"), "x-dead-letter-routing-key": "zz"}})
		c.Bind("z", "d", "zz", nil)
		c.Bind("c", "d", "xx", nil)
		c.Publish(Msg{Key: "a", Body: "m", P: amqp.Publishing{Headers: amqp.Table{"CC": []any{"xx"}}}})
		c.Sync()
		s.Wait(ttlWait)
		s.Count("c")
		c.Get("z")
	}},
	{"dlx-reject-cycle", "A reject cycle (queue dead-letters to itself) is not dropped; x-death counts up per round.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("a", Q{Args: dlxTo(s, "a", nil)})
		c.Pub("", "a", "m")
		c.Sync()
		for range 4 {
			if tag := c.Get("a"); tag != 0 {
				c.Reject(tag, N{})
			}
			c.Sync()
		}
		s.Count("a")
	}},
	{"dlx-expired-rejected-cycle", "expired then rejected around two queues: one x-death entry per (queue, reason), most recent first, counts incremented.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("a", Q{Args: dlxTo(s, "b", amqp.Table{"x-message-ttl": int32(50)})})
		c.DeclareQ("b", Q{Args: dlxTo(s, "a", nil)})
		c.Pub("", "a", "m")
		c.Sync()
		for range 3 {
			s.Wait(ttlWait)
			if tag := c.Get("b"); tag != 0 {
				c.Reject(tag, N{})
			}
			c.Sync()
		}
	}},
	{"dlx-ttl-cycles", "Dead-letter cycles without a rejection are dropped: a TTL self-cycle, a two-queue cycle, a max-length cycle; other targets still get the message.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("self", Q{Args: dlxTo(s, "self", amqp.Table{"x-message-ttl": int32(30)})})
		c.DeclareX("f", "fanout", X{})
		c.DeclareQ("fa", Q{Args: amqp.Table{"x-message-ttl": int32(30), "x-dead-letter-exchange": s.N("f")}})
		c.DeclareQ("monitor", Q{})
		c.Bind("fa", "f", "", nil)
		c.Bind("monitor", "f", "", nil)
		c.DeclareQ("p", Q{Args: dlxTo(s, "r", amqp.Table{"x-message-ttl": int32(30)})})
		c.DeclareQ("r", Q{Args: dlxTo(s, "p", amqp.Table{"x-message-ttl": int32(30)})})
		c.DeclareQ("ml", Q{Args: dlxTo(s, "ml", amqp.Table{"x-max-length": int32(1)})})
		c.Pub("", "self", "s")
		c.Pub("", "fa", "f")
		c.Pub("", "p", "p")
		c.Pub("", "ml", "m1")
		c.Pub("", "ml", "m2")
		c.Sync()
		s.Wait(ttlWait)
		for _, q := range []string{"self", "fa", "p", "r"} {
			s.Count(q)
		}
		c.Get("monitor")
		c.Get("ml")
		c.Get("ml")
	}},
	{"dlx-nack-expiration", "nack(requeue=false) dead-letters with reason rejected; the expiration moves to original-expiration.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("b", Q{})
		c.DeclareQ("a", Q{Args: dlxTo(s, "b", nil)})
		c.Publish(Msg{Key: "a", Body: "m", P: amqp.Publishing{Expiration: "60000"}})
		c.Sync()
		k := s.Ch()
		if tags := k.Consume("a", Cons{Tag: "c"}).Recv(1); len(tags) == 1 {
			k.Nack(tags[0], N{})
		}
		k.Sync()
		c.Get("b")
	}},
	{"dlx-missing-exchange", "Dead-lettering to an exchange that does not exist drops the message silently.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("a", Q{Args: amqp.Table{"x-message-ttl": int32(30), "x-dead-letter-exchange": s.N("missing")}})
		c.Pub("", "a", "m")
		c.Sync()
		s.Wait(ttlWait)
		s.Count("a")
		c.Sync()
	}},
	{"dlx-published-x-death", "A client-published x-death header is not history: the first dead-lettering starts its own.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("b", Q{})
		c.DeclareQ("a", Q{Args: dlxTo(s, "b", amqp.Table{"x-message-ttl": int32(30)})})
		forged := []any{amqp.Table{"count": int64(5), "reason": "expired", "queue": s.N("a"), "exchange": "", "routing-keys": []any{s.N("a")}}}
		c.Publish(Msg{Key: "a", Body: "m", P: amqp.Publishing{Headers: amqp.Table{"x-death": forged}}})
		c.Sync()
		s.Wait(ttlWait)
		c.Get("b")
	}},
}
