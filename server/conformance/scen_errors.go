package main

import amqp "github.com/rabbitmq/amqp091-go"

// errorScenarios: reply codes and texts for missing things, reserved
// names and unsupported flags.
var errorScenarios = []scenario{
	{"reserved-names", "amq.* names and the default exchange are refused with 403; amq.direct may be redeclared equivalently.", func(s *S) {
		conn := s.Conn()
		conn.Ch().DeclareX("amq.foo", "direct", X{})
		conn.Ch().DeclareQ("amq.foo", Q{})
		conn.Ch().DeclareQ("amq.gen-abc", Q{})
		conn.Ch().DeclareX("amq.foo", "direct", X{Passive: true})
		conn.Ch().DeclareQ("amq.foo", Q{Passive: true})
		conn.Ch().DeleteX("amq.direct", false)
		conn.Ch().DeleteX("amq.foo", false)
		conn.Ch().DeleteX("", false)
		conn.Ch().DeclareX("", "direct", X{})
		conn.Ch().DeclareX("", "direct", X{Passive: true})
		conn.Ch().DeclareX("amq.direct", "direct", X{Durable: true})
		conn.Ch().DeclareX("amq.direct", "fanout", X{Durable: true})
		conn.Ch().DeclareX("amq.direct", "direct", X{})
		c := conn.Ch()
		c.DeclareQ("q", Q{})
		c.Bind("q", "", "q", nil)
		c = conn.Ch()
		c.Unbind("q", "", "q", nil)
		c = conn.Ch()
		c.Bind("q", "amq.default", "q", nil)
		c = conn.Ch()
		c.Pub("amq.default", "q", "m")
		c.Sync()
	}},
	{"missing-things", "404 for operations on missing queues and exchanges; delete, unbind and cancel of missing things succeed.", func(s *S) {
		conn := s.Conn()
		conn.Ch().DeclareQ("q", Q{})
		conn.Ch().DeclareX("x", "direct", X{})
		conn.Ch().DeclareQ("nope", Q{Passive: true})
		conn.Ch().DeclareX("nope", "direct", X{Passive: true})
		conn.Ch().Bind("nope", "x", "", nil)
		conn.Ch().Bind("q", "nope", "", nil)
		conn.Ch().Bind("nope", "nope-x", "", nil)
		conn.Ch().Unbind("q", "x", "never-bound", nil)
		conn.Ch().Unbind("nope", "x", "", nil)
		conn.Ch().BindX("nope", "x", "", nil)
		conn.Ch().BindX("x", "nope", "", nil)
		conn.Ch().Consume("nope", Cons{Tag: "t"})
		conn.Ch().Get("nope")
		conn.Ch().Purge("nope")
		conn.Ch().DeleteQ("nope", QDel{IfUnused: true, IfEmpty: true})
		conn.Ch().DeleteX("nope", true)
		conn.Ch().Cancel("no-such-consumer")
	}},
	{"publish-missing-exchange", "Publishing to a missing exchange closes the channel with 404 (60/40); in confirm mode no confirm is sent.", func(s *S) {
		c := s.Ch()
		c.Pub("nope", "k", "m1")
		c.Sync()
		c.Pub("", "q", "after-close")
		c = s.Ch()
		c.Confirm()
		c.Pub("nope", "k", "m2")
		c.Confirms(1)
		c.Sync()
	}},
	{"immediate-flag", "immediate=true is a connection error 540 NOT_IMPLEMENTED.", func(s *S) {
		conn := s.Conn()
		c := conn.Ch()
		c.DeclareQ("q", Q{})
		c.Publish(Msg{Key: "q", Body: "m", Immediate: true})
		c.Sync()
		conn.Closed()
	}},
	{"qos-prefetch-size", "A prefetch-size is a connection error 540 NOT_IMPLEMENTED.", func(s *S) {
		conn := s.Conn()
		conn.Ch().QosSize(1)
		conn.Closed()
	}},
	{"duplicate-consumer-tag", "Reusing a consumer tag on a channel is a connection error 530.", func(s *S) {
		conn := s.Conn()
		c := conn.Ch()
		c.DeclareQ("q", Q{})
		c.Consume("q", Cons{Tag: "dup"})
		c.Consume("q", Cons{Tag: "dup"})
		conn.Closed()
	}},
	{"consumer-arg-errors", "basic.consume x-priority must be an integer (406, naming the queue); unknown consume args are accepted.", func(s *S) {
		conn := s.Conn()
		conn.Ch().DeclareQ("q", Q{})
		for _, args := range []amqp.Table{
			{"x-priority": "abc"}, {"x-priority": "5"}, {"x-priority": 1.5}, {"x-priority": true},
			{"x-priority": int32(5)}, {"x-priority": int64(-3)}, {"x-priority": int16(2)}, {"x-foo": "bar"},
			{"x-cancel-on-ha-failover": "yes"},
		} {
			c := conn.Ch()
			if k := c.Consume("q", Cons{Tag: "t", Args: args}); k != nil {
				c.Cancel("t")
			}
		}
	}},
}
