package engine_test

import (
	"testing"

	"warren/engine"
)

// permWorld is a broker whose vhost "/" holds, declared by an unrestricted
// connection: queue "q" (dead-lettering to "dlx"), direct exchanges "dlx"
// and "ae", topic exchange "t", and exchange "x" (alternate exchange "ae").
func permWorld(t *testing.T) *engine.Broker {
	t.Helper()
	b := engine.New(engine.Config{Seed: 1})
	conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "admin"})
	ch, _ := b.OpenChannel(conn, 1)
	for _, x := range []engine.ExchangeDeclare{{Exchange: "dlx", Type: "direct"}, {Exchange: "ae", Type: "direct"},
		{Exchange: "t", Type: "topic"}, {Exchange: "x", Type: "direct", Args: engine.Table{"alternate-exchange": "ae"}}} {
		if err := b.ExchangeDeclare(ch, x); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "q", Args: engine.Table{"x-dead-letter-exchange": "dlx"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.QueueBind(ch, engine.QueueBind{Queue: "q", Exchange: "t", RoutingKey: "a.b"}); err != nil {
		t.Fatal(err)
	}
	b.CloseConnection(conn)
	return b
}

// TestPermissions checks what each operation needs and in which order
// RabbitMQ checks it, for the names only the engine resolves (the
// server-named queue, the "" queue shortcut), passive declares, and the
// DLX and alternate-exchange checks that apply only when the queue or
// exchange is created. The texts are RabbitMQ 3.10.8's
// (rabbit_access_control:check_resource_access/4), which do not name the
// missing permission.
func TestPermissions(t *testing.T) {
	all := engine.Permissions{Configure: ".*", Write: ".*", Read: ".*"}
	none := engine.Permissions{}
	only := func(configure, write, read string) engine.Permissions {
		return engine.Permissions{Configure: configure, Write: write, Read: read}
	}
	// perm is the permission the check is for; 3.10.8's text omits it.
	refused := func(perm, res string) string {
		return "ACCESS_REFUSED - access to " + res + " in vhost '/' refused for user 'bob'"
	}
	cases := []struct {
		name  string
		perms engine.Permissions
		op    func(b *engine.Broker, ch engine.ChannelID) error
		want  string // the channel error's text; "" for success
	}{
		// queue.declare: the server-generated name is what is checked.
		{"server-named queue allowed", only(`^amq\.gen-`, "", ""), declareQueue(""), ""},
		{"server-named queue refused", only("^app", "", ""), declareQueue(""), refused("configure", "queue 'amq.gen-JLo9bfG-fmpHocyyE-vgSL'")},
		{"reserved prefix before configure", none, declareQueue("amq.q"), "ACCESS_REFUSED - queue name 'amq.q' contains reserved prefix 'amq.*'"},
		{"redeclare needs configure", only("", ".*", ".*"), declareQueue("q"), refused("configure", "queue 'q'")},

		// The "" shortcut names the channel's last declared queue.
		{"shortcut resolves before read", only("^app", "", ""), func(b *engine.Broker, ch engine.ChannelID) error {
			if _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "app.q"}); err != nil {
				return err
			}
			_, _, err := b.BasicGet(ch, engine.BasicGet{Queue: ""})
			return err
		}, refused("read", "queue 'app.q'")},
		{"shortcut with nothing declared", none, purge(""), "NOT_FOUND - no previously declared queue"},

		// Passive declares need no permission (access-control.md's
		// table lists none for passive=true). Observed, RabbitMQ 3.10.8,
		// for a user whose configure, write and read are all ^app\.:
		// passive other.q is declare-ok, a missing one 404, and the
		// same for exchanges, whatever type the passive declare names.
		{"passive queue with none", none, passiveQueue("q"), ""},
		{"passive queue outside every pattern", only(`^app\.`, `^app\.`, `^app\.`), passiveQueue("q"), ""},
		{"passive missing queue without", none, passiveQueue("nope"), "NOT_FOUND - no queue 'nope' in vhost '/'"},
		{"passive missing queue outside every pattern", only(`^app\.`, `^app\.`, `^app\.`), passiveQueue("other.q"), "NOT_FOUND - no queue 'other.q' in vhost '/'"},
		{"passive queue named \"\" without", none, passiveQueue(""), "NOT_FOUND - no queue '' in vhost '/'"},
		{"passive missing amq. queue without", none, passiveQueue("amq.gen-nope"), "NOT_FOUND - no queue 'amq.gen-nope' in vhost '/'"},
		{"passive exchange with none", none, passiveExchange("x"), ""},
		{"passive exchange outside every pattern", only(`^app\.`, `^app\.`, `^app\.`), passiveExchange("x"), ""},
		{"passive amq.direct without", none, passiveExchange("amq.direct"), ""},
		{"passive missing exchange without", none, passiveExchange("other.x"), "NOT_FOUND - no exchange 'other.x' in vhost '/'"},
		{"passive missing amq. exchange without", none, passiveExchange("amq.nope"), "NOT_FOUND - no exchange 'amq.nope' in vhost '/'"},
		{"passive exchange of another type without", none, func(b *engine.Broker, ch engine.ChannelID) error {
			return b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: "x", Type: "bogus", Passive: true})
		}, ""},
		{"passive exclusive queue of another connection", none, func(b *engine.Broker, ch engine.ChannelID) error {
			owner, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "admin"})
			och, _ := b.OpenChannel(owner, 1)
			if _, err := b.QueueDeclare(och, engine.QueueDeclare{Queue: "excl", Exclusive: true}); err != nil {
				return err
			}
			_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "excl", Passive: true})
			return err
		}, "RESOURCE_LOCKED - cannot obtain exclusive access to locked queue 'excl' in vhost '/'. It could be originally declared on another connection or the exclusive property value does not match that of the original declaration."},
		{"passive default exchange", all, passiveExchange(""), "ACCESS_REFUSED - operation not permitted on the default exchange"},

		// A DLX needs read on the new queue and write on the DLX, on
		// creation only.
		{"new queue with DLX, no read", only(".*", ".*", ""), declareQueueDLX("app.q", "dlx"), refused("read", "queue 'app.q'")},
		{"new queue with DLX, no write", only(".*", "", ".*"), declareQueueDLX("app.q", "dlx"), refused("write", "exchange 'dlx'")},
		{"new queue with default DLX", only(".*", "^dlx$", ".*"), declareQueueDLX("app.q", ""), refused("write", "exchange 'amq.default'")},
		{"new queue with DLX allowed", only(".*", "^dlx$", "^app"), declareQueueDLX("app.q", "dlx"), ""},
		{"existing queue with DLX", only(".*", "", ""), declareQueueDLX("q", "dlx"), ""},
		{"DLX of the wrong type first", only(".*", "", ""), func(b *engine.Broker, ch engine.ChannelID) error {
			_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "app.q", Args: engine.Table{"x-dead-letter-exchange": int64(1)}})
			return err
		}, "PRECONDITION_FAILED - invalid type 'long' for arg 'x-dead-letter-exchange' in queue 'app.q' in vhost '/'"},

		// exchange.declare: configure before the reserved prefix; an AE
		// needs read on the new exchange and write on the AE.
		{"exchange configure before prefix", none, declareExchange("amq.x", nil), refused("configure", "exchange 'amq.x'")},
		{"default exchange before configure", none, declareExchange("", nil), "ACCESS_REFUSED - operation not permitted on the default exchange"},
		{"new exchange with AE, no read", only(".*", ".*", ""), declareExchange("app.x", engine.Table{"alternate-exchange": "ae"}), refused("read", "exchange 'app.x'")},
		{"new exchange with AE, no write", only(".*", "", ".*"), declareExchange("app.x", engine.Table{"alternate-exchange": "ae"}), refused("write", "exchange 'ae'")},
		{"existing exchange with AE", only(".*", "", ""), declareExchange("x", engine.Table{"alternate-exchange": "ae"}), ""},

		// Deletes need configure, even of what does not exist.
		{"delete missing queue", none, deleteQueue("nope"), refused("configure", "queue 'nope'")},
		{"delete missing queue allowed", only(".*", "", ""), deleteQueue("nope"), ""},
		{"delete system exchange", none, deleteExchange("amq.direct"), "ACCESS_REFUSED - deletion of system exchange 'amq.direct' in vhost '/' not allowed"},
		{"delete missing exchange", none, deleteExchange("nope"), refused("configure", "exchange 'nope'")},

		// Bindings: write on the destination, then read on the source.
		{"bind needs write on the queue", only("", "", ".*"), bindQueue("q", "amq.direct", "k"), refused("write", "queue 'q'")},
		{"bind needs read on the exchange", only("", ".*", ""), bindQueue("q", "amq.direct", "k"), refused("read", "exchange 'amq.direct'")},
		{"bind to the default exchange", only("", ".*", ""), bindQueue("q", "", "k"), "ACCESS_REFUSED - operation not permitted on the default exchange"},
		{"bind to a missing queue", only("", "^nope$", ".*"), bindQueue("nope", "amq.direct", "k"), "NOT_FOUND - no queue 'nope' in vhost '/'"},
		{"unbind nothing", none, func(b *engine.Broker, ch engine.ChannelID) error {
			return b.QueueUnbind(ch, engine.QueueBind{Queue: "q", Exchange: "amq.direct", RoutingKey: "none"})
		}, refused("write", "queue 'q'")},
		{"exchange bind", only("", "^amq.fanout$", ""), func(b *engine.Broker, ch engine.ChannelID) error {
			return b.ExchangeBind(ch, engine.ExchangeBind{Destination: "amq.fanout", Source: "x"})
		}, refused("read", "exchange 'x'")},

		// Reads.
		{"get", only(".*", ".*", "^app"), get("q"), refused("read", "queue 'q'")},
		{"consume", only(".*", ".*", "^app"), func(b *engine.Broker, ch engine.ChannelID) error {
			_, err := b.BasicConsume(ch, engine.BasicConsume{Queue: "q"})
			return err
		}, refused("read", "queue 'q'")},
		{"purge a missing queue", none, purge("nope"), refused("read", "queue 'nope'")},
		{"purge allowed", only("", "", "^q$"), purge("q"), ""},

		// basic.publish: write on the exchange, before its existence.
		{"publish to the default exchange", only(".*", "^x$", ".*"), publish("", "q", nil), refused("write", "exchange 'amq.default'")},
		{"publish to a missing exchange", none, publish("nope", "k", nil), refused("write", "exchange 'nope'")},
		{"publish to amq.default allowed", only("", "^amq\\.default$", ""), publish("", "q", nil), ""},

		// A pattern that does not compile grants nothing.
		{"bad pattern", only("(", "(", "("), declareQueue("q"), refused("configure", "queue 'q'")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := permWorld(t)
			perms := tc.perms
			conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "bob", Perms: &perms})
			if err != nil {
				t.Fatal(err)
			}
			ch, _ := b.OpenChannel(conn, 1)
			checkRefusal(t, tc.op(b, ch), tc.want)
		})
	}
}

