package main

import amqp "github.com/rabbitmq/amqp091-go"

// policyScenarios: policies set through the management API and how they
// combine with queue arguments.
var policyScenarios = []scenario{
	{"policy-ttl-existing-messages", "A message-ttl policy set on a queue that already holds messages (3.10: not retroactive; 4.x docs: retroactive).", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		publishN(c, "q", "old", 2)
		c.Sync()
		s.Policy("p", "q", map[string]any{"message-ttl": 100})
		c.Pub("", "q", "new")
		c.Sync()
		s.Wait(ttlWait)
		s.Count("q")
		s.Dump("q")
		c.Pub("", "q", "after")
		c.Sync()
		s.Wait(ttlWait)
		s.Count("q")
	}},
	{"policy-ttl-lower-wins", "message-ttl from argument and policy: the lower applies, whichever it is.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("arg-high", Q{Args: amqp.Table{"x-message-ttl": int32(10000)}})
		c.DeclareQ("arg-low", Q{Args: amqp.Table{"x-message-ttl": int32(100)}})
		s.Policy("p1", "arg-high", map[string]any{"message-ttl": 100})
		s.Policy("p2", "arg-low", map[string]any{"message-ttl": 10000})
		c.Pub("", "arg-high", "m1")
		c.Pub("", "arg-low", "m2")
		c.Sync()
		s.Wait(ttlWait)
		s.Count("arg-high")
		s.Count("arg-low")
	}},
	{"policy-max-length", "max-length from argument and policy: the lower applies.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("a", Q{Args: amqp.Table{"x-max-length": int32(5)}})
		c.DeclareQ("b", Q{Args: amqp.Table{"x-max-length": int32(2)}})
		s.Policy("pa", "a", map[string]any{"max-length": 2})
		s.Policy("pb", "b", map[string]any{"max-length": 5})
		publishN(c, "a", "a", 4)
		publishN(c, "b", "b", 4)
		c.Sync()
		s.Dump("a")
		s.Dump("b")
	}},
	{"policy-dlx-arg-wins", "dead-letter-exchange and dead-letter-routing-key: the queue argument wins over the policy.", func(s *S) {
		c := s.Ch()
		c.DeclareX("xa", "fanout", X{})
		c.DeclareX("xp", "fanout", X{})
		c.DeclareQ("via-arg", Q{})
		c.DeclareQ("via-policy", Q{})
		c.Bind("via-arg", "xa", "", nil)
		c.Bind("via-policy", "xp", "", nil)
		c.DeclareQ("q", Q{Args: amqp.Table{"x-dead-letter-exchange": s.N("xa")}})
		c.DeclareQ("q2", Q{})
		s.Policy("p", "q", map[string]any{"dead-letter-exchange": s.N("xp")})
		s.Policy("p2", "q2", map[string]any{"dead-letter-exchange": s.N("xp"), "message-ttl": 30})
		c.Pub("", "q", "m1")
		c.Pub("", "q2", "m2")
		c.Sync()
		if tag := c.Get("q"); tag != 0 {
			c.Reject(tag, N{})
		}
		c.Sync()
		s.Wait(ttlWait)
		s.Dump("via-arg")
		c.Get("via-policy")
	}},
	{"policy-overflow-arg-wins", "overflow: the queue argument wins; the policy's max-length still applies.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{Args: amqp.Table{"x-overflow": "drop-head"}})
		s.Policy("p", "q", map[string]any{"overflow": "reject-publish", "max-length": 1})
		c.Confirm()
		c.Pub("", "q", "m1")
		c.Pub("", "q", "m2")
		c.Confirms(2)
		s.Dump("q")
	}},
	{"policy-expires", "expires from a policy lower than the argument deletes the queue.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{Args: amqp.Table{"x-expires": int32(100000)}})
		s.Policy("p", "q", map[string]any{"expires": 100})
		s.Wait(ttlWait + ttlWait)
		s.Count("q")
	}},
	{"policy-redeclare", "Redeclaration is checked against the declared arguments, not the policy; clearing a policy restores the argument.", func(s *S) {
		conn := s.Conn()
		conn.Ch().DeclareQ("q", Q{Args: amqp.Table{"x-max-length": int32(5)}})
		s.Policy("p", "q", map[string]any{"max-length": 2})
		conn.Ch().DeclareQ("q", Q{Args: amqp.Table{"x-max-length": int32(5)}})
		conn.Ch().DeclareQ("q", Q{Args: amqp.Table{"x-max-length": int32(2)}})
		s.ClearPolicy("p")
		c := conn.Ch()
		publishN(c, "q", "m", 4)
		c.Sync()
		s.Count("q")
	}},
	{"policy-validation", "The management API rejects invalid policy definitions with 400.", func(s *S) {
		s.Policy("bad-ttl", "q", map[string]any{"message-ttl": -1})
		s.Policy("bad-overflow", "q", map[string]any{"overflow": "foo"})
		s.Policy("bad-key", "q", map[string]any{"no-such-key": 1})
	}},
}
