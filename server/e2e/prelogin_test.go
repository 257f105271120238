package e2e

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	amqp "github.com/rabbitmq/amqp091-go"

	"warren/driver/addrlimit"
	"warren/driver/conn"
	wire "warren/engine/amqp"
	"warren/server"
)

// from127002 dials from 127.0.0.2, a source address of its own on Linux
// (the server listens on 127.0.0.1).
var from127002 = &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}

// dialFrom127002 opens a TCP connection from 127.0.0.2, skipping the test
// where that address cannot be bound.
func dialFrom127002(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := from127002.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial from 127.0.0.2 (a distinct loopback source on Linux): %v", err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// expectDropped dials addr from 127.0.0.2, writes request, and says the
// server closed the socket at once: the connect or a read ends with a
// reset or EOF, not at the 5 s safety deadline (an admitted socket would
// stay open until the handshake timeout).
func expectDropped(t *testing.T, addr string, request []byte, what string) {
	t.Helper()
	nc, err := from127002.Dial("tcp", addr)
	if errors.Is(err, syscall.ECONNRESET) {
		return // reset before the connect had returned
	}
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer nc.Close()
	nc.Write(request)
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := nc.Read(make([]byte, 64))
	if errors.Is(err, os.ErrDeadlineExceeded) || err == nil {
		t.Fatalf("%s: read %d bytes, %v; want the socket dropped at once", what, n, err)
	}
}

// webSocketFrom dials the AMQP WebSocket with d.
func webSocketFrom(srv *server.Server, d *net.Dialer) (*websocket.Conn, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	return websocket.Dial(ctx, "ws://"+srv.HTTPAddr()+"/amqp", &websocket.DialOptions{HTTPClient: client})
}

// TestPreLoginBoundPerAddress: the AMQP connections one source address
// holds before login are bounded, TCP and WebSocket together; over the
// bound a TCP socket is reset at once and a WebSocket upgrade gets 429,
// while another address logs in as usual. A connection gives its place
// back at connection.open, and a socket that goes gives it back too.
// RabbitMQ 3.10.8 has no such bound (nothing in rabbit_reader or its
// listener counts by address).
func TestPreLoginBoundPerAddress(t *testing.T) {
	srv := startServerWith(t, server.Options{PreLogin: addrlimit.Limits{PerAddress: 2}})
	tcp := dialFrom127002(t, srv.AMQPAddr())
	tcp.Write(wire.ProtocolHeader[:])
	tcp.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(tcp, make([]byte, 7)); err != nil { // connection.start's frame header
		t.Fatalf("first socket: %v", err)
	}
	ws, _, err := webSocketFrom(srv, from127002)
	if err != nil {
		t.Fatalf("WebSocket within the bound: %v", err)
	}
	defer ws.CloseNow()
	src := tcp.LocalAddr()
	if held, _ := srv.PreLoginHeld(src); held != 2 {
		t.Fatalf("127.0.0.2 holds %d places before login, want 2", held)
	}

	expectDropped(t, srv.AMQPAddr(), wire.ProtocolHeader[:], "third TCP socket from 127.0.0.2")
	if _, resp, err := webSocketFrom(srv, from127002); err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third WebSocket from 127.0.0.2: %v, want 429", err)
	}
	withDialer := amqp.Config{Dial: func(network, addr string) (net.Conn, error) { return from127002.Dial(network, addr) }}
	if c, err := amqp.DialConfig("amqp://guest:guest@"+srv.AMQPAddr()+"/", withDialer); err == nil {
		c.Close()
		t.Fatal("a login from 127.0.0.2 got a place over the bound")
	}

	// Another address is not held back, and its login leaves no place
	// taken.
	c := dial(t, srv)
	if held, _ := srv.PreLoginHeld(c.LocalAddr()); held != 0 {
		t.Fatalf("127.0.0.1 holds %d places after its login, want 0", held)
	}

	// When the TCP socket goes, 127.0.0.2 can log in again.
	tcp.Close()
	waitFor(t, "the closed socket's place", func() bool { held, _ := srv.PreLoginHeld(src); return held == 1 })
	c2, err := amqp.DialConfig("amqp://guest:guest@"+srv.AMQPAddr()+"/", withDialer)
	if err != nil {
		t.Fatalf("login from 127.0.0.2 with a place free: %v", err)
	}
	defer c2.Close()
	if held, _ := srv.PreLoginHeld(src); held != 1 {
		t.Fatalf("127.0.0.2 holds %d places after its login, want 1 (the WebSocket)", held)
	}
}

