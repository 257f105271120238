package amqp

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// TestGoldenMethodFrames pins a few frames, worked out by hand from the
// spec: frame header (type, channel, size), class and method ids, the
// arguments in order (bits packed low bit first), frame-end 0xCE.
func TestGoldenMethodFrames(t *testing.T) {
	cases := []struct {
		name    string
		channel uint16
		m       Method
		wire    []byte
	}{
		{
			name: "connection.tune channel-max 2047, frame-max 131072, heartbeat 60",
			m:    &ConnectionTune{ChannelMax: 2047, FrameMax: 131072, Heartbeat: 60},
			wire: frameBytes(
				[]byte{1, 0, 0, 0, 0, 0, 12}, // method frame, channel 0, 12 bytes
				[]byte{0, 10, 0, 30},         // connection.tune
				[]byte{0x07, 0xff},           // channel-max short
				[]byte{0, 2, 0, 0},           // frame-max long
				[]byte{0, 60},                // heartbeat short
				[]byte{0xce}),
		},
		{
			name:    "queue.declare-ok q1, 5 messages, 2 consumers",
			channel: 1,
			m:       &QueueDeclareOk{Queue: "q1", MessageCount: 5, ConsumerCount: 2},
			wire: frameBytes(
				[]byte{1, 0, 1, 0, 0, 0, 15},
				[]byte{0, 50, 0, 11},
				[]byte{2, 'q', '1'},
				[]byte{0, 0, 0, 5},
				[]byte{0, 0, 0, 2},
				[]byte{0xce}),
		},
		{
			name:    "basic.deliver ctag, tag 1, redelivered, default exchange, rk",
			channel: 1,
			m:       &BasicDeliver{ConsumerTag: "ctag", DeliveryTag: 1, Redelivered: true, Exchange: "", RoutingKey: "rk"},
			wire: frameBytes(
				[]byte{1, 0, 1, 0, 0, 0, 22},
				[]byte{0, 60, 0, 60},
				[]byte{4, 'c', 't', 'a', 'g'},
				[]byte{0, 0, 0, 0, 0, 0, 0, 1},
				[]byte{1}, // redelivered
				[]byte{0}, // exchange ""
				[]byte{2, 'r', 'k'},
				[]byte{0xce}),
		},
		{
			name:    "queue.declare q durable auto-delete nowait, no arguments",
			channel: 7,
			m:       &QueueDeclare{Queue: "q", Durable: true, AutoDelete: true, NoWait: true},
			wire: frameBytes(
				[]byte{1, 0, 7, 0, 0, 0, 13},
				[]byte{0, 50, 0, 10},
				[]byte{0, 0}, // ticket
				[]byte{1, 'q'},
				[]byte{0b11010}, // passive 0, durable 1, exclusive 0, auto-delete 1, nowait 1
				[]byte{0, 0, 0, 0},
				[]byte{0xce}),
		},
		{
			name:    "channel.close 406 with the failing method",
			channel: 2,
			m:       &ChannelClose{ReplyCode: 406, ReplyText: "PF", FailingClassID: 60, FailingMethodID: 40},
			wire: frameBytes(
				[]byte{1, 0, 2, 0, 0, 0, 13},
				[]byte{0, 20, 0, 40},
				[]byte{0x01, 0x96},
				[]byte{2, 'P', 'F'},
				[]byte{0, 60, 0, 40},
				[]byte{0xce}),
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := AppendMethodFrame([]byte("prefix"), c.channel, c.m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, append([]byte("prefix"), c.wire...)) {
				t.Fatalf("encoded\n% x\nwant\n% x", got[6:], c.wire)
			}
			frames, err := readAll(c.wire, ReaderConfig{NoProtocolHeader: true}, nil)
			if err != nil || len(frames) != 1 {
				t.Fatalf("read %v, %v", frames, err)
			}
			m, err := DecodeMethod(frames[0].Payload)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m, c.m) {
				t.Fatalf("decoded %#v, want %#v", m, c.m)
			}
		})
	}
}

