package main

import amqp "github.com/rabbitmq/amqp091-go"

// exchangeScenarios: routing by each exchange type, exchange-to-exchange
// bindings, alternate exchanges, mandatory returns and internal exchanges.
var exchangeScenarios = []scenario{
	{"direct-routing", "A direct exchange routes by exact key to every queue bound with it, once per queue.", func(s *S) {
		c := s.Ch()
		c.DeclareX("x", "direct", X{})
		for _, q := range []string{"a", "b", "c"} {
			c.DeclareQ(q, Q{})
		}
		c.Bind("a", "x", "k1", nil)
		c.Bind("b", "x", "k2", nil)
		c.Bind("c", "x", "k1", nil)
		c.Bind("c", "x", "k2", nil)
		for _, m := range [][2]string{{"k1", "m1"}, {"k2", "m2"}, {"k3", "m3"}, {"", "m4"}} {
			c.Pub("x", m[0], m[1])
		}
		c.Sync()
		for _, q := range []string{"a", "b", "c"} {
			s.Dump(q)
		}
	}},
	{"fanout-routing", "A fanout exchange ignores keys and delivers one copy per queue, however many bindings.", func(s *S) {
		c := s.Ch()
		c.DeclareX("x", "fanout", X{})
		c.DeclareQ("a", Q{})
		c.DeclareQ("b", Q{})
		c.Bind("a", "x", "", nil)
		c.Bind("b", "x", "k1", nil)
		c.Bind("b", "x", "k2", nil)
		c.Pub("x", "anything", "m1")
		c.Pub("x", "", "m2")
		c.Unbind("b", "x", "k1", nil)
		c.Pub("x", "k", "m3")
		c.Sync()
		s.Dump("a")
		s.Dump("b")
	}},
	{"topic-routing", "Topic patterns with * and #, empty words and the empty key.", func(s *S) {
		c := s.Ch()
		c.DeclareX("x", "topic", X{})
		patterns := []string{"a.*", "a.#", "#", "*.b.*", "#.c", "a.*.c", "*", "", "#.#", "a.#.c"}
		for i, p := range patterns {
			q := string(rune('p' + i))
			c.DeclareQ(q, Q{})
			c.Bind(q, "x", p, nil)
		}
		for _, k := range []string{"a", "a.b", "a.b.c", "x.b.y", "c", "", "a..c", "a.c", "b.a.c.c"} {
			c.Pub("x", k, "rk="+k)
		}
		c.Sync()
		for i := range patterns {
			s.Dump(string(rune('p' + i)))
		}
	}},
	{"headers-routing", "Headers exchange: all/any/all-with-x/any-with-x, x- keys ignored, void values, numeric widths, bad x-match.", func(s *S) {
		c := s.Ch()
		c.DeclareX("x", "headers", X{})
		bindings := []amqp.Table{
			{"x-match": "all", "a": "1", "b": "2"},
			{"x-match": "any", "a": "1", "b": "2"},
			{"x-match": "all-with-x", "a": "1", "x-k": "v"},
			{"x-match": "any-with-x", "x-k": "v"},
			{"x-match": "all", "x-k": "v"},
			{"x-match": "any", "x-k": "v"},
			{"a": "1"},
			{},
			{"x-match": "all", "a": nil},
			{"x-match": "all", "a": int32(1)},
		}
		for i, b := range bindings {
			q := string(rune('p' + i))
			c.DeclareQ(q, Q{})
			c.Bind(q, "x", "", b)
		}
		for i, h := range []amqp.Table{
			{"a": "1", "b": "2"}, {"a": "1"}, {"x-k": "v"}, {"a": "1", "x-k": "v"}, {}, {"a": int64(1)}, {"a": "x"},
		} {
			c.Publish(Msg{Ex: "x", Body: string(rune('1' + i)), P: amqp.Publishing{Headers: h}})
		}
		c.Sync()
		for i := range bindings {
			s.Dump(string(rune('p' + i)))
		}
		for _, xm := range []any{"foo", "", int32(1)} {
			s.Ch().Bind("p", "x", "", amqp.Table{"x-match": xm, "a": "1"})
		}
	}},
	{"exchange-to-exchange", "Exchange-to-exchange bindings route on, through internal exchanges too, and stop when unbound.", func(s *S) {
		c := s.Ch()
		c.DeclareX("src", "direct", X{})
		c.DeclareX("dst", "fanout", X{Internal: true})
		c.DeclareX("dst2", "topic", X{})
		c.DeclareQ("q", Q{})
		c.DeclareQ("q2", Q{})
		c.BindX("dst", "src", "k", nil)
		c.BindX("dst2", "src", "k", nil)
		c.BindX("dst2", "src", "k2", nil)
		c.Bind("q", "dst", "", nil)
		c.Bind("q2", "dst2", "#", nil)
		c.Pub("src", "k", "m1")
		c.Pub("src", "k2", "m2")
		c.Pub("src", "other", "m3")
		c.UnbindX("dst", "src", "k")
		c.Pub("src", "k", "m4")
		c.Sync()
		s.Dump("q")
		s.Dump("q2")
		c.BindX("nope", "src", "k", nil)
		c = s.Ch()
		c.BindX("dst", "nope", "k", nil)
	}},
	{"alternate-exchange", "Unroutable messages go to the alternate exchange with their exchange and key; no return when the AE routes; a missing AE returns.", func(s *S) {
		c := s.Ch()
		c.DeclareX("ae", "fanout", X{})
		c.DeclareX("x", "direct", X{Args: amqp.Table{"alternate-exchange": s.N("ae")}})
		c.DeclareX("x2", "direct", X{Args: amqp.Table{"alternate-exchange": s.N("missing")}})
		c.DeclareQ("qa", Q{})
		c.DeclareQ("qx", Q{})
		c.Bind("qa", "ae", "", nil)
		c.Bind("qx", "x", "k", nil)
		p := s.Ch()
		p.Confirm()
		// One confirm at a time, so that the wire order of returns and
		// acks does not depend on RabbitMQ's confirm coalescing.
		for _, m := range []Msg{
			{Ex: "x", Key: "k", Body: "routed", Mandatory: true},
			{Ex: "x", Key: "other", Body: "via-ae", Mandatory: true},
			{Ex: "x2", Key: "other", Body: "no-ae", Mandatory: true},
		} {
			p.Publish(m)
			p.Confirms(1)
		}
		c.Get("qa")
		s.Dump("qx")
	}},
	{"mandatory-returns", "basic.return 312 NO_ROUTE for mandatory unroutable publishes, before their ack; non-mandatory unroutable is just acked.", func(s *S) {
		c := s.Ch()
		c.DeclareX("x", "direct", X{})
		c.DeclareQ("q", Q{})
		c.Confirm()
		for _, m := range []Msg{
			{Key: "nope", Body: "m1", Mandatory: true},
			{Key: "q", Body: "m2", Mandatory: true},
			{Ex: "x", Key: "k", Body: "m3", Mandatory: true, P: amqp.Publishing{Headers: amqp.Table{"h": "v"}}},
			{Key: "nope", Body: "m4"},
		} {
			c.Publish(m)
			c.Confirms(1)
		}
		c2 := s.Ch()
		c2.Publish(Msg{Key: "nope", Body: "m5", Mandatory: true})
		c2.Sync()
		s.Dump("q")
	}},
	{"internal-exchange", "Publishing to an internal exchange is 403; it still routes what reaches it through a binding.", func(s *S) {
		c := s.Ch()
		c.DeclareX("xi", "fanout", X{Internal: true})
		c.DeclareX("src", "fanout", X{})
		c.DeclareQ("q", Q{})
		c.Bind("q", "xi", "", nil)
		c.BindX("xi", "src", "", nil)
		c.Pub("xi", "", "direct")
		c.Sync()
		c = s.Ch()
		c.Pub("src", "", "through-binding")
		c.Sync()
		s.Dump("q")
	}},
	{"exchange-redeclare", "Redeclaring an exchange differently is 406 with the first differing property; passive ignores them; custom args are not compared.", func(s *S) {
		conn := s.Conn()
		conn.Ch().DeclareX("x", "direct", X{Args: amqp.Table{"alternate-exchange": "a"}})
		for _, tc := range []struct {
			kind string
			x    X
		}{
			{"fanout", X{Args: amqp.Table{"alternate-exchange": "a"}}},
			{"direct", X{Durable: true, Args: amqp.Table{"alternate-exchange": "a"}}},
			{"direct", X{AutoDelete: true, Args: amqp.Table{"alternate-exchange": "a"}}},
			{"direct", X{Internal: true, Args: amqp.Table{"alternate-exchange": "a"}}},
			{"direct", X{Args: amqp.Table{"alternate-exchange": "b"}}},
			{"direct", X{}},
			{"fanout", X{Durable: true, Args: amqp.Table{"alternate-exchange": "a"}}},
			{"direct", X{Args: amqp.Table{"alternate-exchange": "a", "x-foo": "bar"}}},
			{"fanout", X{Passive: true, Durable: true}},
		} {
			conn.Ch().DeclareX("x", tc.kind, tc.x)
		}
		conn.Ch().DeclareX("y", "topic", X{})
		conn.Ch().DeclareX("y", "topic", X{Args: amqp.Table{"alternate-exchange": "ae"}})
	}},
	{"exchange-type-invalid", "An unknown exchange type is a connection error 503.", func(s *S) {
		for _, kind := range []string{"foo", "", "x-consistent-hash"} {
			conn := s.Conn()
			conn.Ch().DeclareX("x", kind, X{})
			conn.Closed()
		}
	}},
	{"exchange-delete", "exchange.delete if-unused is 406 while the exchange is a binding source, not when only a destination; auto-delete exchanges go with their last binding.", func(s *S) {
		c := s.Ch()
		c.DeclareX("src", "fanout", X{})
		c.DeclareX("dst", "fanout", X{})
		c.DeclareQ("q", Q{})
		c.Bind("q", "src", "", nil)
		c.BindX("dst", "src", "", nil)
		c.DeleteX("src", true)
		c = s.Ch()
		c.DeleteX("dst", true)
		c.DeleteX("missing", false)
		c.DeclareX("ad", "fanout", X{AutoDelete: true})
		c.DeclareX("ad", "fanout", X{Passive: true})
		c.Bind("q", "ad", "", nil)
		c.Unbind("q", "ad", "", nil)
		c.DeclareX("ad", "fanout", X{Passive: true})
	}},
}
