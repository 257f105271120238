package e2e

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/server"
	"warren/server/auth"
)

// need is one permission an operation needs on one resource.
type need struct {
	perm, kind, name string // perm: configure, write or read; kind: queue or exchange
}

// permOps are AMQP 0-9-1 operations with what access-control.md's table
// says each needs ("How Permissions Work"), in the order rabbit_channel
// checks them. They act on guest's topology (see permServer).
var permOps = []struct {
	name  string
	needs []need
	op    func(ch *amqp.Channel) error
}{
	{"queue.declare", []need{{"configure", "queue", "bob.q"}}, func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclare("bob.q", false, false, false, false, nil)
		return err
	}},
	{"queue.declare existing", []need{{"configure", "queue", "q"}}, func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclare("q", false, false, false, false, nil)
		return err
	}},
	{"queue.declare with DLX", []need{{"configure", "queue", "bob.q"}, {"read", "queue", "bob.q"}, {"write", "exchange", "dlx"}}, func(ch *amqp.Channel) error {
		_, err := ch.QueueDeclare("bob.q", false, false, false, false, amqp.Table{"x-dead-letter-exchange": "dlx"})
		return err
	}},
	{"queue.delete", []need{{"configure", "queue", "q"}}, func(ch *amqp.Channel) error {
		_, err := ch.QueueDelete("q", false, false, false)
		return err
	}},
	{"queue.purge", []need{{"read", "queue", "q"}}, func(ch *amqp.Channel) error {
		_, err := ch.QueuePurge("q", false)
		return err
	}},
	{"queue.bind", []need{{"write", "queue", "q"}, {"read", "exchange", "x"}}, func(ch *amqp.Channel) error {
		return ch.QueueBind("q", "k", "x", false, nil)
	}},
	{"queue.unbind", []need{{"write", "queue", "q"}, {"read", "exchange", "x"}}, func(ch *amqp.Channel) error {
		return ch.QueueUnbind("q", "bound", "x", nil)
	}},
	{"exchange.declare", []need{{"configure", "exchange", "bob.x"}}, func(ch *amqp.Channel) error {
		return ch.ExchangeDeclare("bob.x", "direct", false, false, false, false, nil)
	}},
	{"exchange.declare with AE", []need{{"configure", "exchange", "bob.x"}, {"read", "exchange", "bob.x"}, {"write", "exchange", "ae"}}, func(ch *amqp.Channel) error {
		return ch.ExchangeDeclare("bob.x", "direct", false, false, false, false, amqp.Table{"alternate-exchange": "ae"})
	}},
	{"exchange.delete", []need{{"configure", "exchange", "x"}}, func(ch *amqp.Channel) error {
		return ch.ExchangeDelete("x", false, false)
	}},
	{"exchange.bind", []need{{"write", "exchange", "x2"}, {"read", "exchange", "x"}}, func(ch *amqp.Channel) error {
		return ch.ExchangeBind("x2", "k", "x", false, nil)
	}},
	{"exchange.unbind", []need{{"write", "exchange", "x2"}, {"read", "exchange", "x"}}, func(ch *amqp.Channel) error {
		return ch.ExchangeUnbind("x2", "k", "x", false, nil)
	}},
	{"basic.publish", []need{{"write", "exchange", "x"}}, func(ch *amqp.Channel) error {
		return ch.Publish("x", "bound", false, false, amqp.Publishing{Body: []byte("m")})
	}},
	{"basic.publish to the default exchange", []need{{"write", "exchange", "amq.default"}}, func(ch *amqp.Channel) error {
		return ch.Publish("", "q", false, false, amqp.Publishing{Body: []byte("m")})
	}},
	{"basic.get", []need{{"read", "queue", "q"}}, func(ch *amqp.Channel) error {
		_, _, err := ch.Get("q", false)
		return err
	}},
	{"basic.consume", []need{{"read", "queue", "q"}}, func(ch *amqp.Channel) error {
		_, err := ch.Consume("q", "", false, false, false, false, nil)
		return err
	}},
}

