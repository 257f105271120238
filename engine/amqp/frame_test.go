package amqp

import (
	"bytes"
	"testing"
)

func TestAppendFrameGolden(t *testing.T) {
	if got, want := AppendHeartbeat(nil), []byte{8, 0, 0, 0, 0, 0, 0, 0xce}; !bytes.Equal(got, want) {
		t.Fatalf("heartbeat % x", got)
	}
	got := AppendFrame([]byte{0xaa}, FrameBody, 0x0102, []byte("hi"))
	if want := []byte{0xaa, 3, 1, 2, 0, 0, 0, 2, 'h', 'i', 0xce}; !bytes.Equal(got, want) {
		t.Fatalf("body frame % x", got)
	}
}

// TestAppendContentSplitsBody: body frames carry at most frameMax-8 bytes,
// and the frames read back as one message.
func TestAppendContentSplitsBody(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 2000) // 20000 bytes
	out, err := AppendContent(nil, 3, ClassBasic, Properties{ContentType: "text/plain"}, body, 4096)
	if err != nil {
		t.Fatal(err)
	}
	frames, err := readAll(out, ReaderConfig{NoProtocolHeader: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 1+5 { // 20000 = 4*4088 + 3648
		t.Fatalf("%d frames", len(frames))
	}
	var got []byte
	for i, f := range frames[1:] {
		if f.Type != FrameBody || f.Channel != 3 || len(f.Payload) > 4088 {
			t.Fatalf("frame %d: type %d channel %d, %d bytes", i, f.Type, f.Channel, len(f.Payload))
		}
		got = append(got, f.Payload...)
	}
	if !bytes.Equal(got, body) {
		t.Fatal("body changed")
	}
	class, size, props, err := DecodeContentHeader(frames[0].Payload)
	if err != nil || class != ClassBasic || size != 20000 || props.ContentType != "text/plain" {
		t.Fatalf("header %d %d %+v %v", class, size, props, err)
	}

	// Through the assembler, as a server reading its own output would.
	a := NewAssembler(AssemblerConfig{})
	pub, _ := AppendMethodFrame(nil, 3, &BasicDeliver{ConsumerTag: "c", DeliveryTag: 1})
	all, err := readAll(append(pub, out...), ReaderConfig{NoProtocolHeader: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := run(a, all)
	if err != nil || len(cmds) != 1 || !bytes.Equal(cmds[0].Body, body) {
		t.Fatalf("%d commands, %v", len(cmds), err)
	}
}

func TestAppendContentEmptyBodyHasNoBodyFrame(t *testing.T) {
	out, err := AppendContent(nil, 1, ClassBasic, Properties{}, nil, 4096)
	if err != nil {
		t.Fatal(err)
	}
	frames, _ := readAll(out, ReaderConfig{NoProtocolHeader: true}, nil)
	if len(frames) != 1 || frames[0].Type != FrameHeader {
		t.Fatalf("frames %+v", frames)
	}
}

func TestAppendContentSmallFrameMaxPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	AppendContent(nil, 1, ClassBasic, Properties{}, []byte("x"), 8)
}
