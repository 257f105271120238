package main

import (
	"fmt"

	amqp "github.com/rabbitmq/amqp091-go"
)

// declareEach declares one fresh queue per case, each on its own channel
// (a refusal closes the channel), and logs the outcomes.
func declareEach(conn *Conn, cases []Q) {
	for i, q := range cases {
		conn.Ch().DeclareQ(fmt.Sprintf("q%02d", i), q)
	}
}

// queueScenarios: declaration, redeclaration, argument validation,
// exclusivity, auto-delete and deletion.
var queueScenarios = []scenario{
	{"queue-redeclare", "Redeclaring a queue differently: 406 naming the first differing property (durable, auto_delete, then args, with types when added or removed), 405 for exclusive.", func(s *S) {
		conn := s.Conn()
		base := amqp.Table{"x-message-ttl": int32(1000), "x-dead-letter-exchange": "a"}
		with := func(k string, v any) amqp.Table {
			t := amqp.Table{}
			for bk, bv := range base {
				t[bk] = bv
			}
			if v == nil {
				delete(t, k)
			} else {
				t[k] = v
			}
			return t
		}
		conn.Ch().DeclareQ("q", Q{Args: base})
		for _, q := range []Q{
			{Args: base},
			{Durable: true, Args: base},
			{AutoDelete: true, Args: base},
			{Exclusive: true, Args: base},
			{Args: with("x-message-ttl", int32(2000))},
			{Args: with("x-message-ttl", nil)},
			{Args: with("x-max-length", int32(5))},
			{Args: with("x-max-length", int64(5))},
			{Args: with("x-overflow", "reject-publish")},
			{Args: with("x-single-active-consumer", true)},
			{Args: with("x-dead-letter-exchange", "b")},
			{Args: with("x-message-ttl", int64(1000))},
			{Args: with("x-message-ttl", int16(1000))},
			{Args: with("x-queue-type", "classic")},
			{Args: with("x-foo", "bar")},
			{Args: with("foo", "bar")},
			{Durable: true, Args: with("x-message-ttl", int32(2000))},
			{Durable: true, AutoDelete: true},
			{Passive: true, Durable: true, Args: amqp.Table{"x-max-length": int32(1)}},
		} {
			conn.Ch().DeclareQ("q", q)
		}
	}},
	{"queue-args-numeric", "Validation of numeric queue arguments: negative, zero, wrong type, bounds.", func(s *S) {
		declareEach(s.Conn(), []Q{
			{Args: amqp.Table{"x-message-ttl": int32(-1)}},
			{Args: amqp.Table{"x-message-ttl": "abc"}},
			{Args: amqp.Table{"x-message-ttl": "1000"}},
			{Args: amqp.Table{"x-message-ttl": 1.5}},
			{Args: amqp.Table{"x-message-ttl": true}},
			{Args: amqp.Table{"x-message-ttl": int32(0)}},
			{Args: amqp.Table{"x-message-ttl": uint8(5)}},
			{Args: amqp.Table{"x-message-ttl": int64(315360000000)}},
			{Args: amqp.Table{"x-message-ttl": int64(315360000001)}},
			{Args: amqp.Table{"x-expires": int32(0)}},
			{Args: amqp.Table{"x-expires": int32(-1)}},
			{Args: amqp.Table{"x-expires": "abc"}},
			{Args: amqp.Table{"x-expires": int32(100000)}},
			{Args: amqp.Table{"x-max-length": int32(-1)}},
			{Args: amqp.Table{"x-max-length": int32(0)}},
			{Args: amqp.Table{"x-max-length": "abc"}},
			{Args: amqp.Table{"x-max-length-bytes": int32(-1)}},
			{Args: amqp.Table{"x-max-priority": int32(0)}},
			{Args: amqp.Table{"x-max-priority": int32(255)}},
			{Args: amqp.Table{"x-max-priority": int32(256)}},
			{Args: amqp.Table{"x-max-priority": int32(-1)}},
			{Args: amqp.Table{"x-max-priority": "5"}},
		})
	}},
	{"queue-args-other", "Validation of string and boolean queue arguments: overflow, queue type, dead-lettering, single active consumer, mode.", func(s *S) {
		declareEach(s.Conn(), []Q{
			{Args: amqp.Table{"x-overflow": "foo"}},
			{Args: amqp.Table{"x-overflow": int32(1)}},
			{Args: amqp.Table{"x-overflow": "reject-publish-dlx"}},
			{Args: amqp.Table{"x-queue-type": "foo"}},
			{Args: amqp.Table{"x-queue-type": int32(1)}},
			{Args: amqp.Table{"x-queue-type": "stream"}},
			{Args: amqp.Table{"x-dead-letter-routing-key": "k"}},
			{Args: amqp.Table{"x-dead-letter-exchange": int32(5)}},
			{Args: amqp.Table{"x-dead-letter-exchange": "nonexistent"}},
			{Args: amqp.Table{"x-dead-letter-exchange": "", "x-dead-letter-routing-key": int32(5)}},
			{Args: amqp.Table{"x-delivery-limit": int32(5)}},
			{Args: amqp.Table{"x-single-active-consumer": "yes"}},
			{Args: amqp.Table{"x-single-active-consumer": int32(1)}},
			{Args: amqp.Table{"x-queue-mode": "foo"}},
			{Args: amqp.Table{"x-dead-letter-strategy": "at-least-once"}},
			{Args: amqp.Table{"x-foo": "bar"}},
		})
	}},
	{"quorum-declare", "Quorum queue rules: durable, not exclusive or auto-delete, no x-max-priority; quorum-only arguments accepted.", func(s *S) {
		declareEach(s.Conn(), []Q{
			{Args: quorum(amqp.Table{})},
			{Durable: true, Exclusive: true, Args: quorum(amqp.Table{})},
			{Durable: true, AutoDelete: true, Args: quorum(amqp.Table{})},
			{Durable: true, Args: quorum(amqp.Table{"x-max-priority": int32(5)})},
			{Durable: true, Args: quorum(amqp.Table{"x-overflow": "reject-publish-dlx"})},
			{Durable: true, Args: quorum(amqp.Table{"x-delivery-limit": int32(3), "x-expires": int32(100000), "x-message-ttl": int32(1000)})},
			{Durable: true, Args: quorum(amqp.Table{"x-dead-letter-strategy": "at-least-once"})},
			{Durable: true, Args: quorum(amqp.Table{"x-dead-letter-strategy": "foo"})},
		})
		conn := s.Conn()
		conn.Ch().DeclareQ("q05", Q{Durable: true, Args: amqp.Table{"x-delivery-limit": int32(3), "x-expires": int32(100000), "x-message-ttl": int32(1000)}})
		conn.Ch().DeclareQ("q05", Q{Durable: true, Args: quorum(amqp.Table{"x-delivery-limit": int32(3), "x-expires": int32(100000), "x-message-ttl": int32(1000)})})
	}},
	{"server-named", "A queue declared with an empty name gets amq.gen-*; an empty consumer tag gets amq.ctag-*.", func(s *S) {
		c := s.Ch()
		name := c.DeclareQ("", Q{Exclusive: true})
		c.Pub("", name, "m")
		k := c.Consume(name, Cons{NoAck: true})
		k.Recv(1)
	}},
	{"exclusive-queue", "An exclusive queue is 405 RESOURCE_LOCKED to other connections (publishing is allowed) and goes with its connection.", func(s *S) {
		a := s.Conn()
		ca := a.Ch()
		ca.DeclareQ("q", Q{Exclusive: true})
		ca.DeclareX("x", "direct", X{})
		ca.Bind("q", "x", "k", nil)
		b := s.Conn()
		b.Ch().DeclareQ("q", Q{Passive: true})
		b.Ch().DeclareQ("q", Q{Exclusive: true})
		b.Ch().DeclareQ("q", Q{})
		b.Ch().DeclareQ("q", Q{Durable: true, Exclusive: true})
		b.Ch().Consume("q", Cons{Tag: "t"})
		b.Ch().Get("q")
		b.Ch().Purge("q")
		b.Ch().DeleteQ("q", QDel{})
		b.Ch().Bind("q", "x", "", nil)
		b.Ch().Unbind("q", "x", "", nil)
		b.Ch().Unbind("q", "x", "k", nil)
		cb := b.Ch()
		cb.Pub("", "q", "from-b")
		cb.Sync()
		ca.DeclareQ("q", Q{Exclusive: true})
		ca.DeclareQ("q", Q{})
		a.Ch().Get("q")
		a.Close()
		s.Count("q")
	}},
	{"auto-delete-queue", "An auto-delete queue survives until its last consumer is cancelled, not before it has had one.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{AutoDelete: true})
		s.Wait(quietWait)
		s.Count("q")
		c.Consume("q", Cons{Tag: "t1"})
		c.Consume("q", Cons{Tag: "t2"})
		c.Cancel("t1")
		s.Count("q")
		c.Cancel("t2")
		s.Wait(quietWait)
		s.Count("q")
		c2 := s.Ch()
		c2.DeclareQ("q2", Q{AutoDelete: true})
		c2.Consume("q2", Cons{Tag: "t3"})
		c2.Close()
		s.Wait(quietWait)
		s.Count("q2")
	}},
	{"exclusive-consumer", "Exclusive consumers conflict with any other consumer (403); basic.get is still allowed.", func(s *S) {
		conn := s.Conn()
		c := conn.Ch()
		c.DeclareQ("q", Q{})
		c.DeclareQ("r", Q{})
		c.Pub("", "q", "m")
		c.Consume("q", Cons{Tag: "ex", Exclusive: true, NoAck: true}).Recv(1)
		conn.Ch().Consume("q", Cons{Tag: "other"})
		conn.Ch().Consume("q", Cons{Tag: "other", Exclusive: true})
		s.Ch().Get("q")
		c.Consume("q", Cons{Tag: "same-channel"})
		c2 := conn.Ch()
		c2.Consume("r", Cons{Tag: "normal"})
		conn.Ch().Consume("r", Cons{Tag: "ex2", Exclusive: true})
		c2.Consume("r", Cons{Tag: "ex3", Exclusive: true})
	}},
	{"declare-ok-counts", "queue.declare-ok counts ready messages only and every consumer, full prefetch or not.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		for i := 1; i <= 3; i++ {
			c.Pub("", "q", fmt.Sprintf("m%d", i))
		}
		c.Sync()
		c1 := s.Ch()
		c1.Qos(1)
		c1.Consume("q", Cons{Tag: "c1"}).Recv(1)
		c2 := s.Ch()
		c2.Consume("q", Cons{Tag: "c2"}).Recv(2)
		c.DeclareQ("q", Q{})
		c.DeclareQ("q", Q{Passive: true})
		c2.Close()
		s.Wait(quietWait)
		c.DeclareQ("q", Q{})
	}},
	{"queue-delete-purge", "queue.delete if-unused/if-empty (406 in use / not empty, counting ready only); purge leaves unacked messages.", func(s *S) {
		conn := s.Conn()
		c := conn.Ch()
		c.DeclareQ("q", Q{})
		c.Consume("q", Cons{Tag: "t"})
		conn.Ch().DeleteQ("q", QDel{IfUnused: true})
		c.Cancel("t")
		c.Pub("", "q", "m1")
		c.Sync()
		conn.Ch().DeleteQ("q", QDel{IfEmpty: true})
		conn.Ch().DeleteQ("q", QDel{IfUnused: true, IfEmpty: true})
		g := conn.Ch()
		g.Get("q")
		conn.Ch().DeleteQ("q", QDel{IfEmpty: true})
		c = conn.Ch()
		c.DeclareQ("p", Q{})
		for i := 1; i <= 3; i++ {
			c.Pub("", "p", fmt.Sprintf("m%d", i))
		}
		c.Sync()
		g = conn.Ch()
		g.Get("p")
		c.Purge("p")
		g.Close()
		s.Count("p")
		c.DeleteQ("p", QDel{})
	}},
	{"queue-deleted-under-consumer", "Deleting a queue with a consumer sends basic.cancel to that consumer; the channel stays open.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		k := c.Consume("q", Cons{Tag: "victim"})
		s.Ch().DeleteQ("q", QDel{})
		k.NoMore()
		c.Sync()
	}},
}
