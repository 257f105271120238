//go:build linux

package main

import (
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// floodSockets is how many half-open sockets the flood opens: more than
// the default --max-connections (10000), which at 5fdb86a they filled.
const floodSockets = 10500

// TestPreLoginFloodFromOneAddress: 10,500 sockets from 127.0.0.2 that each
// send "AMQ" and nothing more, and then a flood that keeps reconnecting,
// do not keep a client from 127.0.0.1 out of a `warren serve` with the
// default flags: it logs in while the sockets are held (the log compares
// how long that took with a login before the flood; here both take about
// a millisecond), and again while 127.0.0.2 reconnects, and then
// declares, publishes and gets its message.
// Before the per-address bound the half-open sockets filled
// --max-connections and the login was refused with 530 NOT_ALLOWED -
// connection refused: node connection limit (10000) is reached. RabbitMQ
// 3.10.8 has no bound per address: its listener (ranch, max_connections
// = connection_max) counts every accepted socket, logged in or not.
//
// The server runs as a process of its own, so that this process holds
// only the client ends (10,500 file descriptors, under the 20,000 the
// test machines allow).
func TestPreLoginFloodFromOneAddress(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 10,500 sockets")
	}
	needFiles(t, floodSockets+1000)
	p := startServe(t)
	attacker := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	if nc, err := attacker.Dial("tcp", p.amqpAddr); err != nil {
		t.Skipf("cannot dial from 127.0.0.2 (a distinct loopback source on Linux): %v", err)
	} else {
		nc.Close()
	}

	// A login before the flood, for the log's comparison.
	began := time.Now()
	quiet, err := amqp.Dial("amqp://guest:guest@" + p.amqpAddr + "/")
	if err != nil {
		t.Fatal(err)
	}
	quietTook := time.Since(began)
	quiet.Close()

	// The half-open sockets, held open on the client's side to the end.
	var mu sync.Mutex
	var held []net.Conn
	defer func() {
		for _, nc := range held {
			nc.Close()
		}
	}()
	// Dial until 10,500 connects have succeeded (one the server resets
	// before the connect returns is tried again), at most three times
	// as many.
	var opened, attempts atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for opened.Load() < floodSockets && attempts.Add(1) <= 3*floodSockets {
				nc, err := attacker.Dial("tcp", p.amqpAddr)
				if err != nil {
					continue // reset before the connect returned
				}
				nc.Write([]byte("AMQ"))
				opened.Add(1)
				mu.Lock()
				held = append(held, nc)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(held) < floodSockets {
		t.Fatalf("only %d of %d sockets from 127.0.0.2 connected in %d attempts", len(held), floodSockets, attempts.Load())
	}

	// A login while the sockets are held. A loose bound, far above the
	// milliseconds a login takes here (as long as before the flood, on
	// the test machines): the outcome that matters is that it completes.
	began = time.Now()
	held1, err := amqp.Dial("amqp://guest:guest@" + p.amqpAddr + "/")
	heldTook := time.Since(began)
	if err != nil {
		t.Fatalf("login from 127.0.0.1 while %d sockets from 127.0.0.2 are held: %v", len(held), err)
	}
	held1.Close()
	if heldTook > 2*time.Second {
		t.Errorf("the login took %v, want well under 2 s", heldTook)
	}

	// A login while the attacker also reconnects as fast as it can: it
	// competes for the same cores, so only its outcome is asserted.
	stop := make(chan struct{})
	var reconnects atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if nc, err := attacker.Dial("tcp", p.amqpAddr); err == nil {
					nc.Write([]byte("AMQ"))
					nc.Close()
				}
				reconnects.Add(1)
			}
		}()
	}
	began = time.Now()
	c, err := amqp.Dial("amqp://guest:guest@" + p.amqpAddr + "/")
	floodTook := time.Since(began)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("login from 127.0.0.1 while 127.0.0.2 holds %d sockets and reconnects: %v", len(held), err)
	}
	defer c.Close()
	t.Logf("%d half-open sockets from 127.0.0.2 in %d connects; a login from 127.0.0.1 took %v before the flood, %v while the sockets were held, %v while 127.0.0.2 also reconnected (%d times)",
		len(held), attempts.Load(), quietTook, heldTook, floodTook, reconnects.Load())

	ch, err := c.Channel()
	if err != nil {
		t.Fatal(err)
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Publish("", q.Name, false, false, amqp.Publishing{Body: []byte("through the flood")}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		m, ok, err := ch.Get(q.Name, true)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if string(m.Body) != "through the flood" {
				t.Fatalf("got %q", m.Body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the message never arrived")
		}
	}
}

// needFiles makes sure this process may open n files, raising its
// RLIMIT_NOFILE (to the hard limit, or past it up to fs.nr_open when run
// as root), and skips the test if it cannot.
func needFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("cannot read RLIMIT_NOFILE: %v", err)
	}
	if lim.Cur >= n {
		return
	}
	want := lim
	want.Cur = n
	if want.Max < n {
		want.Max = n
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		t.Skipf("needs %d open files; RLIMIT_NOFILE is %d (hard %d) and cannot be raised: %v", n, lim.Cur, lim.Max, err)
	}
}
