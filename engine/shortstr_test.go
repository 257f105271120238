package engine_test

import (
	"strings"
	"testing"

	"warren/engine"
)

// shortNameCases set a name or key through every entry point that stores
// one the broker later sends as an AMQP short string. Each runs on a
// broker with an exchange "x", a fanout "dlx" and a queue "q" bound to
// both (by key "k" to x), on channel ch of connection conn.
var shortNameCases = []struct {
	what string
	set  func(b *engine.Broker, ch engine.ChannelID, s string) error
	// want is the 406 text for a 256-byte name of 'n's, after the
	// PRECONDITION_FAILED prefix.
	want string
}{
	{"queue name", func(b *engine.Broker, ch engine.ChannelID, s string) error {
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: s})
		return err
	}, "queue name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...' is 256 bytes long, more than the 255 an AMQP short string holds"},
	{"exchange name", func(b *engine.Broker, ch engine.ChannelID, s string) error {
		return b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: s, Type: "direct"})
	}, "exchange name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...' is 256 bytes long, more than the 255 an AMQP short string holds"},
	{"alternate-exchange", func(b *engine.Broker, ch engine.ChannelID, s string) error {
		return b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: "with-ae", Type: "direct", Args: engine.Table{"alternate-exchange": s}})
	}, "invalid arg 'alternate-exchange' for exchange 'with-ae' in vhost '/': 256 bytes long, more than the 255 an AMQP short string holds"},
	{"x-dead-letter-exchange", func(b *engine.Broker, ch engine.ChannelID, s string) error {
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "dl", Args: engine.Table{"x-dead-letter-exchange": s}})
		return err
	}, "invalid arg 'x-dead-letter-exchange' for queue 'dl' in vhost '/': 256 bytes long, more than the 255 an AMQP short string holds"},
	{"x-dead-letter-routing-key", func(b *engine.Broker, ch engine.ChannelID, s string) error {
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "dl", Args: engine.Table{"x-dead-letter-exchange": "dlx", "x-dead-letter-routing-key": s}})
		return err
	}, "invalid arg 'x-dead-letter-routing-key' for queue 'dl' in vhost '/': 256 bytes long, more than the 255 an AMQP short string holds"},
	{"binding key", func(b *engine.Broker, ch engine.ChannelID, s string) error {
		return b.QueueBind(ch, engine.QueueBind{Queue: "q", Exchange: "x", RoutingKey: s})
	}, "binding key 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...' is 256 bytes long, more than the 255 an AMQP short string holds"},
	{"exchange binding key", func(b *engine.Broker, ch engine.ChannelID, s string) error {
		return b.ExchangeBind(ch, engine.ExchangeBind{Destination: "dlx", Source: "x", RoutingKey: s})
	}, "binding key 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...' is 256 bytes long, more than the 255 an AMQP short string holds"},
	{"consumer tag", func(b *engine.Broker, ch engine.ChannelID, s string) error {
		_, err := b.BasicConsume(ch, engine.BasicConsume{Queue: "q", ConsumerTag: s})
		return err
	}, "consumer tag 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn...' is 256 bytes long, more than the 255 an AMQP short string holds"},
}

// shortNameBroker is the broker shortNameCases run on.
func shortNameBroker(t *testing.T) (*engine.Broker, engine.ConnID) {
	t.Helper()
	b := engine.New(engine.Config{Seed: 1})
	conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
	if err != nil {
		t.Fatal(err)
	}
	ch, _ := b.OpenChannel(conn, 1)
	for _, err := range []error{
		b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: "x", Type: "direct"}),
		b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: "dlx", Type: "fanout"}),
		func() error { _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "q"}); return err }(),
		b.QueueBind(ch, engine.QueueBind{Queue: "q", Exchange: "x", RoutingKey: "k"}),
		b.QueueBind(ch, engine.QueueBind{Queue: "q", Exchange: "dlx"}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	b.CloseChannel(ch)
	return b, conn
}

// TestShortNamesRefused: each entry point takes a 255-byte name and
// refuses a 256-byte one, or one that is not UTF-8, with a 406 that closes
// the channel and changes nothing.
func TestShortNamesRefused(t *testing.T) {
	for _, c := range shortNameCases {
		t.Run(c.what, func(t *testing.T) {
			b, conn := shortNameBroker(t)
			ch, _ := b.OpenChannel(conn, 2)
			if err := c.set(b, ch, strings.Repeat("n", 255)); err != nil {
				t.Fatalf("255 bytes: %v", err)
			}
			b2, conn2 := shortNameBroker(t)
			before := b2.Snapshot()
			for _, tc := range []struct{ name, want string }{
				{strings.Repeat("n", 256), c.want},
				{"bad\xff", ""},
			} {
				ch, _ := b2.OpenChannel(conn2, 2)
				err := c.set(b2, ch, tc.name)
				e, ok := err.(*engine.Error)
				if !ok || e.Code != engine.PreconditionFailed || e.Connection {
					t.Fatalf("%q: %v, want a 406 channel error", tc.name, err)
				}
				if tc.want != "" && e.Text != "PRECONDITION_FAILED - "+tc.want {
					t.Fatalf("text %q\nwant %q", e.Text, "PRECONDITION_FAILED - "+tc.want)
				}
				if tc.want == "" && !strings.Contains(e.Text, "not valid UTF-8") {
					t.Fatalf("text %q, want it to say not valid UTF-8", e.Text)
				}
				if len(e.Text) > engine.MaxShortString {
					t.Fatalf("reply text of %d bytes does not fit a short string", len(e.Text))
				}
			}
			after := b2.Snapshot()
			if len(after.Vhosts[0].Queues) != len(before.Vhosts[0].Queues) ||
				len(after.Vhosts[0].Exchanges) != len(before.Vhosts[0].Exchanges) ||
				len(after.Vhosts[0].Bindings) != len(before.Vhosts[0].Bindings) {
				t.Fatal("a refused name changed the topology")
			}
		})
	}
}

