package engine

import (
	"slices"
	"testing"
)

// TestBindingsByDestinationFollowTheList checks that every exchange's
// byDest holds exactly its bindings, by destination in creation order,
// through binds (a duplicate among them), unbinds, a queue's and an
// exchange's deletion, a Save and Load, and a restart that drops the
// transient bindings: a bind finds its duplicate through byDest, so one
// missing there would bind twice.
func TestBindingsByDestinationFollowTheList(t *testing.T) {
	b := New(Config{})
	apply := func(c Command) Result { t.Helper(); return mustApply(t, b, c) } // b changes at the Load
	check := func(step string) {
		t.Helper()
		for _, v := range b.vhosts {
			for _, x := range v.exchanges {
				want := map[dest][]*binding{}
				for _, bd := range x.bindings {
					want[bd.dst] = append(want[bd.dst], bd)
				}
				if len(want) != len(x.byDest) {
					t.Fatalf("%s: exchange %q: %d destinations in byDest, %d in its bindings", step, x.name, len(x.byDest), len(want))
				}
				for d, bds := range want {
					if !slices.Equal(bds, x.byDest[d]) {
						t.Fatalf("%s: exchange %q, destination %q: byDest %d bindings, the list %d", step, x.name, d.name(), len(x.byDest[d]), len(bds))
					}
				}
			}
		}
	}
	conn := apply(CmdOpenConnection{Open: ConnectionOpen{Vhost: "/", User: "guest", Name: "c1"}}).Conn
	ch := apply(CmdOpenChannel{Conn: conn, Num: 1}).Channel
	apply(CmdExchangeDeclare{Channel: ch, Declare: ExchangeDeclare{Exchange: "x", Type: KindDirect, Durable: true}})
	apply(CmdExchangeDeclare{Channel: ch, Declare: ExchangeDeclare{Exchange: "y", Type: KindFanout, Durable: true}})
	for _, q := range []string{"d1", "d2"} {
		apply(CmdQueueDeclare{Channel: ch, Declare: QueueDeclare{Queue: q, Durable: true}})
	}
	apply(CmdQueueDeclare{Channel: ch, Declare: QueueDeclare{Queue: "t"}})
	for _, bind := range []QueueBind{
		{Exchange: "x", Queue: "d1", RoutingKey: "a"},
		{Exchange: "x", Queue: "d1", RoutingKey: "b"},
		{Exchange: "x", Queue: "d1", RoutingKey: "a"}, // the same again: no second binding
		{Exchange: "x", Queue: "d2", RoutingKey: "a"},
		{Exchange: "x", Queue: "t", RoutingKey: "a"},
		{Exchange: "y", Queue: "d1"},
		{Exchange: "y", Queue: "t"},
	} {
		apply(CmdQueueBind{Channel: ch, Bind: bind})
	}
	apply(CmdExchangeBind{Channel: ch, Bind: ExchangeBind{Source: "y", Destination: "x", RoutingKey: "a"}})
	check("binds")
	if n := len(b.vhosts["/"].exchanges["x"].bindings); n != 4 {
		t.Fatalf("x has %d bindings, want 4 (a duplicate bind made one)", n)
	}
	apply(CmdQueueUnbind{Channel: ch, Bind: QueueBind{Exchange: "x", Queue: "d1", RoutingKey: "b"}})
	check("unbind")
	apply(CmdQueueDelete{Channel: ch, Delete: QueueDelete{Queue: "d2"}})
	check("queue deleted")

	b.DrainEvents(nil)
	b.DrainCommands(func([]byte) {})
	loaded, err := Load(b.Save())
	if err != nil {
		t.Fatal(err)
	}
	b = loaded
	check("loaded")
	b.Restart(b.Now())
	check("restarted")
	if n := len(b.vhosts["/"].exchanges["x"].bindings); n != 1 {
		t.Fatalf("after the restart x has %d bindings, want 1 (to d1)", n)
	}
	conn = apply(CmdOpenConnection{Open: ConnectionOpen{Vhost: "/", User: "guest", Name: "c2"}}).Conn
	ch = apply(CmdOpenChannel{Conn: conn, Num: 1}).Channel
	apply(CmdQueueBind{Channel: ch, Bind: QueueBind{Exchange: "x", Queue: "d1", RoutingKey: "a"}}) // exists: nothing new
	check("bound again")
	if n := len(b.vhosts["/"].exchanges["x"].bindings); n != 1 {
		t.Fatalf("binding again after the restart made %d bindings, want 1", n)
	}
	apply(CmdExchangeDelete{Channel: ch, Delete: ExchangeDelete{Exchange: "x"}})
	check("exchange deleted")
	if n := len(b.vhosts["/"].exchanges["y"].bindings); n != 1 {
		t.Fatalf("y has %d bindings after x's deletion, want 1 (to d1)", n)
	}
}

// mustApply applies c to b and fails the test if it fails.
func mustApply(t *testing.T, b *Broker, c Command) Result {
	t.Helper()
	r := b.Apply(c)
	if r.Err != nil {
		t.Fatalf("%v: %v", KindOf(c), r.Err)
	}
	return r
}