// permServer starts a Warren with user bob (password pw) and, declared by
// guest, queue q holding one message and bound to direct exchange x with
// key "bound", exchanges x2, dlx and ae.
func permServer(t *testing.T) (*server.Server, *auth.Store) {
	t.Helper()
	srv := startServerWith(t, server.Options{})
	users := srv.Users()
	must(t, users.AddUser("bob", "pw", nil))
	ch := channel(t, dial(t, srv))
	for _, x := range []string{"x", "x2", "dlx", "ae"} {
		must(t, ch.ExchangeDeclare(x, "direct", false, false, false, false, nil))
	}
	_, err := ch.QueueDeclare("q", false, false, false, false, nil)
	must(t, err)
	must(t, ch.QueueBind("q", "bound", "x", false, nil))
	publish(t, ch, "", "q", amqp.Publishing{Body: []byte("guest's")})
	must(t, ch.Close())
	return srv, users
}

// asBob runs op on a fresh connection of bob's and returns its outcome:
// nil, or the channel's closing error (a refused publish is reported
// asynchronously, so a basic.qos, which needs no permission, follows each
// operation to wait for it).
func asBob(t *testing.T, srv *server.Server, op func(ch *amqp.Channel) error) error {
	t.Helper()
	c, err := amqp.Dial("amqp://bob:pw@" + srv.AMQPAddr() + "/")
	must(t, err)
	defer c.Close()
	ch := channel(t, c)
	closed := ch.NotifyClose(make(chan *amqp.Error, 1))
	err = op(ch)
	if err == nil {
		err = ch.Qos(0, 0, false)
	}
	// A refused publish is asynchronous: the Qos after it may find the
	// channel already closed (amqp.ErrClosed), and then the server's
	// reason is the one NotifyClose got.
	var e *amqp.Error
	if err == nil || (errors.As(err, &e) && e != amqp.ErrClosed) {
		return err
	}
	select {
	case e := <-closed:
		return e
	case <-time.After(5 * time.Second):
		t.Fatalf("no channel.close after %v", err)
	}
	return nil
}

// grant builds permission patterns granting exactly needs, except perm
// drop ("" drops none).
func grant(needs []need, drop string) (configure, write, read string) {
	names := map[string][]string{}
	for _, n := range needs {
		if n.perm != drop {
			names[n.perm] = append(names[n.perm], regexp.QuoteMeta(n.name))
		}
	}
	pattern := func(perm string) string {
		if len(names[perm]) == 0 {
			return "^$"
		}
		return "^(" + strings.Join(names[perm], "|") + ")$"
	}
	return pattern("configure"), pattern("write"), pattern("read")
}

// TestPermissionMatrix runs every operation as bob with exactly the
// permissions it needs (it succeeds), then with each of them missing in
// turn: 403 ACCESS_REFUSED naming the resource of the first missing one,
// with RabbitMQ 3.10.8's text, which does not say which permission is
// missing (observed: "ACCESS_REFUSED - access to queue 'q' in vhost '/'
// refused for user 'bob'").
func TestPermissionMatrix(t *testing.T) {
	for _, o := range permOps {
		drops := []string{""}
		for _, n := range o.needs {
			drops = append(drops, n.perm)
		}
		for _, drop := range drops {
			name := o.name + "/all granted"
			if drop != "" {
				name = o.name + "/without " + drop
			}
			t.Run(name, func(t *testing.T) {
				srv, users := permServer(t)
				configure, write, read := grant(o.needs, drop)
				must(t, users.SetPermissions("bob", "/", configure, write, read))
				err := asBob(t, srv, o.op)
				if drop == "" {
					if err != nil {
						t.Fatalf("with %q %q %q: %v", configure, write, read, err)
					}
					return
				}
				var refused need
				for _, n := range o.needs {
					if n.perm == drop {
						refused = n
						break
					}
				}
				want := "ACCESS_REFUSED - access to " + refused.kind + " '" + refused.name + "' in vhost '/' refused for user 'bob'"
				var e *amqp.Error
				if !errors.As(err, &e) || e.Code != 403 || e.Reason != want {
					t.Fatalf("got %v\nwant 403 %s", err, want)
				}
			})
		}
	}
}

