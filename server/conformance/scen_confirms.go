package main

// confirmScenarios: publisher confirms and transactions.
var confirmScenarios = []scenario{
	{"confirms-basic", "Each publish in confirm mode is acked, routed or not; confirm.select twice is fine.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		c.Confirm()
		c.Confirm()
		publishN(c, "q", "m", 3)
		c.Pub("", "nowhere", "m4")
		c.Pub("amq.fanout", "", "m5")
		c.Confirms(5)
		s.Count("q")
	}},
	{"tx-semantics", "In a transaction publishes and acks take effect at commit; rollback discards them and leaves acked messages unacked.", func(s *S) {
		c := s.Ch()
		c.DeclareQ("q", Q{})
		t := s.Ch()
		t.Tx()
		t.Tx()
		t.Pub("", "q", "m1")
		t.Sync()
		s.Count("q")
		t.TxCommit()
		s.Count("q")
		t.Pub("", "q", "m2")
		t.TxRollback()
		s.Count("q")
		tag := t.Get("q")
		t.Ack(tag)
		t.TxRollback()
		s.Count("q")
		t.Ack(tag)
		t.TxCommit()
		t.Close()
		s.Count("q")
		t = s.Ch()
		t.Tx()
		t.Pub("nope", "k", "m3")
		t.Sync()
		t = s.Ch()
		t.Tx()
		t.Ack(77)
		t.Sync()
	}},
	{"tx-errors", "tx.commit and tx.rollback without tx.select, and switching between tx and confirm modes, are 406.", func(s *S) {
		conn := s.Conn()
		conn.Ch().TxCommit()
		conn.Ch().TxRollback()
		c := conn.Ch()
		c.Confirm()
		c.Tx()
		c = conn.Ch()
		c.Tx()
		c.Confirm()
	}},
}
