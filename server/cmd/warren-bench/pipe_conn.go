package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"warren/engine/amqp"
)

// Sizes of the pipelining client's connections.
const (
	// pipeReadBytes is each connection's read buffer: one read system
	// call takes in up to this much, many frames at once.
	pipeReadBytes = 256 << 10
	// pipeFrameMax is the largest frame-max the client asks for.
	pipeFrameMax = 128 << 10
	// pipeCloseWait bounds the wait for connection.close-ok at the end.
	pipeCloseWait = 2 * time.Second
)

// pipeConn is one AMQP connection of the pipelining client: a socket, a
// large read buffer cut into frames by the codec's FrameReader, and an
// output buffer that collects many frames for one write. Handshake and
// set-up methods are synchronous (rpc); the hot loops read and write
// through the same pieces without waiting for replies.
type pipeConn struct {
	c        net.Conn
	r        *amqp.FrameReader
	in       []byte // read buffer
	out      []byte // frames waiting to be written
	frameMax uint32
	reads    int // read system calls that returned data
	writes   int // write system calls
}

// pipeAddr is what a pipeConn needs from an AMQP URL.
type pipeAddr struct {
	hostPort, user, password, vhost string
}

// parseAMQPURL reads amqp://user:password@host:port/vhost; the vhost is
// "/" when the path is empty or "/", and is percent-decoded otherwise.
func parseAMQPURL(s string) (pipeAddr, error) {
	u, err := url.Parse(s)
	if err != nil {
		return pipeAddr{}, err
	}
	if u.Scheme != "amqp" {
		return pipeAddr{}, fmt.Errorf("%s: the pipelining client speaks amqp:// only", redact(s))
	}
	a := pipeAddr{hostPort: u.Host, user: "guest", password: "guest", vhost: "/"}
	if u.Port() == "" {
		a.hostPort = net.JoinHostPort(u.Hostname(), "5672")
	}
	if u.User != nil {
		a.user = u.User.Username()
		if p, ok := u.User.Password(); ok {
			a.password = p
		}
	}
	if v := strings.TrimPrefix(u.EscapedPath(), "/"); v != "" {
		if a.vhost, err = url.PathUnescape(v); err != nil {
			return pipeAddr{}, err
		}
	}
	return a, nil
}

// dialPipe connects and opens the AMQP connection (PLAIN login, no
// heartbeats, the largest frame-max both sides allow up to pipeFrameMax),
// all within dialTimeout. It connects to a loopback address only: a
// client built to saturate a broker is for measuring one on this machine,
// not for loading a network.
func dialPipe(ctx context.Context, rawURL string) (*pipeConn, error) {
	a, err := parseAMQPURL(rawURL)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(ctx, "tcp", a.hostPort)
	if err != nil {
		return nil, err
	}
	if err := checkLoopback(c.RemoteAddr()); err != nil {
		c.Close()
		return nil, err
	}
	p := &pipeConn{c: c, r: amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true}), in: make([]byte, pipeReadBytes)}
	if err := c.SetDeadline(time.Now().Add(dialTimeout)); err != nil {
		c.Close()
		return nil, err
	}
	if err := p.handshake(a); err != nil {
		c.Close()
		return nil, fmt.Errorf("AMQP handshake with %s: %w", a.hostPort, err)
	}
	if err := c.SetDeadline(time.Time{}); err != nil {
		c.Close()
		return nil, err
	}
	return p, nil
}

func (p *pipeConn) handshake(a pipeAddr) error {
	if _, err := p.c.Write(amqp.ProtocolHeader[:]); err != nil {
		return err
	}
	if _, err := expect[*amqp.ConnectionStart](p, 0); err != nil {
		return err
	}
	startOk := &amqp.ConnectionStartOk{
		ClientProperties: amqp.Table{
			"product":      "warren-bench pipelining client",
			"capabilities": amqp.Table{"publisher_confirms": true, "consumer_cancel_notify": true, "basic.nack": true},
		},
		Mechanism: "PLAIN",
		Response:  "\x00" + a.user + "\x00" + a.password,
		Locale:    "en_US",
	}
	if err := p.send(0, startOk); err != nil {
		return err
	}
	tune, err := expect[*amqp.ConnectionTune](p, 0)
	if err != nil {
		return err
	}
	p.frameMax = pipeFrameMax
	if tune.FrameMax != 0 {
		p.frameMax = min(p.frameMax, tune.FrameMax)
	}
	if err := p.send(0, &amqp.ConnectionTuneOk{ChannelMax: tune.ChannelMax, FrameMax: p.frameMax, Heartbeat: 0}); err != nil {
		return err
	}
	p.r.SetFrameMax(p.frameMax)
	if err := p.send(0, &amqp.ConnectionOpen{VirtualHost: a.vhost}); err != nil {
		return err
	}
	_, err = expect[*amqp.ConnectionOpenOk](p, 0)
	return err
}