// TestNoPermissionsTouchNothing: a user whose configure, write and read are
// all "^$" is refused every operation on guest's queue, and the queue
// keeps its message and binding.
func TestNoPermissionsTouchNothing(t *testing.T) {
	srv, users := permServer(t)
	must(t, users.SetPermissions("bob", "/", "^$", "^$", "^$"))
	ops := map[string]func(ch *amqp.Channel) error{}
	for _, o := range permOps {
		ops[o.name] = o.op
	}
	for name, op := range ops {
		err := asBob(t, srv, op)
		var e *amqp.Error
		if !errors.As(err, &e) || e.Code != 403 {
			t.Errorf("%s: %v, want 403", name, err)
		}
	}
	ch := channel(t, dial(t, srv))
	q, err := ch.QueueDeclarePassive("q", false, false, false, false, nil)
	must(t, err)
	if q.Messages != 1 {
		t.Errorf("guest's queue has %d messages, want 1", q.Messages)
	}
	publish(t, ch, "x", "bound", amqp.Publishing{Body: []byte("routed")})
	if q, err = ch.QueueDeclarePassive("q", false, false, false, false, nil); err != nil || q.Messages != 2 {
		t.Errorf("guest's binding: %d messages, %v", q.Messages, err)
	}
}

// TestUserIDValidated checks RabbitMQ's validated user-id over the wire:
// the user's own name passes, another is 406 PRECONDITION_FAILED, and a
// user tagged impersonator may set any.
func TestUserIDValidated(t *testing.T) {
	srv, users := permServer(t)
	must(t, users.SetPermissions("bob", "/", ".*", ".*", ".*"))
	send := func(userID string) func(ch *amqp.Channel) error {
		return func(ch *amqp.Channel) error {
			return ch.Publish("", "q", false, false, amqp.Publishing{UserId: userID, Body: []byte("m")})
		}
	}
	if err := asBob(t, srv, send("bob")); err != nil {
		t.Errorf("own user-id: %v", err)
	}
	err := asBob(t, srv, send("guest"))
	var e *amqp.Error
	if !errors.As(err, &e) || e.Code != 406 || e.Reason != "PRECONDITION_FAILED - user_id property set to 'guest' but authenticated user was 'bob'" {
		t.Errorf("forged user-id: %v", err)
	}
	must(t, users.PutUser(auth.User{Name: "bob", Tags: []string{"impersonator"}, PasswordHash: auth.HashPassword("pw")}))
	if err := asBob(t, srv, send("guest")); err != nil {
		t.Errorf("impersonator: %v", err)
	}
}

// TestTopicPermissionsOverAMQP: with a topic permission on amq.topic, bob
// may publish only with routing keys matching its write pattern and bind
// only with keys matching its read pattern ({username} expanded); other
// topic exchanges, with no topic permission, are not checked.
func TestTopicPermissionsOverAMQP(t *testing.T) {
	srv, users := permServer(t)
	must(t, users.SetPermissions("bob", "/", ".*", ".*", ".*"))
	must(t, users.SetTopicPermissions(auth.TopicPermission{User: "bob", Vhost: "/", Exchange: "amq.topic", Write: `^{username}\.`, Read: `^{username}\.`}))
	pub := func(exchange, key string) func(ch *amqp.Channel) error {
		return func(ch *amqp.Channel) error {
			return ch.Publish(exchange, key, false, false, amqp.Publishing{Body: []byte("m")})
		}
	}
	bind := func(key string) func(ch *amqp.Channel) error {
		return func(ch *amqp.Channel) error { return ch.QueueBind("q", key, "amq.topic", false, nil) }
	}
	refused := func(perm, key string) string {
		// perm is the permission checked; RabbitMQ 3.10.8's text omits it.
		return "ACCESS_REFUSED - access to topic '" + key + "' in exchange 'amq.topic' in vhost '/' refused for user 'bob'"
	}
	cases := []struct {
		name string
		op   func(ch *amqp.Channel) error
		want string
	}{
		{"publish allowed", pub("amq.topic", "bob.x"), ""},
		{"publish refused", pub("amq.topic", "alice.x"), refused("write", "alice.x")},
		{"no topic permission on this exchange", func(ch *amqp.Channel) error {
			if err := ch.ExchangeDeclare("bob.t", "topic", false, false, false, false, nil); err != nil {
				return err
			}
			return pub("bob.t", "alice.x")(ch)
		}, ""},
		{"bind allowed", bind("bob.#"), ""},
		{"bind refused", bind("#"), refused("read", "#")},
	}
	for _, tc := range cases {
		err := asBob(t, srv, tc.op)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var e *amqp.Error
		if !errors.As(err, &e) || e.Code != 403 || e.Reason != tc.want {
			t.Errorf("%s: got %v\nwant 403 %s", tc.name, err, tc.want)
		}
	}
}

