package main

import (
	"fmt"

	amqp "github.com/rabbitmq/amqp091-go"
)

// publishN publishes bodies prefix1..prefixN to a queue by the default
// exchange.
func publishN(c *Ch, queue, prefix string, n int) {
	for i := 1; i <= n; i++ {
		c.Pub("", queue, fmt.Sprintf("%s%d", prefix, i))
	}
}

// maxlenScenarios: x-max-length and x-max-length-bytes with each overflow
// mode, seen through publisher confirms and dead-lettering.
var maxlenScenarios = []scenario{
	{"maxlen-drop-head", "drop-head (default): every publish acked, the head dead-lettered with reason maxlen.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Args: dlxTo(s, "dead", amqp.Table{"x-max-length": int32(2)})})
		c.Confirm()
		publishN(c, "q", "m", 3)
		c.Confirms(3)
		s.Dump("q")
		c.Get("dead")
	}},
	{"maxlen-reject-publish", "reject-publish: the overflowing publish is nacked and not dead-lettered.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Args: dlxTo(s, "dead", amqp.Table{"x-max-length": int32(2), "x-overflow": "reject-publish"})})
		c.Confirm()
		publishN(c, "q", "m", 3)
		c.Confirms(3)
		s.Dump("q")
		s.Count("dead")
	}},
	{"maxlen-reject-publish-dlx", "reject-publish-dlx: the overflowing publish is nacked and dead-lettered (maxlen).", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("q", Q{Args: dlxTo(s, "dead", amqp.Table{"x-max-length": int32(2), "x-overflow": "reject-publish-dlx"})})
		c.Confirm()
		publishN(c, "q", "m", 3)
		c.Confirms(3)
		s.Dump("q")
		c.Get("dead")
	}},
	{"maxlen-bytes", "x-max-length-bytes counts body bytes: drop-head keeps what fits, an oversized message is dropped, reject-publish nacks.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("a", Q{Args: amqp.Table{"x-max-length-bytes": int32(10)}})
		c.DeclareQ("b", Q{Args: amqp.Table{"x-max-length-bytes": int32(10)}})
		c.DeclareQ("r", Q{Args: amqp.Table{"x-max-length-bytes": int32(10), "x-overflow": "reject-publish"}})
		c.Confirm()
		for _, body := range []string{"aaaaaa", "bbbbbb", "cccccc"} {
			c.Pub("", "a", body)
		}
		c.Pub("", "b", "elevenbytes")
		c.Pub("", "r", "dddddd")
		c.Pub("", "r", "eeeeee")
		c.Confirms(6)
		s.Dump("a")
		s.Dump("b")
		s.Dump("r")
	}},
	{"maxlen-zero", "x-max-length 0: drop-head dead-letters at once unless a consumer can take it; reject-publish nacks even with a consumer.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("dh", Q{Args: dlxTo(s, "dead", amqp.Table{"x-max-length": int32(0)})})
		c.DeclareQ("dhc", Q{Args: dlxTo(s, "dead", amqp.Table{"x-max-length": int32(0)})})
		c.DeclareQ("rp", Q{Args: amqp.Table{"x-max-length": int32(0), "x-overflow": "reject-publish"}})
		k := s.Ch()
		kd := k.Consume("dhc", Cons{Tag: "dhc", NoAck: true})
		kr := k.Consume("rp", Cons{Tag: "rp", NoAck: true})
		c.Confirm()
		c.Pub("", "dh", "m1")
		c.Pub("", "dhc", "m2")
		c.Pub("", "rp", "m3")
		c.Confirms(3)
		kd.NoMore()
		kr.NoMore()
		s.Dump("dead")
	}},
	{"maxlen-unacked", "Unacked messages do not count toward the limit; a requeue may exceed it (reject-publish) or push the head out (drop-head).", func(s *S) {
		c := s.Ch()
		c.DeclareQ("dead", Q{})
		c.DeclareQ("rp", Q{Args: amqp.Table{"x-max-length": int32(2), "x-overflow": "reject-publish"}})
		c.DeclareQ("dh", Q{Args: dlxTo(s, "dead", amqp.Table{"x-max-length": int32(1)})})
		c.Confirm()
		c.Pub("", "rp", "first-r")
		c.Pub("", "dh", "first-d")
		c.Confirms(2)
		g := s.Ch()
		g.Get("rp")
		g.Get("dh")
		publishN(c, "rp", "r", 4)
		publishN(c, "dh", "d", 3)
		c.Confirms(7)
		s.Count("rp")
		s.Count("dh")
		g.Close()
		s.Wait(quietWait)
		s.Dump("rp")
		s.Dump("dh")
		s.Dump("dead")
	}},
	{"maxlen-fanout-mandatory", "A fanout into a full reject-publish queue and a free one: nacked, yet enqueued in the free one; mandatory brings no return.", func(s *S) {
		c := s.Ch()
		c.DeclareX("x", "fanout", X{})
		c.DeclareQ("full", Q{Args: amqp.Table{"x-max-length": int32(0), "x-overflow": "reject-publish"}})
		c.DeclareQ("free", Q{})
		c.Bind("full", "x", "", nil)
		c.Bind("free", "x", "", nil)
		c.Confirm()
		c.Publish(Msg{Ex: "x", Body: "m1"})
		c.Publish(Msg{Key: "full", Body: "m2", Mandatory: true})
		c.Confirms(2)
		s.Dump("free")
		s.Dump("full")
	}},
}
