package engine_test

import (
	"testing"

	"warren/engine"
)

// The "" shortcuts of AMQP 0-9-1 as RabbitMQ expands them.

// TestQueueBindShortcut: queue.bind and queue.unbind with the queue "" name
// the channel's last declared queue, and with the routing key also ""
// the key is that queue's name (rabbit_channel:expand_shortcuts; observed,
// RabbitMQ 3.10.8: a publish with the queue's name as key is routed).
func TestQueueBindShortcut(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1})
	conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
	ch, _ := b.OpenChannel(conn, 1)
	if err := b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: "x", Type: "direct"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "jobs"}); err != nil {
		t.Fatal(err)
	}
	if err := b.QueueBind(ch, engine.QueueBind{Queue: "", Exchange: "x", RoutingKey: ""}); err != nil {
		t.Fatal(err)
	}
	if err := b.QueueBind(ch, engine.QueueBind{Queue: "", Exchange: "x", RoutingKey: "other"}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, bd := range b.Snapshot().Vhosts[0].Bindings {
		if bd.Source == "x" {
			keys = append(keys, bd.RoutingKey)
		}
	}
	if len(keys) != 2 || keys[0] != "jobs" || keys[1] != "other" {
		t.Fatalf("bindings from x: %q, want [jobs other]", keys)
	}
	if err := b.QueueUnbind(ch, engine.QueueBind{Queue: "", Exchange: "x", RoutingKey: ""}); err != nil {
		t.Fatal(err)
	}
	keys = keys[:0]
	for _, bd := range b.Snapshot().Vhosts[0].Bindings {
		if bd.Source == "x" {
			keys = append(keys, bd.RoutingKey)
		}
	}
	if len(keys) != 1 || keys[0] != "other" {
		t.Fatalf("after unbind, bindings from x: %q, want [other]", keys)
	}
}

// TestPassiveDeclareHasNoShortcut: a passive queue.declare of "" is not the
// last declared queue but a queue named "" that does not exist (observed,
// RabbitMQ 3.10.8, after declaring a server-named queue on the channel).
func TestPassiveDeclareHasNoShortcut(t *testing.T) {
	b := engine.New(engine.Config{Seed: 1})
	conn, _ := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
	ch, _ := b.OpenChannel(conn, 1)
	if _, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: ""}); err != nil {
		t.Fatal(err)
	}
	_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "", Passive: true})
	if e, ok := err.(*engine.Error); !ok || e.Code != 404 || e.Text != "NOT_FOUND - no queue '' in vhost '/'" {
		t.Fatalf("passive declare of \"\": %v, want NOT_FOUND - no queue '' in vhost '/'", err)
	}
}
