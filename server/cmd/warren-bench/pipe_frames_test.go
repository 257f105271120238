package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"testing"

	"warren/engine/amqp"
)

// handleAll hands every whole frame r holds to s, and returns the first
// error of either.
func handleAll(r *amqp.FrameReader, s *consumeState) error {
	for {
		f, ok, err := r.Next()
		if err != nil || !ok {
			return err
		}
		if err := s.handle(f); err != nil {
			return err
		}
	}
}

// decodeCommands cuts b into frames and assembles them with the codec, as
// a broker reads them.
func decodeCommands(t *testing.T, b []byte, frameMax uint32) []amqp.Command {
	t.Helper()
	r := amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true, FrameMax: frameMax})
	a := amqp.NewAssembler(amqp.AssemblerConfig{})
	r.Feed(b)
	var out []amqp.Command
	for {
		f, ok, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out
		}
		c, done, err := a.Add(f)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			out = append(out, c)
		}
	}
}

func TestPublishBatchIsWhatABrokerReads(t *testing.T) {
	for _, c := range []struct {
		name     string
		size     int
		frameMax uint32
	}{
		{"one body frame", 16, 131072},
		{"a body over three frames", 10_000, 4096},
		{"the id alone", msgIDBytes, 4096},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := body(c.size)
			props := amqp.Properties{DeliveryMode: 2}
			tmpl, err := newPublishTemplate(3, "x", "key", props, b, c.frameMax)
			if err != nil {
				t.Fatal(err)
			}
			first := msgID(1, 41)
			batch := tmpl.appendBatch([]byte("keep"), first, 3)
			if !bytes.HasPrefix(batch, []byte("keep")) {
				t.Fatal("appendBatch overwrote what was in the buffer")
			}
			cmds := decodeCommands(t, batch[4:], c.frameMax)
			if len(cmds) != 3 {
				t.Fatalf("%d commands, want 3", len(cmds))
			}
			for i, cmd := range cmds {
				pub, ok := cmd.Method.(*amqp.BasicPublish)
				if !ok || cmd.Channel != 3 || pub.Exchange != "x" || pub.RoutingKey != "key" || cmd.Props.DeliveryMode != 2 {
					t.Fatalf("command %d: %+v on channel %d, props %+v", i, cmd.Method, cmd.Channel, cmd.Props)
				}
				if got := binary.BigEndian.Uint64(cmd.Body); got != first+uint64(i) {
					t.Errorf("command %d: id %x, want %x", i, got, first+uint64(i))
				}
				if !bytes.Equal(cmd.Body[msgIDBytes:], b[msgIDBytes:]) || len(cmd.Body) != c.size {
					t.Errorf("command %d: body after the id changed", i)
				}
			}
		})
	}
	if _, err := newPublishTemplate(1, "", "q", amqp.Properties{}, make([]byte, msgIDBytes-1), 4096); err == nil {
		t.Error("a body shorter than the id was accepted")
	}
}

func TestMsgID(t *testing.T) {
	p, s := splitMsgID(msgID(7, 1<<31+5))
	if p != 7 || s != 1<<31+5 {
		t.Errorf("splitMsgID(msgID(7, 2^31+5)) = %d, %d", p, s)
	}
}

// methodPayload encodes m and returns its frame's payload.
func methodPayload(t *testing.T, m amqp.Method) []byte {
	t.Helper()
	b, err := amqp.AppendMethodFrame(nil, 1, m)
	if err != nil {
		t.Fatal(err)
	}
	return b[7 : len(b)-1]
}

