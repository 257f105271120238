package conn

import (
	"strings"
	"testing"
	"unicode/utf8"

	"warren/engine"
	"warren/engine/amqp"
	"warren/engine/amqpconn"
)

// FuzzAcceptedNamesEncode: whatever name or key the engine accepts, the
// writer encodes every delivery that carries it, and a client decodes the
// same bytes back; and a name that would not fit — over 255 bytes, or (for
// names that are set, not published) not UTF-8 — is refused with a 406.
//
// The name goes in each place a delivery takes a short string from: the
// queue it is declared as and published to, an exchange it names, a
// consumer tag, a dead-letter routing key, a publish's routing key, and a
// short-string property and header name of a published message.
func FuzzAcceptedNamesEncode(f *testing.F) {
	for _, s := range []string{
		"", "q", "a\x00b", "line\nbreak", "\xff", "caf\xc3",
		strings.Repeat("a", 255), strings.Repeat("a", 256),
		strings.Repeat("é", 127) + "a", strings.Repeat("é", 128),
		strings.Repeat("é", 127) + "\xc3", strings.Repeat("k", 300),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		fits := len(name) <= engine.MaxShortString
		settable := fits && utf8.ValidString(name)
		for _, p := range namePlaces {
			b := engine.New(engine.Config{Seed: 1})
			conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/"})
			if err != nil {
				t.Fatal(err)
			}
			ch, _ := b.OpenChannel(conn, 1)
			mustOK(t, b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: "dlx", Type: engine.KindFanout}))
			_, err = b.QueueDeclare(ch, engine.QueueDeclare{Queue: "dead"})
			mustOK(t, err)
			mustOK(t, b.QueueBind(ch, engine.QueueBind{Queue: "dead", Exchange: "dlx"}))
			b.DrainEvents(nil)

			err = p.run(b, ch, name)
			ok := settable
			if p.published {
				ok = fits
			}
			if !ok {
				// Nothing else refuses such a name first.
				if e, isEngine := err.(*engine.Error); !isEngine || e.Code != engine.PreconditionFailed ||
					!(strings.Contains(e.Text, "AMQP short string") || strings.Contains(e.Text, "not valid UTF-8")) {
					t.Fatalf("%s %q (%d bytes): %v, want a 406 saying why it does not fit", p.what, name, len(name), err)
				}
				continue
			}
			if err != nil {
				// Refused for another reason: the default exchange, the
				// amq. prefix, a clash with the fixture's own names.
				continue
			}
			delivered := 0
			for _, ev := range b.DrainEvents(nil) {
				if ev.Kind != engine.EvDelivered {
					continue
				}
				delivered++
				got := encodeDecode(t, &ev)
				p.check(t, name, got)
			}
			if delivered != 1 {
				t.Fatalf("%s %q: %d deliveries, want 1", p.what, name, delivered)
			}
		}
	})
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// namePlaces put a name where a delivery will carry it, and deliver one
// message to a consumer ("c" on "dead" unless the name is the tag).
var namePlaces = []struct {
	what      string
	published bool // a publish's short strings need only fit
	run       func(b *engine.Broker, ch engine.ChannelID, name string) error
	check     func(t *testing.T, name string, got amqp.Command)
}{
	{"queue name", false, func(b *engine.Broker, ch engine.ChannelID, name string) error {
		ok, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: name})
		if err != nil {
			return err
		}
		encodeMethod(&amqp.QueueDeclareOk{Queue: ok.Queue})
		if _, err := b.BasicConsume(ch, engine.BasicConsume{Queue: ok.Queue, ConsumerTag: "c"}); err != nil {
			return err
		}
		return b.BasicPublish(ch, engine.BasicPublish{RoutingKey: ok.Queue, Body: []byte("m")})
	}, func(t *testing.T, name string, got amqp.Command) {
		if d := got.Method.(*amqp.BasicDeliver); name != "" && d.RoutingKey != name {
			t.Fatalf("routing key %q, want %q", d.RoutingKey, name)
		}
	}},
	{"exchange name", false, func(b *engine.Broker, ch engine.ChannelID, name string) error {
		if err := b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: name, Type: engine.KindFanout}); err != nil {
			return err
		}
		mustNil(b.QueueBind(ch, engine.QueueBind{Queue: "dead", Exchange: name}))
		mustNil2(b.BasicConsume(ch, engine.BasicConsume{Queue: "dead", ConsumerTag: "c"}))
		return b.BasicPublish(ch, engine.BasicPublish{Exchange: name, Body: []byte("m")})
	}, func(t *testing.T, name string, got amqp.Command) {
		if d := got.Method.(*amqp.BasicDeliver); d.Exchange != name {
			t.Fatalf("exchange %q, want %q", d.Exchange, name)
		}
	}},
	{"consumer tag", false, func(b *engine.Broker, ch engine.ChannelID, name string) error {
		tag, err := b.BasicConsume(ch, engine.BasicConsume{Queue: "dead", ConsumerTag: name})
		if err != nil {
			return err
		}
		encodeMethod(&amqp.BasicConsumeOk{ConsumerTag: tag})
		return b.BasicPublish(ch, engine.BasicPublish{Exchange: "dlx", Body: []byte("m")})
	}, func(t *testing.T, name string, got amqp.Command) {
		if d := got.Method.(*amqp.BasicDeliver); name != "" && d.ConsumerTag != name {
			t.Fatalf("consumer tag %q, want %q", d.ConsumerTag, name)
		}
	}},
	{"x-dead-letter-routing-key", false, func(b *engine.Broker, ch engine.ChannelID, name string) error {
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "src", Args: engine.Table{
			"x-dead-letter-exchange": "dlx", "x-dead-letter-routing-key": name, "x-message-ttl": int64(0)}})
		if err != nil {
			return err
		}
		mustNil2(b.BasicConsume(ch, engine.BasicConsume{Queue: "dead", ConsumerTag: "c"}))
		return b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "src", Body: []byte("m")})
	}, func(t *testing.T, name string, got amqp.Command) {
		if d := got.Method.(*amqp.BasicDeliver); d.RoutingKey != name || d.Exchange != "dlx" {
			t.Fatalf("dead letter via %q with key %q, want dlx and %q", d.Exchange, d.RoutingKey, name)
		}
	}},
	{"routing key", true, func(b *engine.Broker, ch engine.ChannelID, name string) error {
		mustNil2(b.BasicConsume(ch, engine.BasicConsume{Queue: "dead", ConsumerTag: "c"}))
		return b.BasicPublish(ch, engine.BasicPublish{Exchange: "dlx", RoutingKey: name, Body: []byte("m")})
	}, func(t *testing.T, name string, got amqp.Command) {
		if d := got.Method.(*amqp.BasicDeliver); d.RoutingKey != name {
			t.Fatalf("routing key %q, want %q", d.RoutingKey, name)
		}
	}},
	{"properties", true, func(b *engine.Broker, ch engine.ChannelID, name string) error {
		mustNil2(b.BasicConsume(ch, engine.BasicConsume{Queue: "dead", ConsumerTag: "c"}))
		return b.BasicPublish(ch, engine.BasicPublish{Exchange: "dlx", Body: []byte("m"),
			Props: &engine.Properties{MessageID: name, AppID: name, Headers: engine.Table{"h" + name[min(len(name), 1):]: "v"}}})
	}, func(t *testing.T, name string, got amqp.Command) {
		h := "h" + name[min(len(name), 1):]
		if got.Props.MessageID != name || got.Props.AppID != name || got.Props.Headers[h] != "v" {
			t.Fatalf("properties %+v, want message id, app id and header %q", got.Props, name)
		}
	}},
}