func TestDecodeMethodErrors(t *testing.T) {
	cases := []struct {
		name              string
		payload           []byte
		code              uint16
		text              string
		classID, methodID uint16
	}{
		{
			name: "payload shorter than ids", payload: []byte{0, 50},
			code: FrameError, text: "FRAME_ERROR - type 1, all octets = <<0,50>>: unknown_frame",
		},
		{
			// RabbitMQ 3.10.8 crashes its reader and drops the connection
			// ({unknown_method_id,{99,10}}); Warren says why first.
			name: "unknown class", payload: []byte{0, 99, 0, 10},
			code: CommandInvalid, text: "COMMAND_INVALID - unknown method {99,10}", classID: 99, methodID: 10,
		},
		{
			name: "unknown method", payload: []byte{0, 50, 0, 12},
			code: CommandInvalid, text: "COMMAND_INVALID - unknown method {50,12}", classID: 50, methodID: 12,
		},
		{
			name: "arguments cut short", payload: []byte{0, 50, 0, 10, 0, 0, 5, 'q'},
			code: FrameError, text: "FRAME_ERROR - cannot decode <<0,0,5,113>>", classID: 50, methodID: 10,
		},
		{
			name: "trailing bytes", payload: []byte{0, 90, 0, 10, 1},
			code: FrameError, text: "FRAME_ERROR - cannot decode <<1>>", classID: 90, methodID: 10,
		},
		{
			name: "bad arguments table", payload: []byte{0, 50, 0, 10, 0, 0, 1, 'q', 0, 0, 0, 0, 3, 1, 'k', '?'},
			code: FrameError, text: "FRAME_ERROR - cannot decode field table: unknown field type '?'", classID: 50, methodID: 10,
		},
		{
			// Observed on RabbitMQ 3.10.8 for a queue name: class 0, method 0.
			name: "shortstr not UTF-8", payload: []byte{0, 50, 0, 10, 0, 0, 2, 0xff, 0xfe, 0, 0, 0, 0, 0},
			code: FrameError, text: "FRAME_ERROR - Malformed UTF-8 in shortstr",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := DecodeMethod(c.payload)
			if m != nil {
				t.Fatalf("decoded %#v", m)
			}
			e := asError(t, err)
			if e.Code != c.code || e.Text != c.text || e.ClassID != c.classID || e.MethodID != c.methodID {
				t.Fatalf("got %d %q %d/%d, want %d %q %d/%d", e.Code, e.Text, e.ClassID, e.MethodID, c.code, c.text, c.classID, c.methodID)
			}
			if !e.ConnectionError() {
				t.Fatal("decode errors must close the connection")
			}
		})
	}
}

// TestContentMethodsSkipUTF8Check follows RabbitMQ, which skips the check
// on methods with content "for speed".
func TestContentMethodsSkipUTF8Check(t *testing.T) {
	payload := []byte{0, 60, 0, 40, 0, 0, 1, 0xff, 1, 0xfe, 0}
	m, err := DecodeMethod(payload)
	if err != nil {
		t.Fatal(err)
	}
	if p := m.(*BasicPublish); p.Exchange != "\xff" || p.RoutingKey != "\xfe" {
		t.Fatalf("decoded %#v", p)
	}
}

func TestCannotDecodeTextFitsShortstr(t *testing.T) {
	payload := append([]byte{0, 10, 0, 11}, bytes.Repeat([]byte{0xff}, 300)...)
	_, err := DecodeMethod(payload)
	e := asError(t, err)
	if len(e.Text) > 255 || !strings.HasSuffix(e.Text, ",...>>") {
		t.Fatalf("text %q (%d bytes)", e.Text, len(e.Text))
	}
}

func TestAppendMethodFrameErrorLeavesBufferUnchanged(t *testing.T) {
	b := []byte("keep")
	got, err := AppendMethodFrame(b, 1, &QueueDeclare{Queue: strings.Repeat("q", 256)})
	if err == nil || !strings.Contains(err.Error(), "queue.declare queue is 256 bytes") {
		t.Fatalf("err = %v", err)
	}
	if string(got) != "keep" {
		t.Fatalf("buffer now %q", got)
	}
}

func TestMethodName(t *testing.T) {
	if got := MethodName(60, 40); got != "basic.publish" {
		t.Fatalf("MethodName(60, 40) = %q", got)
	}
	if got := MethodName(99, 10); got != "" {
		t.Fatalf("MethodName(99, 10) = %q", got)
	}
}

func TestDecodedMethodDoesNotAliasPayload(t *testing.T) {
	frame, _ := AppendMethodFrame(nil, 1, &QueueDeclare{Queue: "q1", Arguments: Table{"x": []byte("bin")}})
	payload := frame[7 : len(frame)-1]
	m, err := DecodeMethod(payload)
	if err != nil {
		t.Fatal(err)
	}
	for i := range payload {
		payload[i] = 0
	}
	qd := m.(*QueueDeclare)
	if qd.Queue != "q1" || string(qd.Arguments["x"].([]byte)) != "bin" {
		t.Fatalf("decoded method changed with its payload: %#v", qd)
	}
}