// TestReplyToPublishNeedsWrite: a publish asking for a direct reply is
// refused for want of write permission (403) before the missing reply
// consumer is noticed (406), in rabbit_channel's order.
func TestReplyToPublishNeedsWrite(t *testing.T) {
	srv, users := permServer(t)
	must(t, users.SetPermissions("bob", "/", ".*", "^$", ".*"))
	err := asBob(t, srv, func(ch *amqp.Channel) error {
		return ch.Publish("x", "bound", false, false, amqp.Publishing{ReplyTo: "amq.rabbitmq.reply-to"})
	})
	var e *amqp.Error
	if !errors.As(err, &e) || e.Code != 403 || e.Reason != "ACCESS_REFUSED - access to exchange 'x' in vhost '/' refused for user 'bob'" {
		t.Fatalf("%v, want 403 access to exchange 'x'", err)
	}
}

// TestDeletedUserIsDisconnected: deleting a user through the management
// API closes the user's connections with RabbitMQ's 320 (observed,
// RabbitMQ 3.10.8: "CONNECTION_FORCED - user 'app' is deleted").
func TestDeletedUserIsDisconnected(t *testing.T) {
	srv, users := permServer(t)
	must(t, users.SetPermissions("bob", "/", ".*", ".*", ".*"))
	c, err := amqp.Dial("amqp://bob:pw@" + srv.AMQPAddr() + "/")
	must(t, err)
	defer c.Close()
	closed := c.NotifyClose(make(chan *amqp.Error, 1))
	if status, body := mgmtDo(t, srv.HTTPAddr(), http.MethodDelete, "/api/users/bob", ""); status != http.StatusNoContent {
		t.Fatalf("DELETE /api/users/bob: %d %s", status, body)
	}
	select {
	case e := <-closed:
		if e == nil || e.Code != 320 || e.Reason != "CONNECTION_FORCED - user 'bob' is deleted" {
			t.Fatalf("close %+v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("bob's connection is still open")
	}
}

// TestPermissionChangesReachOpenConnections: permissions changed through
// the management API apply to a connection already open, from its next
// operation (observed, RabbitMQ 3.10.8: after clear_permissions the open
// channel's next queue.declare is 403; after set_permissions again it
// succeeds on a new channel).
func TestPermissionChangesReachOpenConnections(t *testing.T) {
	srv, users := permServer(t)
	must(t, users.SetPermissions("bob", "/", ".*", ".*", ".*"))
	c, err := amqp.Dial("amqp://bob:pw@" + srv.AMQPAddr() + "/")
	must(t, err)
	defer c.Close()
	ch := channel(t, c)
	_, err = ch.QueueDeclare("bob1", false, true, false, false, nil)
	must(t, err)
	pub := channel(t, c)
	publish(t, pub, "x", "bound", amqp.Publishing{Body: []byte("before")})
	must(t, pub.Qos(0, 0, false)) // the publish has been handled

	if status, body := mgmtDo(t, srv.HTTPAddr(), http.MethodDelete, "/api/permissions/%2F/bob", ""); status != http.StatusNoContent {
		t.Fatalf("DELETE permissions: %d %s", status, body)
	}
	_, err = ch.QueueDeclare("bob2", false, true, false, false, nil)
	var e *amqp.Error
	if !errors.As(err, &e) || e.Code != 403 || e.Reason != "ACCESS_REFUSED - access to queue 'bob2' in vhost '/' refused for user 'bob'" {
		t.Fatalf("declare after the permissions were cleared: %v", err)
	}
	// The publish check a channel caches is dropped too.
	closed := pub.NotifyClose(make(chan *amqp.Error, 1))
	publish(t, pub, "x", "bound", amqp.Publishing{Body: []byte("after")})
	select {
	case e := <-closed:
		if e == nil || e.Code != 403 {
			t.Fatalf("publish after the permissions were cleared: %v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("publish after the permissions were cleared was accepted")
	}

	if status, body := mgmtDo(t, srv.HTTPAddr(), http.MethodPut, "/api/permissions/%2F/bob", `{"configure":".*","write":".*","read":".*"}`); status != http.StatusCreated {
		t.Fatalf("PUT permissions: %d %s", status, body)
	}
	_, err = channel(t, c).QueueDeclare("bob2", false, true, false, false, nil)
	must(t, err)
}