// mustNil and mustNil2 are for the setup steps inside a place, which do
// not involve the name and cannot fail.
func mustNil(err error) {
	if err != nil {
		panic(err)
	}
}

func mustNil2[T any](_ T, err error) { mustNil(err) }

// encodeMethod encodes a reply that carries a name; the engine having
// accepted the name, it must not fail.
func encodeMethod(m amqp.Method) {
	if _, err := amqp.AppendMethodFrame(nil, 1, m); err != nil {
		panic(err)
	}
}

// encodeDecode encodes a delivery as the writer does and reads it back as
// a client would.
func encodeDecode(t *testing.T, ev *engine.Event) amqp.Command {
	t.Helper()
	c := &conn{frameMax: 131072}
	fs := amqpconn.FramesOf(ev)
	frames, err := c.encodeEvent(nil, 1, &fs)
	if err != nil {
		t.Fatalf("the writer cannot encode a delivery the engine accepted: %v", err)
	}
	fr := amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true, FrameMax: 131072})
	as := amqp.NewAssembler(amqp.AssemblerConfig{})
	fr.Feed(frames)
	for {
		f, ok, err := fr.Next()
		if err != nil || !ok {
			t.Fatalf("reading back the delivery: ok=%v err=%v", ok, err)
		}
		cmd, done, err := as.Add(f)
		if err != nil {
			t.Fatalf("assembling the delivery: %v", err)
		}
		if done {
			return cmd
		}
	}
}
