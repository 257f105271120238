package main

import (
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/engine"
	"warren/engine/hub"
)

func TestAMQPURL(t *testing.T) {
	l := &hub.AMQPLogin{User: "session-0a1b2c", Password: "p@ss/word", Vhost: "/", Port: 5673}
	got, err := amqpURL("127.0.0.1", l)
	want := "amqp://session-0a1b2c:p%40ss%2Fword@127.0.0.1:5673/%2F"
	if err != nil || got != want {
		t.Fatalf("amqpURL = %q, %v; want %q", got, err, want)
	}
	// amqp091 reads it back as the login it came from.
	u, err := amqp.ParseURI(got)
	if err != nil || u.Username != l.User || u.Password != l.Password || u.Vhost != l.Vhost || u.Port != l.Port || u.Host != "127.0.0.1" {
		t.Fatalf("ParseURI(%q) = %+v, %v", got, u, err)
	}
	if got, _ := amqpURL("::1", &hub.AMQPLogin{User: "u", Password: "p", Vhost: "v", Port: 1}); got != "amqp://u:p@[::1]:1/v" {
		t.Errorf("IPv6 loopback: %q", got)
	}
	for _, l := range []*hub.AMQPLogin{nil, {User: "u", Password: "p", Vhost: "/", WebSocket: "/ws/amqp"}} {
		if _, err := amqpURL("127.0.0.1", l); err == nil || !strings.Contains(err.Error(), "--amqp=false") {
			t.Errorf("amqpURL(%+v): %v, want an error naming --amqp=false", l, err)
		}
	}
}

func TestPublishedBodies(t *testing.T) {
	ch := engine.ChannelID{Conn: 1, Num: 1}
	record := func(c engine.Command) []byte {
		t.Helper()
		rec, err := engine.AppendCommand(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	records := [][]byte{
		record(engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: amqpQueue, Body: []byte(amqpBody(3, 0))}}),
		record(engine.CmdBasicAck{Channel: ch, DeliveryTag: 1}),
		record(engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: amqpQueue, Body: []byte(amqpBody(3, 1)),
			Props: &engine.Properties{DeliveryMode: 2}}}),
	}
	got, err := publishedBodies(records)
	if err != nil || strings.Join(got, " ") != "a3-0 a3-1" {
		t.Fatalf("publishedBodies = %q, %v; want [a3-0 a3-1]", got, err)
	}
	if got, err := publishedBodies(nil); err != nil || got != nil {
		t.Errorf("publishedBodies(nil) = %q, %v", got, err)
	}
	// A record that does not decode is an error; the bodies before it
	// are still returned.
	got, err = publishedBodies([][]byte{records[0], {engine.CommandFormat, 0xff}})
	if err == nil || len(got) != 1 || got[0] != "a3-0" {
		t.Errorf("publishedBodies with a bad record = %q, %v", got, err)
	}
}

func TestAMQPFlags(t *testing.T) {
	c := sessionsConfig{url: "http://127.0.0.1:8081", sessions: 1, participants: 2, commands: 1, rate: 1,
		timeout: time.Minute, drain: time.Second, amqp: false}
	if err := c.check(); err != nil {
		t.Errorf("--amqp=false ignores the AMQP client's flags: %v", err)
	}
	if got := amqpShape(&c); !strings.Contains(got, "no AMQP client") {
		t.Errorf("amqpShape without AMQP: %q", got)
	}
	c.amqp, c.amqpMessages, c.amqpRate = true, 20, 5
	if err := c.check(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	if got := amqpShape(&c); !strings.Contains(got, "20 publishes at 5/s") {
		t.Errorf("amqpShape: %q", got)
	}
}