func TestParseHotMethods(t *testing.T) {
	for _, tag := range []string{"", "pipe-0-1", strings.Repeat("t", 255)} {
		d := &amqp.BasicDeliver{ConsumerTag: tag, DeliveryTag: 1<<40 + 3, Redelivered: true, Exchange: "x", RoutingKey: "k"}
		got, err := parseDeliver(methodPayload(t, d))
		if err != nil || got != d.DeliveryTag {
			t.Errorf("parseDeliver with a %d-byte consumer tag = %d, %v", len(tag), got, err)
		}
	}
	for _, m := range []amqp.Method{
		&amqp.BasicAck{DeliveryTag: 9, Multiple: true},
		&amqp.BasicAck{DeliveryTag: 10},
		&amqp.BasicNack{DeliveryTag: 11, Multiple: true, Requeue: true},
		&amqp.BasicNack{DeliveryTag: 12, Requeue: true},
	} {
		tag, multiple, err := parseConfirm(methodPayload(t, m))
		var want amqp.BasicNack
		switch m := m.(type) {
		case *amqp.BasicAck:
			want = amqp.BasicNack{DeliveryTag: m.DeliveryTag, Multiple: m.Multiple}
		case *amqp.BasicNack:
			want = *m
		}
		if err != nil || tag != want.DeliveryTag || multiple != want.Multiple {
			t.Errorf("parseConfirm(%s %+v) = %d, %v, %v", m.Name(), m, tag, multiple, err)
		}
	}
	payload := methodPayload(t, &amqp.BasicDeliver{ConsumerTag: "abc", DeliveryTag: 1})
	for n := range len(payload) - 1 {
		if _, err := parseDeliver(payload[:n]); n < 5+3+8 && err == nil {
			t.Errorf("parseDeliver of %d bytes: no error", n)
		}
	}
	if _, _, err := parseConfirm(payload[:12]); err == nil {
		t.Error("parseConfirm of 12 bytes: no error")
	}
}

// serverStream encodes what a broker sends a consumer connection: for
// each delivery, basic.deliver on its channel, the content header and the
// body (the message id first), cut to frameMax.
type delivery struct {
	channel uint16
	tag     uint64
	id      uint64
	size    int
}

func serverStream(t *testing.T, ds []delivery, frameMax uint32) []byte {
	t.Helper()
	var b []byte
	for _, d := range ds {
		var err error
		b, err = amqp.AppendMethodFrame(b, d.channel, &amqp.BasicDeliver{ConsumerTag: "c", DeliveryTag: d.tag, RoutingKey: "q"})
		if err != nil {
			t.Fatal(err)
		}
		body := body(d.size)
		binary.BigEndian.PutUint64(body, d.id)
		if b, err = amqp.AppendContent(b, d.channel, classBasic, amqp.Properties{}, body, frameMax); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// acksIn decodes the basic.ack frames in b: channel → tags in order.
func acksIn(t *testing.T, b []byte) map[uint16][]uint64 {
	t.Helper()
	out := map[uint16][]uint64{}
	for _, c := range decodeCommands(t, b, 131072) {
		ack, ok := c.Method.(*amqp.BasicAck)
		if !ok || !ack.Multiple {
			t.Fatalf("not an ack with multiple=true: %+v", c.Method)
		}
		out[c.Channel] = append(out[c.Channel], ack.DeliveryTag)
	}
	return out
}

func TestConsumeStateInputSplitAnywhere(t *testing.T) {
	const frameMax = 4096
	sent := []int{60, 40} // two publishers
	// Channel 1 consumes queue 0, channel 2 queue 1; every message of both
	// publishers reaches both, some over several body frames.
	var ds []delivery
	tags := map[uint16]uint64{}
	for seq := range 60 {
		for p := range 2 {
			if seq >= sent[p] {
				continue
			}
			for ch := uint16(1); ch <= 2; ch++ {
				tags[ch]++
				size := 16
				if seq%7 == 0 {
					size = 9000
				}
				ds = append(ds, delivery{channel: ch, tag: tags[ch], id: msgID(p, seq), size: size})
			}
		}
	}
	stream := serverStream(t, ds, frameMax)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		s := newConsumeState([]int{0, 1}, sent, true, 25)
		r := amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true, FrameMax: frameMax})
		var acks []byte
		for rest := stream; len(rest) > 0; {
			n := 1 + rng.IntN(min(len(rest), 3000))
			if trial == 0 {
				n = 1 // byte by byte
			}
			r.Feed(rest[:n])
			rest = rest[n:]
			if err := handleAll(r, s); err != nil {
				t.Fatal(err)
			}
			acks = s.appendAcks(acks, false)
		}
		if s.delivered != len(ds) {
			t.Fatalf("trial %d: delivered %d, want %d", trial, s.delivered, len(ds))
		}
		acks = s.appendAcks(acks, true)
		got := acksIn(t, acks)
		for ch := uint16(1); ch <= 2; ch++ {
			a := got[ch]
			if len(a) == 0 || a[len(a)-1] != tags[ch] {
				t.Fatalf("trial %d: channel %d acks %v, want the last to be %d", trial, ch, a, tags[ch])
			}
			for i := 1; i < len(a); i++ {
				if a[i] <= a[i-1] || (i < len(a)-1 && a[i]-a[i-1] < 25) {
					t.Fatalf("trial %d: channel %d acks %v: not increasing in steps of at least 25", trial, ch, a)
				}
			}
			if err := s.channels[ch].ids.check(); err != nil {
				t.Fatalf("trial %d: channel %d: %v", trial, ch, err)
			}
		}
		if s.ackFrames != len(got[1])+len(got[2]) {
			t.Errorf("ackFrames %d, frames %d", s.ackFrames, len(got[1])+len(got[2]))
		}
	}
}