// TestTopicPermissions checks topic authorisation (access-control.md,
// "Topic Authorisation"): write on every routing key published to a topic
// exchange (CC included), read on the key of a binding from one, with
// {username} and {vhost} expanded; no topic permission for an exchange, or
// an exchange that is not a topic exchange, is not checked.
func TestTopicPermissions(t *testing.T) {
	topics := []engine.TopicPermission{{Exchange: "t", Write: `^{username}\.`, Read: `^{vhost}-`}, {Exchange: "amq.direct", Write: "^$", Read: "^$"}}
	// perm is the permission the check is for; 3.10.8's text omits it.
	refused := func(perm, key string) string {
		return "ACCESS_REFUSED - access to topic '" + key + "' in exchange 't' in vhost '/' refused for user 'b.b'"
	}
	cc := func(keys ...any) *engine.Properties {
		return &engine.Properties{Headers: engine.Table{"CC": keys}}
	}
	cases := []struct {
		name string
		op   func(b *engine.Broker, ch engine.ChannelID) error
		want string
	}{
		{"publish allowed", publish("t", "b.b.x", nil), ""},
		{"publish refused", publish("t", "a.b", nil), refused("write", "a.b")},
		{"user name quoted", publish("t", "bxb.x", nil), refused("write", "bxb.x")},
		{"CC keys checked", publish("t", "b.b.x", cc("b.b.y", "c.d")), refused("write", "c.d")},
		// The routing key's topic permission comes before user-id, and
		// user-id before the CC keys' (observed, RabbitMQ 3.10.8: key
		// "b" refused and user_id "x": 403 "access to topic 'b' ...";
		// key "a" allowed, CC ["b"] and user_id "x": 406 "user_id
		// property set to 'x' ..." — 3.10.8 did not refuse the CC key
		// "b" even without user_id).
		{"routing key before user-id", publish("t", "a.b", &engine.Properties{UserID: "x"}), refused("write", "a.b")},
		{"user-id before CC keys", publish("t", "b.b.x", &engine.Properties{UserID: "x", Headers: engine.Table{"CC": []any{"c.d"}}}),
			"PRECONDITION_FAILED - user_id property set to 'x' but authenticated user was 'b.b'"},
		{"not a topic exchange", publish("amq.direct", "k", nil), ""},
		{"no topic permission", publish("amq.topic", "k", nil), ""},
		{"bind allowed", bindQueue("q", "t", "/-k"), ""},
		{"bind refused", bindQueue("q", "t", "a.#"), refused("read", "a.#")},
		{"unbind refused", func(b *engine.Broker, ch engine.ChannelID) error {
			return b.QueueUnbind(ch, engine.QueueBind{Queue: "q", Exchange: "t", RoutingKey: "a.b"})
		}, refused("read", "a.b")},
		{"exchange bind refused", func(b *engine.Broker, ch engine.ChannelID) error {
			return b.ExchangeBind(ch, engine.ExchangeBind{Destination: "x", Source: "t", RoutingKey: "k"})
		}, refused("read", "k")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := permWorld(t)
			perms := engine.Permissions{Configure: ".*", Write: ".*", Read: ".*", Topics: topics}
			conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "b.b", Perms: &perms})
			ch, _ := b.OpenChannel(conn, 1)
			checkRefusal(t, tc.op(b, ch), tc.want)
		})
	}
}

