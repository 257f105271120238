package amqp

import (
	"reflect"
	"testing"
)

// frames builds test frames; each argument is a Method, a header (hdr), a
// body ([]byte) or a ready Frame, on channel ch.
type hdr struct {
	class uint16
	size  uint64
	props Properties
}

func framesOn(t *testing.T, ch uint16, parts ...any) []Frame {
	t.Helper()
	var out []Frame
	for _, p := range parts {
		var b []byte
		var err error
		switch x := p.(type) {
		case Method:
			b, err = AppendMethodFrame(nil, ch, x)
		case hdr:
			b, err = AppendContentHeaderFrame(nil, ch, x.class, x.size, x.props)
		case []byte:
			b = AppendFrame(nil, FrameBody, ch, x)
		case Frame:
			out = append(out, x)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Frame{Type: b[0], Channel: ch, Payload: b[7 : len(b)-1]})
	}
	return out
}

// run adds frames and returns the commands, stopping at the first error.
func run(a *Assembler, frames []Frame) ([]Command, error) {
	var cmds []Command
	for _, f := range frames {
		c, ok, err := a.Add(f)
		if err != nil {
			return cmds, err
		}
		if ok {
			cmds = append(cmds, c)
		}
	}
	return cmds, nil
}

func TestAssemblerHandshake(t *testing.T) {
	frames, err := readAll(clientHandshake(t), bigFrames, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := run(NewAssembler(AssemblerConfig{}), frames)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Method.Name())
	}
	want := []string{"connection.start-ok", "connection.tune-ok", "connection.open", "channel.open",
		"queue.declare", "basic.publish", "basic.consume", "basic.ack", "channel.close", "connection.close"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("commands %v\nwant %v", names, want)
	}
	pub := cmds[5]
	if pub.Channel != 1 || string(pub.Body) != "hello world" || pub.Props == nil ||
		pub.Props.Expiration != "5000" || pub.Props.DeliveryMode != 2 || pub.Props.Headers["h"] != "v" {
		t.Fatalf("publish %+v, props %+v", pub, pub.Props)
	}
	if cmds[4].Props != nil || cmds[4].Body != nil {
		t.Fatal("a method without content has props or body")
	}
}

