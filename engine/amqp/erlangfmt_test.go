package amqp

import (
	"bytes"
	"strings"
	"testing"
)

// TestFrameErrorLayout checks the frame error texts whose terms ~p breaks
// over lines, against what RabbitMQ 3.10.8 sent for the same frames
// (observed with a raw TCP client; "\n" and the indentation are in the
// reply text as sent).
func TestFrameErrorLayout(t *testing.T) {
	sp := func(n int) string { return "\n" + strings.Repeat(" ", n) }
	n150 := func(n int) string { return strings.TrimSuffix(strings.Repeat("150,", n), ",") }
	cases := []struct {
		name string
		err  *Error
		want string
	}{
		// An unknown frame type 4 on channel 1 with sixteen bytes 150:
		// 14 fit on the first line.
		{"binary broken", frameError(4, 1, bytes.Repeat([]byte{150}, 16), "unknown_frame"),
			"FRAME_ERROR - type 4, all octets = <<" + n150(14) + "," + sp(23) + "150,150>>: unknown_frame"},
		// Thirteen 150s and 10, 1: the binary ends at column 81, flat.
		{"binary at the limit", frameError(4, 1, append(bytes.Repeat([]byte{150}, 13), 10, 1), "unknown_frame"),
			"FRAME_ERROR - type 4, all octets = <<" + n150(13) + ",10,1>>: unknown_frame"},
		// Thirteen 150s and 1, 1, 1: one column more, broken before the
		// last byte.
		{"binary one past the limit", frameError(4, 1, append(bytes.Repeat([]byte{150}, 13), 1, 1, 1), "unknown_frame"),
			"FRAME_ERROR - type 4, all octets = <<" + n150(13) + ",1,1," + sp(23) + "1>>: unknown_frame"},
		// "first 16 octets" starts the binary five columns later: 12 fit.
		{"first 16 broken", frameError(4, 1, bytes.Repeat([]byte{150}, 20), "unknown_frame"),
			"FRAME_ERROR - type 4, first 16 octets = <<" + n150(12) + "," + sp(28) + "150,150,150,150>>: unknown_frame"},
		// A body frame on channel 0 (505) is laid out the same way.
		{"unexpected frame broken", UnexpectedFrameError(Frame{Type: FrameBody, Payload: bytes.Repeat([]byte{150}, 16)}),
			"UNEXPECTED_FRAME - type 3, all octets = <<" + n150(14) + "," + sp(23) + "150,150>>"},
		// Bad frame ends: the tuple is broken when it would end past
		// column 78, the value indented one past the brace.
		{"tuple fits", frameError(1, 1, make([]byte, 11), "{invalid_frame_end_marker,205}"),
			"FRAME_ERROR - type 1, all octets = <<0,0,0,0,0,0,0,0,0,0,0>>: {invalid_frame_end_marker,205}"},
		{"tuple one column too long", frameError(1, 1, append(make([]byte, 10), 10), "{invalid_frame_end_marker,205}"),
			"FRAME_ERROR - type 1, all octets = <<0,0,0,0,0,0,0,0,0,0,10>>: {invalid_frame_end_marker," + sp(50) + "205}"},
		{"tuple after a broken binary", frameError(1, 1, bytes.Repeat([]byte{150}, 16), "{invalid_frame_end_marker,205}"),
			"FRAME_ERROR - type 1, all octets = <<" + n150(14) + "," + sp(23) + "150,150>>: {invalid_frame_end_marker,205}"},
		// Printable bytes are quoted with Erlang's escapes; DEL and NUL
		// are not printable.
		{"escapes", frameError(4, 1, []byte("a\tb\x1bc\rd\ve\bf\fg"), "unknown_frame"),
			`FRAME_ERROR - type 4, all octets = <<"a\tb\ec\rd\ve\bf\fg">>: unknown_frame`},
		{"quote and backslash", frameError(4, 1, []byte(`a"b\c`), "unknown_frame"),
			`FRAME_ERROR - type 4, all octets = <<"a\"b\\c">>: unknown_frame`},
		{"newline", frameError(4, 1, []byte("ab\ncd"), "unknown_frame"),
			`FRAME_ERROR - type 4, all octets = <<"ab\ncd">>: unknown_frame`},
		{"DEL", frameError(4, 1, []byte{'a', 127, 'b'}, "unknown_frame"),
			"FRAME_ERROR - type 4, all octets = <<97,127,98>>: unknown_frame"},
		{"NUL", frameError(4, 1, []byte{'a', 0, 'b'}, "unknown_frame"),
			"FRAME_ERROR - type 4, all octets = <<97,0,98>>: unknown_frame"},
	}
	for _, c := range cases {
		if c.err.Text != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, c.err.Text, c.want)
		}
	}
}