// TestHTTPConnectionsBoundPerAddress: the HTTP connections one source
// address holds — idle keep-alive ones and ones whose headers are still
// coming included (ReadHeaderTimeout ends those) — are bounded; over the
// bound a connection is reset at once, before a request is read, while
// another address is served. A WebSocket gives its HTTP place back once
// upgraded.
func TestHTTPConnectionsBoundPerAddress(t *testing.T) {
	srv := startServerWith(t, server.Options{HTTPConns: addrlimit.Limits{PerAddress: 2}})
	idle := dialFrom127002(t, srv.HTTPAddr())
	httpGet(t, idle) // answered, then kept alive and idle
	slow := dialFrom127002(t, srv.HTTPAddr())
	slow.Write([]byte("GET /api/overview HTTP/1.1\r\n")) // headers still coming
	src := idle.LocalAddr()
	waitFor(t, "the slow request's place", func() bool { held, _ := srv.HTTPHeld(src); return held == 2 })
	expectDropped(t, srv.HTTPAddr(), []byte("GET /api/overview HTTP/1.1\r\nHost: warren\r\n\r\n"), "third HTTP connection from 127.0.0.2")

	resp, err := http.Get("http://" + srv.HTTPAddr() + "/api/overview")
	if err != nil {
		t.Fatalf("127.0.0.1 while 127.0.0.2 is at its bound: %v", err)
	}
	resp.Body.Close()

	// One idle connection goes; a WebSocket takes its place only for the
	// upgrade, so a request still finds one free while it is open.
	slow.Close()
	waitFor(t, "the closed connection's place", func() bool { held, _ := srv.HTTPHeld(src); return held == 1 })
	ws, _, err := webSocketFrom(srv, from127002)
	if err != nil {
		t.Fatalf("WebSocket upgrade from 127.0.0.2: %v", err)
	}
	defer ws.CloseNow()
	waitFor(t, "the upgraded connection's place", func() bool { held, _ := srv.HTTPHeld(src); return held == 1 })
	httpGet(t, dialFrom127002(t, srv.HTTPAddr()))
}

// TestHandshakeTimeoutResets: a socket dropped at the handshake timeout
// is reset, as RabbitMQ 3.10.8's are (observed: ECONNRESET 10.00 s after
// the socket opened, after "AMQ" and at every later stage before
// connection.open; nothing sent). driver/conn's TestHandshakeTimeout
// checks the stages in virtual time; this checks the reset on a real
// socket, with a short timeout.
func TestHandshakeTimeoutResets(t *testing.T) {
	srv := startServerWith(t, server.Options{Conn: conn.Config{HandshakeTimeout: 100 * time.Millisecond}})
	nc, err := net.Dial("tcp", srv.AMQPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.Write([]byte("AMQ"))
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := nc.Read(make([]byte, 64))
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read %d bytes, %v; want the connection reset", n, err)
	}
}

// httpGet sends one request on nc and reads the whole answer, failing the
// test if there is none.
func httpGet(t *testing.T, nc net.Conn) {
	t.Helper()
	if !httpGetOK(nc) {
		t.Fatal("no HTTP answer")
	}
}

func httpGetOK(nc net.Conn) bool {
	nc.SetDeadline(time.Now().Add(5 * time.Second))
	defer nc.SetDeadline(time.Time{})
	if _, err := nc.Write([]byte("GET /api/overview HTTP/1.1\r\nHost: warren\r\n\r\n")); err != nil {
		return false
	}
	resp, err := http.ReadResponse(bufio.NewReader(nc), nil)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return err == nil
}

// waitFor polls cond, which the server makes true asynchronously (it sees
// a socket close when it next reads), for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after 5 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
