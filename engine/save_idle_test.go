package engine_test

import (
	"bytes"
	"testing"

	"warren/engine"
)

// TestSaveIgnoresIdleAckTimers: whether a read (NextDeadline) dropped a
// channel's idle ack timer is not in the command log, so it must not be
// in Save either: two brokers that applied the same commands save the
// same bytes (a shared session's replicas compare hashes of them), and
// keep doing so after the timer is needed again.
func TestSaveIgnoresIdleAckTimers(t *testing.T) {
	cfg := engine.Config{Seed: 1, ConsumerTimeoutMs: 5000}
	brokers := [2]*engine.Broker{engine.New(cfg), engine.New(cfg)}
	chans := [2]engine.ChannelID{}
	for i, b := range brokers {
		conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", Name: "c", User: "guest"})
		ch, _ := b.OpenChannel(conn, 1)
		chans[i] = ch
		if _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "q"}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.BasicConsume(ch, engine.BasicConsume{Queue: "q"}); err != nil {
			t.Fatal(err)
		}
		if err := b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "q", Body: []byte("x")}); err != nil {
			t.Fatal(err)
		}
		if err := b.Apply(engine.CmdBasicAck{Channel: ch, DeliveryTag: 1}).Err; err != nil {
			t.Fatal(err)
		}
		b.DrainEvents(nil)
	}
	// Only the first broker reads its deadline, dropping the idle timer.
	if _, ok := brokers[0].NextDeadline(); ok {
		t.Fatal("an idle ack timer is a deadline")
	}
	same := func(when string) {
		t.Helper()
		if !bytes.Equal(brokers[0].Save(), brokers[1].Save()) {
			t.Fatalf("%s: the broker that read its deadline saves different bytes", when)
		}
	}
	same("after the ack")
	// A loaded copy of the one that kept its idle timer behaves as both.
	loaded, err := engine.Load(brokers[1].Save())
	if err != nil {
		t.Fatal(err)
	}
	all := [3]*engine.Broker{brokers[0], brokers[1], loaded}
	for i, b := range all {
		ch := chans[min(i, 1)]
		if err := b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "q", Body: []byte("y")}); err != nil {
			t.Fatal(err)
		}
		b.AdvanceTo(6000) // the consumer timeout closes the channel
		b.DrainEvents(nil)
	}
	same("after the timeout")
	if !bytes.Equal(loaded.Save(), brokers[1].Save()) {
		t.Fatal("the loaded broker diverged")
	}
}
