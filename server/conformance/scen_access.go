package main

import amqp "github.com/rabbitmq/amqp091-go"

// accessScenarios: access control as RabbitMQ's access-control guide tables
// it ("How Permissions Work"), for a user whose configure, write and read
// patterns all grant only the names starting with app.: what each method
// needs, on which resource, in which order the checks come, and the
// reply codes and texts.
var accessScenarios = []scenario{
	{"access-passive-declare", "A passive queue.declare or exchange.declare needs no permission: declare-ok, or 404 for a missing one; a regular declare needs configure (403).", func(s *S) {
		guest := s.Ch()
		guest.DeclareQ("other.q", Q{})
		guest.DeclareX("other.x", "direct", X{})
		bob := s.ConnAs(s.User("bob", []string{"app."}, []string{"app."}, []string{"app."}))
		bob.Ch().DeclareQ("other.q", Q{Passive: true})
		bob.Ch().DeclareQ("other.missing", Q{Passive: true})
		bob.Ch().DeclareX("other.x", "direct", X{Passive: true})
		bob.Ch().DeclareX("other.x", "fanout", X{Passive: true})
		bob.Ch().DeclareX("other.missing", "direct", X{Passive: true})
		bob.Ch().DeclareX("amq.direct", "direct", X{Passive: true})
		bob.Ch().DeclareQ("other.q", Q{})
		bob.Ch().DeclareX("other.x", "direct", X{})
	}},
	{"access-table", "Each method's permission on each resource: deletes and declares need configure, bindings write on the destination and read on the source, publish write on the exchange, consume, get and purge read on the queue; permission comes before existence, exclusivity and internal exchanges.", func(s *S) {
		guest := s.Conn() // kept open: it owns the exclusive queues
		g := guest.Ch()
		g.DeclareQ("other.q", Q{})
		g.DeclareQ("app.q", Q{})
		g.DeclareQ("other.excl", Q{Exclusive: true})
		g.DeclareQ("app.excl", Q{Exclusive: true})
		g.DeclareX("other.x", "direct", X{})
		g.DeclareX("app.x", "direct", X{})
		g.DeclareX("app.x2", "direct", X{})
		g.DeclareX("app.int", "direct", X{Internal: true})
		g.DeclareX("other.int", "direct", X{Internal: true})
		bob := s.ConnAs(s.User("bob", []string{"app."}, []string{"app."}, []string{"app."}))

		bob.Ch().DeleteQ("other.q", QDel{})
		bob.Ch().DeleteQ("other.missing", QDel{})
		bob.Ch().DeleteQ("app.missing", QDel{})
		bob.Ch().DeleteQ("app.excl", QDel{})
		bob.Ch().DeleteX("other.x", false)
		bob.Ch().DeleteX("amq.direct", false)
		bob.Ch().DeclareX("amq.foo", "direct", X{})
		bob.Ch().DeclareQ("amq.foo", Q{})
		bob.Ch().DeclareQ("app.excl", Q{})
		bob.Ch().DeclareQ("other.excl", Q{})
		bob.Ch().DeclareQ("app.dlx", Q{Args: amqp.Table{"x-dead-letter-exchange": s.N("other.x")}})
		bob.Ch().DeclareX("app.ae", "direct", X{Args: amqp.Table{"alternate-exchange": s.N("other.x")}})

		bob.Ch().Bind("other.q", "app.x", "k", nil)
		bob.Ch().Bind("app.q", "other.x", "k", nil)
		bob.Ch().Bind("app.q", "", "k", nil)
		bob.Ch().Bind("app.q", "amq.direct", "k", nil)
		bob.Ch().Bind("app.excl", "app.x", "k", nil)
		bob.Ch().Bind("app.missing", "app.x", "k", nil)
		bob.Ch().Bind("other.missing", "other.missing", "k", nil)
		bob.Ch().Bind("app.q", "app.int", "k", nil)
		bob.Ch().Unbind("other.q", "app.x", "k", nil)
		bob.Ch().Unbind("app.excl", "app.x", "k", nil)
		bob.Ch().BindX("app.x2", "other.x", "k", nil)
		bob.Ch().BindX("other.x", "app.x", "k", nil)
		bob.Ch().BindX("", "app.x", "k", nil)
		bob.Ch().BindX("app.missing", "app.x", "k", nil)
		bob.Ch().UnbindX("app.x2", "other.x", "k")

		for _, ex := range []string{"other.x", "", "app.missing", "app.int", "other.int", "amq.direct"} {
			c := bob.Ch()
			c.Pub(ex, "k", "m")
			c.Sync()
		}
		bob.Ch().Consume("other.q", Cons{Tag: "t"})
		bob.Ch().Consume("app.excl", Cons{Tag: "t"})
		bob.Ch().Consume("other.excl", Cons{Tag: "t"})
		bob.Ch().Get("other.q")
		bob.Ch().Get("app.missing")
		bob.Ch().Purge("other.q")
		bob.Ch().Purge("app.excl")
		bob.Ch().DeclareQ("app.excl", Q{Passive: true})
	}},
}
