package main

import (
	"encoding/binary"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
)

// tap wraps a client connection and records, per channel and in wire
// order, the asynchronous methods the server sends: the ones whose order
// amqp091-go's API spreads over separate Go channels (returns, confirms,
// deliveries, server cancels) and the closes, whose class-id and method-id
// amqp091-go does not surface. Synchronous replies are left out: the
// scenario's own trace already shows them where they happen.
type tap struct {
	net.Conn
	mu     sync.Mutex
	buf    []byte              // bytes read but not yet a whole frame
	byChan map[uint16][]string // method tokens per channel, in arrival order
	order  []uint16            // channels in order of their first token
	broken string              // why parsing stopped, if it did
}

// maxFrameBytes bounds what the tap buffers: RabbitMQ's and Warren's
// frame-max is 131072, and a frame bigger than this means the stream is
// not AMQP frames (the tap stops recording rather than buffering it).
const maxFrameBytes = 1 << 20

func newTap(c net.Conn) *tap { return &tap{Conn: c, byChan: map[uint16][]string{}} }

// Read passes the bytes through and feeds a copy to the frame splitter,
// which accepts input split anywhere.
func (t *tap) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	if n > 0 {
		t.mu.Lock()
		t.feed(p[:n])
		t.mu.Unlock()
	}
	return n, err
}

func (t *tap) feed(p []byte) {
	if t.broken != "" {
		return
	}
	t.buf = append(t.buf, p...)
	for len(t.buf) >= 7 {
		typ, chanID, size := t.buf[0], binary.BigEndian.Uint16(t.buf[1:3]), binary.BigEndian.Uint32(t.buf[3:7])
		if size > maxFrameBytes {
			t.broken = fmt.Sprintf("frame of %d bytes", size)
			return
		}
		end := 7 + int(size) + 1
		if len(t.buf) < end {
			return
		}
		if typ == 1 { // method frame
			if tok := methodToken(t.buf[7 : 7+size]); tok != "" {
				if _, seen := t.byChan[chanID]; !seen {
					t.order = append(t.order, chanID)
				}
				t.byChan[chanID] = append(t.byChan[chanID], tok)
			}
		}
		t.buf = t.buf[end:]
	}
}

// summary renders the recorded methods, one line per channel. Runs of
// the same token are collapsed into one, and a run of confirms into the
// sorted set of its kinds: RabbitMQ coalesces confirms (multiple=true)
// and orders a batch's acks and nacks as its timing allows, so neither
// their number nor their order within a run is comparable (amqp091-go
// hands them to the trace per tag, in order). Deliveries are counted by
// the trace itself.
func (t *tap) summary() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, id := range t.order {
		var toks []string
		var confirms []string // the current run of acks and nacks
		flush := func() {
			slices.Sort(confirms)
			toks = append(toks, slices.Compact(confirms)...)
			confirms = confirms[:0]
		}
		for _, tok := range t.byChan[id] {
			if strings.HasPrefix(tok, "basic.ack") || strings.HasPrefix(tok, "basic.nack") {
				confirms = append(confirms, tok)
				continue
			}
			flush()
			if len(toks) == 0 || toks[len(toks)-1] != tok {
				toks = append(toks, tok)
			}
		}
		flush()
		line := fmt.Sprintf("ch%d:", id)
		if id == 0 {
			line = "connection:"
		}
		for _, tok := range toks {
			line += " " + tok
		}
		out = append(out, line)
	}
	if t.broken != "" {
		out = append(out, "tap stopped: "+t.broken)
	}
	return out
}

// methodToken names a server-sent method worth recording, with the
// fields that matter for comparison; "" for the rest.
func methodToken(p []byte) string {
	if len(p) < 4 {
		return "short-method"
	}
	class, method := binary.BigEndian.Uint16(p[0:2]), binary.BigEndian.Uint16(p[2:4])
	args := p[4:]
	switch {
	case class == 10 && method == 50: // connection.close
		return "connection.close" + closeFields(args)
	case class == 20 && method == 40: // channel.close
		return "channel.close" + closeFields(args)
	case class == 20 && method == 20: // channel.flow
		return "channel.flow"
	case class == 60 && method == 30: // basic.cancel
		return "basic.cancel"
	case class == 60 && method == 50: // basic.return
		if len(args) >= 2 {
			return fmt.Sprintf("basic.return(%d)", binary.BigEndian.Uint16(args))
		}
		return "basic.return"
	case class == 60 && method == 60: // basic.deliver
		return "basic.deliver"
	case class == 60 && method == 80: // basic.ack
		return "basic.ack"
	case class == 60 && method == 120: // basic.nack: delivery-tag, then bits multiple, requeue
		if len(args) >= 9 {
			return fmt.Sprintf("basic.nack(requeue=%d)", args[8]>>1&1)
		}
		return "basic.nack"
	}
	return ""
}

// closeFields reads reply-code, reply-text, class-id and method-id and
// shows the code and the failing method; the text is in the trace.
func closeFields(p []byte) string {
	if len(p) < 3 {
		return ""
	}
	code := binary.BigEndian.Uint16(p)
	n := int(p[2])
	if len(p) < 3+n+4 {
		return fmt.Sprintf("(%d)", code)
	}
	rest := p[3+n:]
	return fmt.Sprintf("(%d %d/%d)", code, binary.BigEndian.Uint16(rest), binary.BigEndian.Uint16(rest[2:]))
}