func TestConsumeStateAcksOnlyWholeMessages(t *testing.T) {
	s := newConsumeState([]int{0}, []int{10}, true, 1)
	stream := serverStream(t, []delivery{{1, 1, msgID(0, 0), 16}, {1, 2, msgID(0, 1), 16}}, 4096)
	r := amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true})
	r.Feed(stream[:len(stream)-10]) // the second body cut short
	for {
		f, ok, err := r.Next()
		if err != nil || !ok {
			break
		}
		if err := s.handle(f); err != nil {
			t.Fatal(err)
		}
	}
	if got := acksIn(t, s.appendAcks(nil, true)); len(got[1]) != 1 || got[1][0] != 1 {
		t.Errorf("acks %v, want tag 1 only (tag 2 is still arriving)", got)
	}
	// No-ack consumers send nothing.
	if b := newConsumeState([]int{0}, []int{1}, false, 1).appendAcks(nil, true); len(b) != 0 {
		t.Errorf("a no-ack consumer acked: %x", b)
	}
}

func TestConsumeStateRefusesBrokenInput(t *testing.T) {
	body, _ := amqp.AppendContent(nil, 1, classBasic, amqp.Properties{}, make([]byte, 16), 4096)
	deliver := serverStream(t, []delivery{{1, 1, 0, 16}}, 4096)
	closeCh, _ := amqp.AppendMethodFrame(nil, 1, &amqp.ChannelClose{ReplyCode: 406, ReplyText: "PRECONDITION_FAILED - unknown delivery tag 9"})
	short, _ := amqp.AppendContent(nil, 1, classBasic, amqp.Properties{}, make([]byte, 4), 4096)
	shortDeliver, _ := amqp.AppendMethodFrame(nil, 1, &amqp.BasicDeliver{DeliveryTag: 1})
	for name, c := range map[string]struct {
		in   []byte
		want string
	}{
		"content without deliver":    {body, "without basic.deliver"},
		"channel consuming nothing":  {bytes.Replace(deliver, []byte{1, 0, 1}, []byte{1, 0, 9}, 1), "channel 9"},
		"channel.close":              {closeCh, "unknown delivery tag 9"},
		"a body without room for id": {append(shortDeliver, short...), "no message id"},
	} {
		s := newConsumeState([]int{0}, []int{1}, true, 1)
		r := amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true})
		r.Feed(c.in)
		err := handleAll(r, s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}

