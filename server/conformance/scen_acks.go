package main

// ackScenarios: prefetch, acks, nacks, rejects, recovery, requeue order,
// basic.get counts and delivery-tag errors.
var ackScenarios = []scenario{
	{"prefetch-per-consumer", "basic.qos global=false limits each new consumer, global=true the channel; both can apply.", func(s *S) {
		c := s.Ch()
		for _, q := range []string{"a1", "b1", "a2", "b2", "a3", "b3"} {
			c.DeclareQ(q, Q{})
			publishN(c, q, q+"-", 4)
		}
		c.Sync()
		for i, qos := range []func(k *Ch){
			func(k *Ch) { k.Qos(1) },
			func(k *Ch) { k.QosGlobal(1) },
			func(k *Ch) { k.Qos(2); k.QosGlobal(3) },
		} {
			k := s.Ch()
			qos(k)
			n := string(rune('1' + i))
			ka := k.Consume("a"+n, Cons{Tag: "a" + n})
			kb := k.Consume("b"+n, Cons{Tag: "b" + n})
			ka.NoMore()
			kb.NoMore()
		}
	}},
	{"prefetch-flow", "With prefetch 2 each ack lets one more message through; a later qos applies only to new consumers.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		publishN(c, "q", "m", 5)
		c.Sync()
		k := s.Ch()
		k.Qos(2)
		cons := k.Consume("q", Cons{Tag: "c"})
		tags := cons.Recv(2)
		cons.NoMore()
		if len(tags) == 2 {
			k.Ack(tags[0])
			cons.Recv(1)
			cons.NoMore()
			k.Qos(5)
			cons.NoMore()
			k.AckUpTo(tags[1] + 1)
			cons.Recv(2)
		}
		cons.NoMore()
	}},
	{"nack-reject-requeue", "nack multiple with requeue redelivers in order with redelivered=true; reject without requeue drops.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		publishN(c, "q", "m", 5)
		c.Sync()
		k := s.Ch()
		k.Qos(5)
		cons := k.Consume("q", Cons{Tag: "c"})
		tags := cons.Recv(5)
		if len(tags) < 5 {
			return
		}
		k.Nack(tags[2], N{Multiple: true, Requeue: true})
		cons.Recv(3)
		k.Reject(tags[3], N{})
		k.Reject(tags[4], N{Requeue: true})
		cons.Recv(1)
		k.Nack(0, N{Multiple: true})
		k.Sync()
		cons.NoMore()
		s.Count("q")
	}},
	{"requeue-order", "Messages requeued by channel close, reject and nack go back to their original positions, redelivered=true.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("a", Q{})
		c.DeclareQ("b", Q{})
		c.DeclareQ("d", Q{})
		publishN(c, "a", "m", 5)
		publishN(c, "b", "m", 5)
		publishN(c, "d", "m", 5)
		c.Sync()
		// a: close with all five unacked, a sixth published meanwhile.
		k := s.Ch()
		tags := k.Consume("a", Cons{Tag: "ka"}).Recv(5)
		c.Pub("", "a", "m6")
		c.Sync()
		k.Close()
		s.Dump("a")
		// b: ack m2 and m4, then close.
		k = s.Ch()
		tags = k.Consume("b", Cons{Tag: "kb"}).Recv(5)
		if len(tags) == 5 {
			k.Ack(tags[1])
			k.Ack(tags[3])
		}
		k.Close()
		s.Dump("b")
		// d: reject m3 then m1 (requeue), then close.
		k = s.Ch()
		tags = k.Consume("d", Cons{Tag: "kd"}).Recv(5)
		k.Cancel("kd")
		if len(tags) == 5 {
			k.Reject(tags[2], N{Requeue: true})
			k.Reject(tags[0], N{Requeue: true})
		}
		k.Sync()
		k.Close()
		s.Dump("d")
	}},
	{"basic-recover", "basic.recover(requeue=true) redelivers every unacked message, in order, redelivered=true.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		publishN(c, "q", "m", 3)
		c.Sync()
		k := s.Ch()
		cons := k.Consume("q", Cons{Tag: "c"})
		cons.Recv(3)
		k.Recover()
		tags := cons.Recv(3)
		if len(tags) == 3 {
			k.AckUpTo(tags[2])
		}
		k.Sync()
		cons.NoMore()
		s.Count("q")
	}},
	{"basic-get-count", "basic.get-ok message-count is the ready messages left; get-empty when none; closing requeues at the head.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		publishN(c, "q", "m", 3)
		c.Sync()
		g := s.Ch()
		for range 4 {
			g.Get("q")
		}
		c.DeclareQ("q", Q{Passive: true})
		g.Close()
		s.Wait(quietWait)
		c.DeclareQ("q", Q{Passive: true})
		g = s.Ch()
		if tag := g.Get("q"); tag != 0 {
			g.Nack(tag, N{Requeue: true})
		}
		g.Get("q")
		g.Get("q")
	}},
	{"unknown-delivery-tag", "Acking, nacking or rejecting an unknown delivery tag is 406 PRECONDITION_FAILED (per channel), and the channel's unacked are requeued.", func(s *S) {
		conn := s.Conn()
		c := conn.Ch()
		c.DeclareQ("q", Q{})
		publishN(c, "q", "m", 2)
		c.Sync()
		for _, op := range []func(k *Ch){
			func(k *Ch) { k.Ack(99) },
			func(k *Ch) { t := k.Get("q"); k.Ack(t); k.Ack(t) },
			func(k *Ch) { k.Get("q"); k.Ack(0) },
			func(k *Ch) { k.Get("q"); k.AckUpTo(99) },
			func(k *Ch) { k.Nack(99, N{Requeue: true}) },
			func(k *Ch) { k.Reject(99, N{}) },
			func(k *Ch) { k.AckUpTo(0); k.Nack(0, N{Multiple: true}) },
			func(k *Ch) { k.GetAuto("q"); k.Ack(1) },
		} {
			k := conn.Ch()
			op(k)
			k.Sync()
			s.Count("q")
		}
		k := conn.Ch()
		t := k.Get("q")
		k2 := conn.Ch()
		k2.Ack(t)
		k2.Sync()
	}},
	{"ack-multiple-zero", "ack multiple=true with tag 0 acknowledges everything outstanding.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		publishN(c, "q", "m", 3)
		c.Sync()
		g := s.Ch()
		g.Get("q")
		g.Get("q")
		g.AckUpTo(0)
		g.Sync()
		g.Close()
		s.Count("q")
	}},
}
