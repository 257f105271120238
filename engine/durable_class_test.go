package engine

import "testing"

// TestEveryCommandHasDurableRecords: every command kind says how its
// changes of durable state reach the durable log (durableClass). A kind
// with none would panic in noteCommand rather than be lost at a restart;
// commandSamples has one of every kind (TestCommandRoundTrip).
func TestEveryCommandHasDurableRecords(t *testing.T) {
	for _, c := range commandSamples() {
		if durableClass(c) == durableUnknown {
			t.Errorf("%T: no durable records (add it to durableClass, with the hooks that record its changes)", c)
		}
	}
}

// TestDurableLogKeepsCommandsOnTheStack: with the durable log on, a
// command handed to Apply does not escape (noteCommand names no value of
// it), so a driver's command costs no allocation of its own; basic.qos
// allocates nothing else.
func TestDurableLogKeepsCommandsOnTheStack(t *testing.T) {
	b := New(Config{Seed: 1})
	b.EnableDurableLog()
	conn, err := b.OpenConnection(ConnectionOpen{Vhost: "/", User: "guest"})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := b.OpenChannel(conn, 1)
	if err != nil {
		t.Fatal(err)
	}
	b.DrainEvents(nil)
	n := testing.AllocsPerRun(100, func() {
		b.Apply(CmdBasicQos{Channel: ch, Qos: BasicQos{PrefetchCount: 10}})
		b.DrainEvents(nil)
	})
	if n != 0 {
		t.Fatalf("basic.qos through Apply with the durable log on: %v allocations, want 0", n)
	}
}
