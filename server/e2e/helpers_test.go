// Package e2e drives a real Warren server over real sockets with real AMQP
// clients: github.com/rabbitmq/amqp091-go here, amqplib, pika and
// @cloudamqp/amqp-client from the scripts next to it.
package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"warren/server"
)

// startServer runs a Warren on ephemeral loopback ports for one test.
func startServer(t *testing.T) *server.Server {
	t.Helper()
	return startServerWith(t, server.Options{})
}

// startServerWith runs a Warren with the given options on ephemeral ports.
func startServerWith(t *testing.T, opts server.Options) *server.Server {
	t.Helper()
	opts.AMQPAddr, opts.HTTPAddr = "127.0.0.1:0", "127.0.0.1:0"
	srv, err := server.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return srv
}

func dial(t *testing.T, srv *server.Server) *amqp.Connection {
	t.Helper()
	c, err := amqp.Dial("amqp://guest:guest@" + srv.AMQPAddr() + "/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func channel(t *testing.T, c *amqp.Connection) *amqp.Channel {
	t.Helper()
	ch, err := c.Channel()
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recv waits for one delivery, failing the test after a bounded wait.
func recv(t *testing.T, d <-chan amqp.Delivery) amqp.Delivery {
	t.Helper()
	select {
	case m, ok := <-d:
		if !ok {
			t.Fatal("delivery channel closed")
		}
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no delivery within 5 s")
	}
	return amqp.Delivery{}
}

// amqpErr returns the *amqp.Error in err, failing if there is none.
func amqpErr(t *testing.T, err error) *amqp.Error {
	t.Helper()
	var e *amqp.Error
	if !errors.As(err, &e) {
		t.Fatalf("want an AMQP error, got %v", err)
	}
	return e
}

func publish(t *testing.T, ch *amqp.Channel, exchange, key string, p amqp.Publishing) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	must(t, ch.PublishWithContext(ctx, exchange, key, false, false, p))
}