// TestShortNamesInPublish: a publish's routing key, short-string
// properties and header names must fit in 255 bytes. They are not checked
// for UTF-8: RabbitMQ delivers a content method's short strings as they
// were published.
func TestShortNamesInPublish(t *testing.T) {
	long := strings.Repeat("p", 256)
	cases := []struct {
		what string
		pub  engine.BasicPublish
		want string
	}{
		{"routing key", engine.BasicPublish{Exchange: "x", RoutingKey: long},
			"routing key 'pppppppppppppppppppppppppppppppppppppppppppppppp...' is 256 bytes long, more than the 255 an AMQP short string holds"},
		{"message_id", engine.BasicPublish{Exchange: "x", RoutingKey: "k", Props: &engine.Properties{MessageID: long}},
			"property message_id 'pppppppppppppppppppppppppppppppppppppppppppppppp...' is 256 bytes long, more than the 255 an AMQP short string holds"},
		{"reply_to", engine.BasicPublish{Exchange: "x", RoutingKey: "k", Props: &engine.Properties{ReplyTo: long}},
			"property reply_to 'pppppppppppppppppppppppppppppppppppppppppppppppp...' is 256 bytes long, more than the 255 an AMQP short string holds"},
		{"nested header name", engine.BasicPublish{Exchange: "x", RoutingKey: "k", Props: &engine.Properties{
			Headers: engine.Table{"ok": []any{engine.Table{long + "b": 1, long + "a": 2}}}}},
			"header name 'pppppppppppppppppppppppppppppppppppppppppppppppp...' is 257 bytes long, more than the 255 an AMQP short string holds"},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			b, conn := shortNameBroker(t)
			ch, _ := b.OpenChannel(conn, 2)
			err := b.BasicPublish(ch, c.pub)
			if e, ok := err.(*engine.Error); !ok || e.Code != engine.PreconditionFailed || e.Text != "PRECONDITION_FAILED - "+c.want {
				t.Fatalf("got %v\nwant 406 %q", err, c.want)
			}
			if msgs, _ := b.ReadyTotals(); msgs != 0 {
				t.Fatalf("%d messages enqueued", msgs)
			}
		})
	}
	b, conn := shortNameBroker(t)
	ch, _ := b.OpenChannel(conn, 2)
	if err := b.BasicPublish(ch, engine.BasicPublish{Exchange: "x", RoutingKey: "k", Props: &engine.Properties{MessageID: "\xff" + long[:254]}}); err != nil {
		t.Fatalf("a 255-byte property that is not UTF-8: %v", err)
	}
}

// TestShortNamesInVhostsAndPolicies: vhost names and the policy keys that
// name exchanges or a routing key are checked like declare arguments.
func TestShortNamesInVhostsAndPolicies(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1})
	long := strings.Repeat("v", 256)
	err := b.AddVhost(long)
	if e, ok := err.(*engine.Error); !ok || e.Code != engine.PreconditionFailed ||
		e.Text != "PRECONDITION_FAILED - vhost name 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv...' is 256 bytes long, more than the 255 an AMQP short string holds" {
		t.Fatalf("256-byte vhost: %v", err)
	}
	if err := b.AddVhost("v\xff"); err == nil || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Fatalf("vhost that is not UTF-8: %v", err)
	}
	if err := b.AddVhost(long[:255]); err != nil {
		t.Fatalf("255-byte vhost: %v", err)
	}
	for _, key := range []string{"dead-letter-exchange", "dead-letter-routing-key", "alternate-exchange"} {
		err := b.SetPolicy(engine.Policy{Vhost: "/", Name: "p", Pattern: ".*", Definition: engine.Table{key: long}})
		e, ok := err.(*engine.Error)
		if !ok || e.Code != engine.PreconditionFailed || !strings.HasPrefix(e.Text, "Validation failed\n\n<<\"vvvv") ||
			!strings.HasSuffix(e.Text, ": 256 bytes long, more than the 255 an AMQP short string holds") {
			t.Fatalf("policy %s of 256 bytes: %v", key, err)
		}
		if err := b.SetPolicy(engine.Policy{Vhost: "/", Name: "p", Pattern: ".*", Definition: engine.Table{key: long[:255]}}); err != nil {
			t.Fatalf("policy %s of 255 bytes: %v", key, err)
		}
	}
}