func TestParseAMQPURL(t *testing.T) {
	for in, want := range map[string]pipeAddr{
		"amqp://guest:guest@127.0.0.1:5673/": {"127.0.0.1:5673", "guest", "guest", "/"},
		"amqp://u:p%40ss@127.0.0.1/%2Fv":     {"127.0.0.1:5672", "u", "p@ss", "/v"},
		"amqp://127.0.0.1:1/vh":              {"127.0.0.1:1", "guest", "guest", "vh"},
	} {
		got, err := parseAMQPURL(in)
		if err != nil || got != want {
			t.Errorf("parseAMQPURL(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	if _, err := parseAMQPURL("amqps://h/"); err == nil {
		t.Error("amqps accepted")
	}
}

func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:5672": true, "127.3.2.1:1": true, "[::1]:5672": true, "10.0.0.1:5672": false, "[2001:db8::1]:5672": false} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkLoopback(a); (err == nil) != ok {
			t.Errorf("checkLoopback(%s) = %v", addr, err)
		}
	}
}

// TestAppendOneGivesTheFirstBodyFrame: the body appendOne hands back is
// the part of the copy's body in its first body frame, and what is
// written there is what a broker reads at the start of the body.
func TestAppendOneGivesTheFirstBodyFrame(t *testing.T) {
	for _, c := range []struct {
		size     int
		frameMax uint32
		want     int
	}{{16, 131072, 16}, {10_000, 4096, 4096 - 8}} {
		tmpl, err := newPublishTemplate(1, "", "q", amqp.Properties{}, body(c.size), c.frameMax)
		if err != nil {
			t.Fatal(err)
		}
		b, first := tmpl.appendOne([]byte("keep"))
		if len(first) != c.want {
			t.Fatalf("size %d: %d body bytes in the first frame, want %d", c.size, len(first), c.want)
		}
		putScaleHead(first, 42, 7)
		cmds := decodeCommands(t, b[4:], c.frameMax)
		if len(cmds) != 1 || len(cmds[0].Body) != c.size || !bytes.Equal(cmds[0].Body[:scaleBodyMin], first[:scaleBodyMin]) {
			t.Fatalf("size %d: %+v", c.size, cmds)
		}
	}
}

// TestConsumeStateHandsWholeMessagesToTake: a taking consumer hands each
// whole message's queue, the start of its body (msgHeadBytes, or all of a
// shorter body) and the read time to take, body frames split or not, acks
// as any consumer does, and fails on take's error.
func TestConsumeStateHandsWholeMessagesToTake(t *testing.T) {
	ds := []delivery{{1, 1, 11, 20}, {2, 1, 12, 9000}, {1, 2, 13, msgIDBytes}, {2, 2, 14, 16}}
	type took struct {
		queue int
		head  string
		at    int64
	}
	var got []took
	var fail error
	s := newTakingConsumeState([]int{5, 7}, 1, func(queue int, head []byte, at int64) error {
		got = append(got, took{queue, string(head), at})
		return fail
	})
	r := amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true, FrameMax: 4096})
	r.Feed(serverStream(t, ds, 4096))
	s.readAtNs = 99
	if err := handleAll(r, s); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ds) || s.delivered != len(ds) {
		t.Fatalf("took %d, delivered %d of %d", len(got), s.delivered, len(ds))
	}
	for k, d := range ds {
		b := body(d.size)
		binary.BigEndian.PutUint64(b, d.id)
		want := took{queue: map[uint16]int{1: 5, 2: 7}[d.channel], head: string(b[:min(d.size, msgHeadBytes)]), at: 99}
		if got[k] != want {
			t.Errorf("message %d: took %+v, want %+v", k, got[k], want)
		}
	}
	if acks := acksIn(t, s.appendAcks(nil, false)); !slices.Equal(acks[1], []uint64{2}) || !slices.Equal(acks[2], []uint64{2}) {
		t.Errorf("acks %v", acks)
	}
	fail = errors.New("boom")
	r.Feed(serverStream(t, []delivery{{1, 3, 15, 16}}, 4096))
	if err := handleAll(r, s); !errors.Is(err, fail) {
		t.Errorf("take's error: handle returned %v", err)
	}
}