func TestAssemblerEmptyBody(t *testing.T) {
	cmds, err := run(NewAssembler(AssemblerConfig{}), framesOn(t, 3,
		&BasicPublish{RoutingKey: "q"}, hdr{ClassBasic, 0, Properties{}}, &BasicAck{DeliveryTag: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || len(cmds[0].Body) != 0 || cmds[0].Props == nil {
		t.Fatalf("commands %+v", cmds)
	}
}

// TestAssemblerInterleavedChannels: content is assembled per channel, so
// frames of two channels may interleave.
func TestAssemblerInterleavedChannels(t *testing.T) {
	one := framesOn(t, 1, &BasicPublish{RoutingKey: "a"}, hdr{ClassBasic, 2, Properties{}}, []byte("a"), []byte("A"))
	two := framesOn(t, 2, &BasicPublish{RoutingKey: "b"}, hdr{ClassBasic, 1, Properties{}}, []byte("b"))
	var mixed []Frame
	for i := range 4 {
		mixed = append(mixed, one[i])
		if i < 3 {
			mixed = append(mixed, two[i])
		}
	}
	cmds, err := run(NewAssembler(AssemblerConfig{}), mixed)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || string(cmds[0].Body) != "b" || cmds[0].Channel != 2 || string(cmds[1].Body) != "aA" {
		t.Fatalf("commands %+v", cmds)
	}
}

// TestAssemblerErrors checks the texts RabbitMQ 3.10.8 was observed to send
// (rabbit-notes/observations.md) or its assembler's source gives.
func TestAssemblerErrors(t *testing.T) {
	pub := &BasicPublish{RoutingKey: "q"}
	cases := []struct {
		name              string
		frames            func(t *testing.T) []Frame
		code              uint16
		text              string
		classID, methodID uint16
		channel           uint16
	}{
		{
			name: "method instead of content header",
			frames: func(t *testing.T) []Frame {
				return framesOn(t, 1, pub, &QueueDeclare{Queue: "q"})
			},
			code: UnexpectedFrame, classID: 60, methodID: 40, channel: 1,
			text: "UNEXPECTED_FRAME - expected content header for class 60, got non content header frame instead",
		},
		{
			name: "content header of another class",
			frames: func(t *testing.T) []Frame {
				return framesOn(t, 1, pub, hdr{50, 1, Properties{}})
			},
			code: UnexpectedFrame, classID: 60, methodID: 40, channel: 1,
			text: "UNEXPECTED_FRAME - expected content header for class 60, got one for class 50 instead",
		},
		{
			name: "method in the middle of the body",
			frames: func(t *testing.T) []Frame {
				return framesOn(t, 1, pub, hdr{ClassBasic, 10, Properties{}}, []byte("12345"), &BasicAck{})
			},
			code: UnexpectedFrame, classID: 60, methodID: 40, channel: 1,
			text: "UNEXPECTED_FRAME - expected content body, got non content body frame instead",
		},
		{
			name: "body larger than announced",
			frames: func(t *testing.T) []Frame {
				return framesOn(t, 1, pub, hdr{ClassBasic, 3, Properties{}}, []byte("1234"))
			},
			code: FrameError, classID: 60, methodID: 40, channel: 1,
			text: "FRAME_ERROR - content body frame exceeds remaining content size",
		},
		{
			name: "body with no method",
			frames: func(t *testing.T) []Frame {
				return framesOn(t, 4, []byte("stray"))
			},
			code: UnexpectedFrame, channel: 4,
			text: "UNEXPECTED_FRAME - expected method frame, got non method frame instead",
		},
		{
			name: "content header on channel 0",
			frames: func(t *testing.T) []Frame {
				return framesOn(t, 0, hdr{ClassBasic, 0, Properties{}})
			},
			code: UnexpectedFrame,
			text: "UNEXPECTED_FRAME - type 2, all octets = <<0,60,0,0,0,0,0,0,0,0,0,0,0,0>>",
		},
		{
			name: "heartbeat on a channel",
			frames: func(t *testing.T) []Frame {
				return []Frame{{Type: FrameHeartbeat, Channel: 5}}
			},
			code: UnexpectedFrame, channel: 5,
			text: "UNEXPECTED_FRAME - type 8, all octets = <<>>",
		},
		{
			name: "heartbeat with a payload",
			frames: func(t *testing.T) []Frame {
				return []Frame{{Type: FrameHeartbeat, Payload: []byte{1}}}
			},
			code: FrameError,
			text: "FRAME_ERROR - type 8, all octets = <<1>>: unknown_frame",
		},
		{
			name: "unknown frame type",
			frames: func(t *testing.T) []Frame {
				return []Frame{{Type: 4, Channel: 1, Payload: []byte("hi")}}
			},
			code: FrameError, channel: 1,
			text: `FRAME_ERROR - type 4, all octets = <<"hi">>: unknown_frame`,
		},
		{
			name: "content header too short",
			frames: func(t *testing.T) []Frame {
				return append(framesOn(t, 1, pub), Frame{Type: FrameHeader, Channel: 1, Payload: []byte{0, 60}})
			},
			code: FrameError, channel: 1,
			text: "FRAME_ERROR - type 2, all octets = <<0,60>>: unknown_frame",
		},
		{
			name: "malformed properties",
			frames: func(t *testing.T) []Frame {
				return append(framesOn(t, 1, pub), Frame{Type: FrameHeader, Channel: 1,
					Payload: []byte{0, 60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x80, 0, 9, 'x'}})
			},
			code: FrameError, classID: 60, methodID: 40, channel: 1,
			text: "FRAME_ERROR - cannot decode <<128,0,9,120>>",
		},
		{
			name: "body over RabbitMQ's hard limit",
			frames: func(t *testing.T) []Frame {
				return framesOn(t, 1, pub, hdr{ClassBasic, HardMaxMessageSize + 1, Properties{}})
			},
			code: FrameError, classID: 60, methodID: 40, channel: 1,
			text: "FRAME_ERROR - content body size 536870913 exceeds maximum allowed size 536870912",
		},
		{
			name: "undecodable method on a channel",
			frames: func(t *testing.T) []Frame {
				return []Frame{{Type: FrameMethod, Channel: 9, Payload: []byte{0, 99, 0, 1}}}
			},
			code: CommandInvalid, classID: 99, methodID: 1, channel: 9,
			text: "COMMAND_INVALID - unknown method {99,1}",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := run(NewAssembler(AssemblerConfig{}), c.frames(t))
			e := asError(t, err)
			if e.Code != c.code || e.Text != c.text || e.ClassID != c.classID || e.MethodID != c.methodID || e.Channel != c.channel {
				t.Fatalf("got %d %q %d/%d ch %d\nwant %d %q %d/%d ch %d", e.Code, e.Text, e.ClassID, e.MethodID, e.Channel,
					c.code, c.text, c.classID, c.methodID, c.channel)
			}
			if !e.ConnectionError() {
				t.Fatal("want a connection error")
			}
		})
	}
}

// TestAssemblerMessageTooLarge: the configured max message size is a
// channel error (406), checked at the content header before the body is
// buffered; the body frames that follow are dropped and the connection
// carries on.
func TestAssemblerMessageTooLarge(t *testing.T) {
	a := NewAssembler(AssemblerConfig{MaxMessageSize: 10})
	frames := framesOn(t, 1, &BasicPublish{RoutingKey: "q"}, hdr{ClassBasic, 11, Properties{}})
	_, err := run(a, frames)
	e := asError(t, err)
	if e.Code != PreconditionFailed || e.ConnectionError() || e.Channel != 1 || e.ClassID != 60 || e.MethodID != 40 ||
		e.Text != "PRECONDITION_FAILED - message size 11 is larger than configured max size 10" {
		t.Fatalf("got %+v", e)
	}
	rest := framesOn(t, 1, []byte("123456"), []byte("78901"),
		&BasicPublish{RoutingKey: "q"}, hdr{ClassBasic, 2, Properties{}}, []byte("ok"))
	cmds, err := run(a, rest)
	if err != nil || len(cmds) != 1 || string(cmds[0].Body) != "ok" {
		t.Fatalf("after the refused message: %+v, %v", cmds, err)
	}
	// A client that gives up on the body and sends a method is not
	// punished twice.
	run(a, frames)
	cmds, err = run(a, framesOn(t, 1, &ChannelCloseOk{}))
	if err != nil || len(cmds) != 1 {
		t.Fatalf("method after a refused header: %+v, %v", cmds, err)
	}
}

func TestAssemblerReset(t *testing.T) {
	a := NewAssembler(AssemblerConfig{})
	run(a, framesOn(t, 1, &BasicPublish{RoutingKey: "q"}, hdr{ClassBasic, 5, Properties{}}, []byte("12")))
	a.Reset(1)
	cmds, err := run(a, framesOn(t, 1, &ChannelOpen{}))
	if err != nil || len(cmds) != 1 {
		t.Fatalf("after Reset: %+v, %v", cmds, err)
	}
	if a.pending.len() != 0 {
		t.Fatalf("pending %+v", a.pending)
	}
}

// TestPendingSet walks the slot-and-map set of half-assembled channels
// through channels that start and finish in every order.
func TestPendingSet(t *testing.T) {
	var s pendingSet
	p := map[uint16]*partial{1: {}, 2: {}, 3: {}}
	check := func(step string, want map[uint16]*partial) {
		t.Helper()
		for ch := uint16(1); ch <= 3; ch++ {
			if got := s.get(ch); got != want[ch] {
				t.Fatalf("%s: get(%d) = %p, want %p", step, ch, got, want[ch])
			}
		}
		if s.len() != len(want) {
			t.Fatalf("%s: len %d, want %d", step, s.len(), len(want))
		}
	}
	check("empty", nil)
	s.put(1, p[1])
	check("put 1", map[uint16]*partial{1: p[1]})
	s.put(2, p[2])
	s.put(3, p[3])
	check("put 2, 3", p)
	s.del(1)
	check("del 1 (the slot)", map[uint16]*partial{2: p[2], 3: p[3]})
	s.put(1, p[1])
	check("put 1 again", p)
	s.del(3)
	s.del(2)
	check("del 3, 2 (the map)", map[uint16]*partial{1: p[1]})
	s.del(1)
	s.del(1)
	check("del 1 twice", nil)
}

func TestAssemblerHeartbeatOnChannelZero(t *testing.T) {
	c, ok, err := NewAssembler(AssemblerConfig{}).Add(Frame{Type: FrameHeartbeat})
	if ok || err != nil || c.Method != nil {
		t.Fatalf("%+v %t %v", c, ok, err)
	}
}

// TestAssemblerBodyIsOwned: the body must survive the reader reusing the
// frame payloads it was assembled from.
func TestAssemblerBodyIsOwned(t *testing.T) {
	frames := framesOn(t, 1, &BasicPublish{}, hdr{ClassBasic, 3, Properties{}}, []byte("abc"))
	cmds, _ := run(NewAssembler(AssemblerConfig{}), frames)
	copy(frames[2].Payload, "xyz")
	if string(cmds[0].Body) != "abc" {
		t.Fatalf("body %q", cmds[0].Body)
	}
}

// TestAssemblerNamesAreOwned: a publish's exchange and routing key stay
// what they were after the frames they came in are overwritten, including
// when the next publish repeats them and gets the strings of the one
// before (recentStrings), and a different name is not mistaken for one it
// has seen.
func TestAssemblerNamesAreOwned(t *testing.T) {
	a := NewAssembler(AssemblerConfig{})
	var got []*BasicPublish
	for _, rk := range []string{"orders.created", "orders.created", "orders.paid", "orders.created"} {
		frames := framesOn(t, 1, &BasicPublish{Exchange: "shop", RoutingKey: rk}, hdr{ClassBasic, 0, Properties{}})
		cmds, err := run(a, frames)
		if err != nil || len(cmds) != 1 {
			t.Fatalf("%s: %v, %d commands", rk, err, len(cmds))
		}
		for _, f := range frames {
			clear(f.Payload) // the frame reader's buffer, reused
		}
		got = append(got, cmds[0].Method.(*BasicPublish))
	}
	var names []string
	for _, p := range got {
		names = append(names, p.Exchange+" "+p.RoutingKey)
	}
	want := []string{"shop orders.created", "shop orders.created", "shop orders.paid", "shop orders.created"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("names %q, want %q", names, want)
	}
}

// TestAssemblerPublishCostsItsBody: once the connection has published, a
// persistent publish of a routing key it used before allocates its body
// and nothing else (the method and properties come from slabs, the names
// from recentStrings), and every command keeps a method of its own.
func TestAssemblerPublishCostsItsBody(t *testing.T) {
	a := NewAssembler(AssemblerConfig{})
	frames := framesOn(t, 1, &BasicPublish{RoutingKey: "orders.created"}, hdr{ClassBasic, 3, Properties{Flags: FlagDeliveryMode, DeliveryMode: 2}}, []byte("abc"))
	held := make([]*BasicPublish, 0, 8*methodSlabLen)
	publish := func() {
		for i, f := range frames {
			c, ok, err := a.Add(f)
			if err != nil || ok != (i == len(frames)-1) {
				t.Fatalf("frame %d: %t, %v", i, ok, err)
			}
			if ok {
				held = append(held, c.Method.(*BasicPublish))
			}
		}
	}
	publish()
	// Over whole slabs: the method and properties slabs are refilled
	// now and then, a share of an allocation a publish that AllocsPerRun
	// rounds down, so the body is what is left.
	if allocs := testing.AllocsPerRun(4*methodSlabLen, publish); allocs != 1 {
		t.Fatalf("%v allocations a publish, want 1 (the body) and a share of the slabs", allocs)
	}
	for i, m := range held {
		for _, n := range held[:i] {
			if m == n {
				t.Fatalf("publish %d got the method of an earlier one", i)
			}
		}
	}
	held[0].RoutingKey = "changed"
	if held[1].RoutingKey != "orders.created" {
		t.Fatalf("a method changed with another: %q", held[1].RoutingKey)
	}
}
