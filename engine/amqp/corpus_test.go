package amqp

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var writeCorpus = flag.Bool("write-corpus", false, "rewrite the fuzz seed corpora in testdata/fuzz")

// TestWriteFuzzCorpus writes the committed seed corpora: real frames from a
// client's handshake and a server's replies, and the edge cases the
// reader's tests pin. Run `go test -run WriteFuzzCorpus -write-corpus` after
// changing the seeds; the files are in the format `go test -fuzz` reads.
func TestWriteFuzzCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -write-corpus to rewrite testdata/fuzz")
	}
	client := clientHandshake(t)
	server := serverHandshake(t)
	oversized := []byte{3, 0, 1, 0x80, 0, 0, 0}
	badEnd := AppendFrame(nil, FrameMethod, 0, []byte{0, 10, 0, 51})
	badEnd[len(badEnd)-1] = 0

	write(t, "FuzzFrameReader", "client-handshake", client, uint64(0), uint8(0))
	write(t, "FuzzFrameReader", "client-handshake-cut", client, uint64(0x5eed), uint8(0))
	write(t, "FuzzFrameReader", "server-replies", server, uint64(3), uint8(1))
	write(t, "FuzzFrameReader", "oversized-frame", oversized, uint64(0), uint8(1))
	write(t, "FuzzFrameReader", "bad-frame-end", badEnd, uint64(0), uint8(1))
	write(t, "FuzzFrameReader", "amqp-0-9-header", []byte("AMQP\x01\x01\x00\x09"), uint64(0), uint8(0))

	for _, stream := range [][]byte{client, server[:]} {
		frames, err := readAll(stream, ReaderConfig{NoProtocolHeader: stream[0] != 'A', FrameMax: 131072}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frames {
			switch f.Type {
			case FrameMethod:
				m, err := DecodeMethod(f.Payload)
				if err != nil {
					t.Fatal(err)
				}
				write(t, "FuzzDecodeMethod", m.Name(), f.Payload)
				if qd, ok := m.(*QueueDeclare); ok {
					tbl, _ := AppendTable(nil, qd.Arguments)
					write(t, "FuzzTable", "queue-arguments", tbl)
				}
				if so, ok := m.(*ConnectionStartOk); ok {
					tbl, _ := AppendTable(nil, so.ClientProperties)
					write(t, "FuzzTable", "client-properties", tbl)
				}
			case FrameHeader:
				write(t, "FuzzContentHeader", fmt.Sprintf("header-ch%d", f.Channel), f.Payload)
			}
		}
	}
	every, err := AppendTable(nil, Table{
		"t": true, "b": int8(-1), "B": uint8(1), "s": int16(-2), "u": uint16(2), "I": int32(-3), "i": uint32(3),
		"l": int64(-4), "f": float32(0.5), "d": 0.25, "D": Decimal{Scale: 1, Value: 5}, "S": "str",
		"x": []byte{0, 1}, "T": Timestamp(1700000000), "V": nil,
		"x-death": []any{Table{"count": int64(1), "reason": "expired", "routing-keys": []any{"q"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	write(t, "FuzzTable", "every-type", every)
}

// serverHandshake is a server's side of the conversation, from
// connection.start to a delivery with content.
func serverHandshake(t *testing.T) []byte {
	var b []byte
	add := func(ch uint16, m Method) {
		var err error
		if b, err = AppendMethodFrame(b, ch, m); err != nil {
			t.Fatal(err)
		}
	}
	add(0, &ConnectionStart{VersionMajor: 0, VersionMinor: 9, Mechanisms: "PLAIN AMQPLAIN", Locales: "en_US",
		ServerProperties: Table{"product": "Warren", "capabilities": Table{"publisher_confirms": true}}})
	add(0, &ConnectionTune{ChannelMax: 2047, FrameMax: 131072, Heartbeat: 60})
	add(0, &ConnectionOpenOk{})
	add(1, &ChannelOpenOk{})
	add(1, &QueueDeclareOk{Queue: "q1", MessageCount: 1})
	add(1, &BasicConsumeOk{ConsumerTag: "ctag-1"})
	add(1, &BasicDeliver{ConsumerTag: "ctag-1", DeliveryTag: 1, RoutingKey: "q1"})
	var err error
	b, err = AppendContent(b, 1, ClassBasic, Properties{ContentType: "text/plain", MessageID: "m1", Timestamp: 1700000000,
		Headers: Table{"x-first-death-queue": "q0"}}, []byte("hello world"), 4096)
	if err != nil {
		t.Fatal(err)
	}
	add(1, &ChannelClose{ReplyCode: 404, ReplyText: "NOT_FOUND - no queue 'x' in vhost '/'", FailingClassID: 50, FailingMethodID: 10})
	add(0, &ConnectionCloseOk{})
	return b
}

// write stores one corpus entry in the format of Go's fuzzing engine.
func write(t *testing.T, fuzzer, name string, values ...any) {
	var sb strings.Builder
	sb.WriteString("go test fuzz v1\n")
	for _, v := range values {
		switch x := v.(type) {
		case []byte:
			fmt.Fprintf(&sb, "[]byte(%q)\n", x)
		case uint64:
			fmt.Fprintf(&sb, "uint64(%d)\n", x)
		case uint8:
			fmt.Fprintf(&sb, "byte(%q)\n", x)
		default:
			t.Fatalf("corpus value of type %T", v)
		}
	}
	dir := filepath.Join("testdata", "fuzz", fuzzer)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