// TestUserID checks RabbitMQ's validated user-id: a publish whose user-id
// names another user fails with 406, unless the user is an impersonator or
// the connection checks no permissions (nil, the script's and the
// playground's).
func TestUserID(t *testing.T) {
	all := engine.Permissions{Configure: ".*", Write: ".*", Read: ".*"}
	impersonator := all
	impersonator.Impersonator = true
	cases := []struct {
		name    string
		perms   *engine.Permissions
		userID  string
		present bool // user-id present even when empty
		want    string
	}{
		{"unset", &all, "", false, ""},
		// Observed, RabbitMQ 3.10.8: guest publishing user_id "" (pika)
		// gets 406 "user_id property set to '' but authenticated user
		// was 'guest'".
		{"present but empty", &all, "", true, "PRECONDITION_FAILED - user_id property set to '' but authenticated user was 'bob'"},
		{"own name", &all, "bob", true, ""},
		{"another name", &all, "alice", true, "PRECONDITION_FAILED - user_id property set to 'alice' but authenticated user was 'bob'"},
		{"impersonator", &impersonator, "alice", true, ""},
		{"unrestricted connection", nil, "alice", true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := permWorld(t)
			conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "bob", Perms: tc.perms})
			ch, _ := b.OpenChannel(conn, 1)
			p := &engine.Properties{UserID: tc.userID}
			if tc.present {
				p.Present = engine.FlagUserID
			}
			err := publish("", "q", p)(b, ch)
			checkRefusal(t, err, tc.want)
			if tc.want != "" {
				var e *engine.Error
				if errorAs(err, &e); e.Code != engine.PreconditionFailed {
					t.Errorf("code %d, want 406", e.Code)
				}
			}
		})
	}
	// A direct reply-to reply is a publish too.
	b := permWorld(t)
	conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "bob", Perms: &all})
	ch, _ := b.OpenChannel(conn, 1)
	err := b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "amq.rabbitmq.reply-to.x", Props: &engine.Properties{UserID: "alice"}})
	checkRefusal(t, err, "PRECONDITION_FAILED - user_id property set to 'alice' but authenticated user was 'bob'")
}

