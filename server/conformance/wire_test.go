package main

import (
	"encoding/binary"
	"net"
	"slices"
	"testing"
)

// frame builds one AMQP method frame.
func frame(channel uint16, class, method uint16, args []byte) []byte {
	payload := binary.BigEndian.AppendUint16(nil, class)
	payload = binary.BigEndian.AppendUint16(payload, method)
	payload = append(payload, args...)
	f := []byte{1}
	f = binary.BigEndian.AppendUint16(f, channel)
	f = binary.BigEndian.AppendUint32(f, uint32(len(payload)))
	f = append(f, payload...)
	return append(f, 0xCE)
}

func closeArgs(code uint16, text string, class, method uint16) []byte {
	a := binary.BigEndian.AppendUint16(nil, code)
	a = append(a, byte(len(text)))
	a = append(a, text...)
	a = binary.BigEndian.AppendUint16(a, class)
	return binary.BigEndian.AppendUint16(a, method)
}

func ackArgs(tag uint64, bits byte) []byte {
	return append(binary.BigEndian.AppendUint64(nil, tag), bits)
}

// stream is what a server might send: confirms in a batch (ack, nack,
// ack, as RabbitMQ may order them), a return, deliveries, a close, and
// a content header that the tap must skip.
func stream() []byte {
	var b []byte
	b = append(b, frame(1, 60, 80, ackArgs(1, 0))...)
	b = append(b, frame(1, 60, 120, ackArgs(2, 2))...)
	b = append(b, frame(1, 60, 80, ackArgs(3, 1))...)
	b = append(b, frame(1, 60, 50, closeArgs(312, "NO_ROUTE", 0, 0)[:2])...)
	b = append(b, frame(1, 60, 80, ackArgs(4, 0))...)
	b = append(b, frame(2, 60, 60, nil)...)
	b = append(b, 2, 0, 2, 0, 0, 0, 1, 'x', 0xCE) // a header-type frame
	b = append(b, frame(2, 60, 60, nil)...)
	b = append(b, frame(2, 20, 40, closeArgs(404, "NOT_FOUND - no exchange", 60, 40))...)
	b = append(b, frame(0, 10, 50, closeArgs(530, "NOT_ALLOWED", 60, 20))...)
	return b
}

var wantSummary = []string{
	"ch1: basic.ack basic.nack(requeue=1) basic.return(312) basic.ack",
	"ch2: basic.deliver channel.close(404 60/40)",
	"connection: connection.close(530 60/20)",
}

func TestTapSummary(t *testing.T) {
	tp := newTap(nil)
	tp.feed(stream())
	if got := tp.summary(); !slices.Equal(got, wantSummary) {
		t.Errorf("summary:\n%q\nwant\n%q", got, wantSummary)
	}
}

// TestTapSplitAnywhere feeds the stream in two pieces split at every
// position: the tap must not depend on how reads fall.
func TestTapSplitAnywhere(t *testing.T) {
	b := stream()
	for i := range b {
		tp := newTap(nil)
		tp.feed(b[:i])
		tp.feed(b[i:])
		if got := tp.summary(); !slices.Equal(got, wantSummary) {
			t.Fatalf("split at %d: %q", i, got)
		}
	}
}

func TestTapOversizedFrameStops(t *testing.T) {
	tp := newTap(nil)
	tp.feed([]byte{1, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF})
	tp.feed(frame(1, 60, 80, ackArgs(1, 0)))
	got := tp.summary()
	if len(got) != 1 || got[0] != "tap stopped: frame of 4294967295 bytes" {
		t.Errorf("summary %q", got)
	}
}

func TestTapPassesBytesThrough(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	tp := newTap(b)
	defer tp.Close()
	f := frame(3, 60, 30, nil)
	go a.Write(f)
	buf := make([]byte, len(f))
	n, err := tp.Read(buf)
	if err != nil || !slices.Equal(buf[:n], f[:n]) {
		t.Fatalf("read %d %v", n, err)
	}
}