// writeSide returns a pipeConn that writes to p's socket, with an output
// buffer and a write count of its own, and never reads: for a publisher
// on a connection whose frames another goroutine reads, and writes its
// acks to. A net.Conn's Write writes all it is given before another
// Write starts, so the two goroutines' frames never interleave.
func (p *pipeConn) writeSide() *pipeConn { return &pipeConn{c: p.c, frameMax: p.frameMax} }

// send writes one method frame at once (set-up, not the hot path).
func (p *pipeConn) send(channel uint16, m amqp.Method) error {
	b, err := amqp.AppendMethodFrame(nil, channel, m)
	if err != nil {
		return err
	}
	return p.write(b)
}

// write writes b in one call (the kernel may take it in parts; Write
// loops until it is all written or fails).
func (p *pipeConn) write(b []byte) error {
	p.writes++
	_, err := p.c.Write(b)
	return err
}

// flush writes the output buffer and empties it.
func (p *pipeConn) flush() error {
	if len(p.out) == 0 {
		return nil
	}
	err := p.write(p.out)
	p.out = p.out[:0]
	return err
}

// fill reads once from the socket into the read buffer and feeds what
// arrived to the frame reader. Call it only after next has reported that
// no complete frame is left (the reader may alias the buffer until then).
func (p *pipeConn) fill() error {
	n, err := p.c.Read(p.in)
	if n > 0 {
		p.reads++
		p.r.Feed(p.in[:n])
		return nil
	}
	if err == nil {
		err = errors.New("read returned nothing")
	}
	return err
}

// next returns the next complete frame already read, or ok false when the
// socket must be read again (fill).
func (p *pipeConn) next() (amqp.Frame, bool, error) { return p.r.Next() }

// method returns the next method frame on channel, reading as needed;
// anything else first is an error.
func (p *pipeConn) method(channel uint16) (amqp.Method, error) {
	for {
		f, ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			if err := p.fill(); err != nil {
				return nil, err
			}
			continue
		}
		if f.Type == amqp.FrameHeartbeat {
			continue
		}
		if f.Type != amqp.FrameMethod {
			return nil, fmt.Errorf("expected a method on channel %d, got a frame of type %d on channel %d", channel, f.Type, f.Channel)
		}
		if err := closeReason(f); err != nil {
			return nil, err
		}
		if f.Channel != channel {
			class, method, _ := methodIDs(f.Payload)
			return nil, fmt.Errorf("expected a method on channel %d, got %s on channel %d", channel, amqp.MethodName(class, method), f.Channel)
		}
		return amqp.DecodeMethod(f.Payload)
	}
}

// expect reads the next method on channel and requires it to be a T.
func expect[T amqp.Method](p *pipeConn, channel uint16) (T, error) {
	var zero T
	m, err := p.method(channel)
	if err != nil {
		return zero, err
	}
	t, ok := m.(T)
	if !ok {
		return zero, fmt.Errorf("expected %s, got %s", zero.Name(), m.Name())
	}
	return t, nil
}

// rpc sends a synchronous method and waits for its reply of type T.
func rpc[T amqp.Method](p *pipeConn, channel uint16, m amqp.Method) (T, error) {
	if err := p.send(channel, m); err != nil {
		var zero T
		return zero, err
	}
	return expect[T](p, channel)
}

// openChannel opens channel n.
func (p *pipeConn) openChannel(n uint16) error {
	_, err := rpc[*amqp.ChannelOpenOk](p, n, &amqp.ChannelOpen{})
	return err
}

// close ends the connection with connection.close and waits, within
// pipeCloseWait, for close-ok, then closes the socket. Frames still in
// flight before close-ok go to late, when it is set, and are skipped
// otherwise; an error from late is close's.
func (p *pipeConn) close(late func(amqp.Frame) error) error {
	defer p.c.Close()
	if err := p.c.SetDeadline(time.Now().Add(pipeCloseWait)); err != nil {
		return err
	}
	if err := p.send(0, &amqp.ConnectionClose{ReplyCode: amqp.ReplySuccess, ReplyText: "bye"}); err != nil {
		return err
	}
	for {
		f, ok, err := p.next()
		if err != nil {
			return err
		}
		if !ok {
			if err := p.fill(); err != nil {
				return err
			}
			continue
		}
		if f.Channel == 0 && f.Type == amqp.FrameMethod {
			if class, method, _ := methodIDs(f.Payload); class == 10 && method == 51 { // connection.close-ok
				return nil
			}
		}
		if late != nil {
			if err := late(f); err != nil {
				return err
			}
		}
	}
}

// checkLoopback refuses a peer that is not on a loopback address.
func checkLoopback(addr net.Addr) error {
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		return nil
	}
	return fmt.Errorf("the pipelining client connects to loopback addresses only, not %s", addr)
}