// checkRefusal compares a command's outcome with the channel error text
// wanted ("" for success).
func checkRefusal(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("got %v, want success", err)
		}
		return
	}
	var e *engine.Error
	if !errorAs(err, &e) {
		t.Fatalf("got %v, want %q", err, want)
	}
	if e.Text != want || e.Connection {
		t.Fatalf("got %q (connection %v), want channel error %q", e.Text, e.Connection, want)
	}
	if e.Code == engine.AccessRefused || e.Code == engine.PreconditionFailed || e.Code == engine.NotFound || e.Code == engine.ResourceLocked {
		return
	}
	t.Fatalf("code %d for %q", e.Code, e.Text)
}

func errorAs(err error, e **engine.Error) bool {
	ee, ok := err.(*engine.Error)
	if ok {
		*e = ee
	}
	return ok
}

func declareQueue(name string) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: name})
		return err
	}
}

func declareQueueDLX(name, dlx string) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: name, Args: engine.Table{"x-dead-letter-exchange": dlx}})
		return err
	}
}

func passiveQueue(name string) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: name, Passive: true})
		return err
	}
}

func passiveExchange(name string) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		return b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: name, Type: "direct", Passive: true})
	}
}

func declareExchange(name string, args engine.Table) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		return b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: name, Type: "direct", Args: args})
	}
}

func deleteQueue(name string) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		_, err := b.QueueDelete(ch, engine.QueueDelete{Queue: name})
		return err
	}
}

func deleteExchange(name string) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		return b.ExchangeDelete(ch, engine.ExchangeDelete{Exchange: name})
	}
}

func bindQueue(queue, exchange, key string) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		return b.QueueBind(ch, engine.QueueBind{Queue: queue, Exchange: exchange, RoutingKey: key})
	}
}

func get(queue string) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		_, _, err := b.BasicGet(ch, engine.BasicGet{Queue: queue})
		return err
	}
}

func purge(queue string) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		_, err := b.QueuePurge(ch, queue)
		return err
	}
}

func publish(exchange, key string, props *engine.Properties) func(*engine.Broker, engine.ChannelID) error {
	return func(b *engine.Broker, ch engine.ChannelID) error {
		return b.BasicPublish(ch, engine.BasicPublish{Exchange: exchange, RoutingKey: key, Props: props, Body: []byte("m")})
	}
}
