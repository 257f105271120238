package hub

import (
	"testing"

	"warren/engine"
)

// TestAMQPLogin: an editor's welcome carries the session's AMQP login and
// a read-only participant's does not; the login checks the user and the
// password, and stops working when the session ends.
func TestAMQPLogin(t *testing.T) {
	login := &AMQPLogin{User: "session-0a1b2c3d4e5f", Password: "s3cret-and-long", Vhost: "/", Port: 5672, WebSocket: "/ws/amqp"}
	h := newHarness(t, Config{AMQP: login})
	ed := h.join("Teacher", Editor)
	ro := h.join("Student", ReadOnly)
	if got := ed.messages[0].AMQP; got == nil || *got != *login {
		t.Fatalf("the editor's welcome carries %+v, want %+v", got, login)
	}
	if got := ro.messages[0].AMQP; got != nil {
		t.Fatalf("the read-only welcome carries a login: %+v", got)
	}
	for _, c := range []struct {
		user, pass string
		ok         bool
	}{
		{login.User, login.Password, true},
		{login.User, "s3cret-and-lonG", false},
		{login.User, "", false},
		{"guest", login.Password, false},
	} {
		if got := h.s.CheckAMQPLogin(c.user, c.pass); got != c.ok {
			t.Errorf("CheckAMQPLogin(%q, %q) = %v, want %v", c.user, c.pass, got, c.ok)
		}
	}
	h.s.End(KeyClosed)
	if h.s.CheckAMQPLogin(login.User, login.Password) {
		t.Error("an ended session's login still works")
	}
	if New(Config{}, startMs).CheckAMQPLogin("", "") {
		t.Error("a session without a login takes an empty one")
	}
}

// TestApplyStopsAtAFailure: Session.Apply applies a connection's commands
// as one entry and stops after the first that fails.
func TestApplyStopsAtAFailure(t *testing.T) {
	s := New(Config{}, 0)
	origin := Origin{Kind: OriginAMQP, Connection: "amqp-1"}
	res, err := s.Apply(0, origin, []engine.Command{engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "u"}}}, nil)
	if err != nil || len(res) != 1 || res[0].Err != nil {
		t.Fatalf("open: %v %+v", err, res)
	}
	ch := engine.ChannelID{Conn: res[0].Conn, Num: 1}
	res, err = s.Apply(0, origin, []engine.Command{
		engine.CmdOpenChannel{Conn: ch.Conn, Num: 1},
		engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{Exchange: "missing"}},
		engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "q"}},
	}, res[:0])
	if err != nil || len(res) != 2 || res[1].Err == nil {
		t.Fatalf("publish: %v %+v, want two results, the second failed", err, res)
	}
	if s.Seq() == 0 {
		t.Fatal("no entry recorded")
	}
}
