package e2e

import (
	"errors"
	"net"
	"sync"
	"testing"

	amqp "github.com/rabbitmq/amqp091-go"
)

// TestCloseReportsNoError: after the application's own conn.Close(),
// amqp091-go's NotifyClose is closed without an error, every time. A
// server that closed the socket right after close-ok made amqp091-go's
// reader see EOF first in about half the tries and report "501 EOF",
// so a standard reconnect loop reconnected after a deliberate close.
func TestCloseReportsNoError(t *testing.T) {
	srv := startServer(t)
	for i := 0; i < 40; i++ {
		c, err := amqp.Dial("amqp://guest:guest@" + srv.AMQPAddr() + "/")
		must(t, err)
		closed := c.NotifyClose(make(chan *amqp.Error, 1))
		if err := c.Close(); err != nil {
			t.Fatalf("try %d: Close: %v", i, err)
		}
		if e, ok := <-closed; ok {
			t.Fatalf("try %d: NotifyClose reported %v after a deliberate close", i, e)
		}
	}
}

// TestConcurrentClose: like amqp091-go's own TestConcurrentClose, many
// goroutines closing one connection at once each get nil (the server
// answers every connection.close with close-ok, as RabbitMQ does while
// closing), ErrClosed, or a network error from a socket the client itself
// closed meanwhile — never an error from the server — and nothing is
// reported to NotifyClose.
func TestConcurrentClose(t *testing.T) {
	srv := startServer(t)
	for i := 0; i < 10; i++ {
		c, err := amqp.Dial("amqp://guest:guest@" + srv.AMQPAddr() + "/")
		must(t, err)
		closed := c.NotifyClose(make(chan *amqp.Error, 1))
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for g := 0; g < cap(errs); g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- c.Close()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			var netErr *net.OpError
			if err != nil && err != amqp.ErrClosed && !errors.As(err, &netErr) {
				t.Fatalf("try %d: Close: %v", i, err)
			}
		}
		if e, open := <-closed; open {
			t.Fatalf("try %d: NotifyClose reported %v", i, e)
		}
	}
}
