package conn

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"warren/engine/amqp"
	"warren/server/broker"
)

// rawFrame is one frame with any type, channel and payload.
func rawFrame(typ uint8, ch uint16, payload []byte) []byte {
	return amqp.AppendFrame(nil, typ, ch, payload)
}

// headerPayload is a content header's payload with any class, weight and
// body size, followed by props (the property flags and properties).
func headerPayload(class, weight uint16, size uint64, props ...byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, class)
	b = binary.BigEndian.AppendUint16(b, weight)
	b = binary.BigEndian.AppendUint64(b, size)
	return append(b, props...)
}

// methodFrame is m's method frame on ch alone, without the content
// frames() adds to a method with content.
func methodFrame(t *testing.T, ch uint16, m amqp.Method) []byte {
	t.Helper()
	b, err := amqp.AppendMethodFrame(nil, ch, m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// methodPayload is the payload of m's method frame.
func methodPayload(t *testing.T, m amqp.Method) []byte {
	f := methodFrame(t, 1, m)
	return f[7 : len(f)-1]
}

// TestFrameChecks sends frames of every type with payloads a server must
// check, on a connection whose channel 1 is open, and compares the answer
// with what RabbitMQ 3.10.8 sent for the same bytes (observed with a raw
// TCP client): a connection.close with its code, text and method ids, or,
// for frames it accepts, nothing (a basic.qos that follows is answered).
func TestFrameChecks(t *testing.T) {
	type closed struct {
		code        uint16
		text        string
		class, meth uint16
		// first is the answer to a method sent before the bad frame.
		first amqp.Method
	}
	refused := func(code uint16, text string, class, meth uint16) closed {
		return closed{code: code, text: text, class: class, meth: meth}
	}
	accepted := closed{}
	tests := []struct {
		name string
		send func(t *testing.T) []byte
		want closed
	}{
		// A heartbeat carries nothing: RabbitMQ 3.10.8's analyze_frame
		// finds no frame in one with a payload.
		{"heartbeat with a payload", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameHeartbeat, 0, []byte("abc"))
		}, refused(501, `FRAME_ERROR - type 8, all octets = <<"abc">>: unknown_frame`, 0, 0)},
		{"heartbeat with one zero byte", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameHeartbeat, 0, []byte{0})
		}, refused(501, "FRAME_ERROR - type 8, all octets = <<0>>: unknown_frame", 0, 0)},
		{"heartbeat with 20 bytes", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameHeartbeat, 0, []byte("01234567890123456789"))
		}, refused(501, `FRAME_ERROR - type 8, first 16 octets = <<"0123456789012345">>: unknown_frame`, 0, 0)},
		{"heartbeat with sixteen bytes laid out over two lines", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameHeartbeat, 0, bytes.Repeat([]byte{150}, 16))
		}, refused(501, "FRAME_ERROR - type 8, all octets = <<"+strings.Repeat("150,", 14)+"\n"+strings.Repeat(" ", 23)+"150,150>>: unknown_frame", 0, 0)},
		{"heartbeat with a payload on channel 1", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameHeartbeat, 1, []byte("x"))
		}, refused(501, `FRAME_ERROR - type 8, all octets = <<"x">>: unknown_frame`, 0, 0)},
		{"heartbeat on a channel never opened", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameHeartbeat, 7, nil)
		}, refused(505, "UNEXPECTED_FRAME - type 8, all octets = <<>>", 0, 0)},
		{"heartbeat in the middle of a body", func(t *testing.T) []byte {
			b := methodFrame(t, 1, &amqp.BasicPublish{RoutingKey: "nowhere"})
			b = append(b, rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 3, 0, 0))...)
			b = append(b, rawFrame(amqp.FrameHeartbeat, 0, nil)...)
			return append(b, rawFrame(amqp.FrameBody, 1, []byte("abc"))...)
		}, accepted},

		// Content frames on channel 0, or with no method before them.
		{"content header on channel 0", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameHeader, 0, headerPayload(60, 0, 0, 0, 0))
		}, refused(505, "UNEXPECTED_FRAME - type 2, all octets = <<0,60,0,0,0,0,0,0,0,0,0,0,0,0>>", 0, 0)},
		{"body on channel 0", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameBody, 0, []byte("abc"))
		}, refused(505, `UNEXPECTED_FRAME - type 3, all octets = <<"abc">>`, 0, 0)},
		{"content header with no method", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 0, 0, 0))
		}, refused(505, "UNEXPECTED_FRAME - expected method frame, got non method frame instead", 0, 0)},
		{"content header after a method without content", func(t *testing.T) []byte {
			return append(frames(t, 1, &amqp.BasicQos{}), rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 0, 0, 0))...)
		}, closed{505, "UNEXPECTED_FRAME - expected method frame, got non method frame instead", 0, 0, &amqp.BasicQosOk{}}},
		{"body after an empty message", func(t *testing.T) []byte {
			b := methodFrame(t, 1, &amqp.BasicPublish{RoutingKey: "nowhere"})
			b = append(b, rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 0, 0, 0))...)
			return append(b, rawFrame(amqp.FrameBody, 1, []byte("a"))...)
		}, refused(505, "UNEXPECTED_FRAME - expected method frame, got non method frame instead", 0, 0)},

		// Frame types and framing.
		{"unknown frame type", func(t *testing.T) []byte {
			return rawFrame(4, 1, []byte("hi"))
		}, refused(501, `FRAME_ERROR - type 4, all octets = <<"hi">>: unknown_frame`, 0, 0)},
		{"frame type 0", func(t *testing.T) []byte {
			return rawFrame(0, 1, []byte("hi"))
		}, refused(501, `FRAME_ERROR - type 0, all octets = <<"hi">>: unknown_frame`, 0, 0)},
		{"frame type 255 on channel 0", func(t *testing.T) []byte {
			return rawFrame(255, 0, []byte{1})
		}, refused(501, "FRAME_ERROR - type 255, all octets = <<1>>: unknown_frame", 0, 0)},
		{"frame end that is not 0xCE", func(t *testing.T) []byte {
			b := frames(t, 1, &amqp.BasicQos{PrefetchCount: 1})
			b[len(b)-1] = 0
			return b
		}, refused(501, "FRAME_ERROR - type 1, all octets = <<0,60,0,10,0,0,0,0,0,1,0>>: {invalid_frame_end_marker,0}", 0, 0)},
		{"body frame over frame_max", func(t *testing.T) []byte {
			b := methodFrame(t, 1, &amqp.BasicPublish{RoutingKey: "nowhere"})
			b = append(b, rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 200000, 0, 0))...)
			// The size is refused at the frame's 7-byte header, before
			// its payload is read.
			return append(b, amqp.FrameBody, 0, 1, 0, 0x02, 0x22, 0xe0) // 140000
		}, refused(501, "FRAME_ERROR - type 3, all octets = <<>>: {frame_too_large,140000,131064}", 0, 0)},

		// Method frames.
		{"method frame too short for its ids", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameMethod, 1, []byte{0, 60})
		}, refused(501, "FRAME_ERROR - type 1, all octets = <<0,60>>: unknown_frame", 0, 0)},
		{"method arguments with trailing bytes", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameMethod, 1, append(methodPayload(t, &amqp.BasicQos{PrefetchCount: 1}), 1, 2))
		}, refused(501, "FRAME_ERROR - cannot decode <<0,0,0,0,0,1,0,1,2>>", 60, 10)},
		{"method arguments cut short", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameMethod, 1, methodPayload(t, &amqp.BasicQos{PrefetchCount: 1})[:6])
		}, refused(501, "FRAME_ERROR - cannot decode <<0,0>>", 60, 10)},
		{"channel.open with a trailing byte", func(t *testing.T) []byte {
			return rawFrame(amqp.FrameMethod, 2, append(methodPayload(t, &amqp.ChannelOpen{}), 9))
		}, refused(501, "FRAME_ERROR - cannot decode <<0,9>>", 20, 10)},

		// Content headers.
		{"content header with a weight", func(t *testing.T) []byte {
			return append(methodFrame(t, 1, &amqp.BasicPublish{}), rawFrame(amqp.FrameHeader, 1, headerPayload(60, 1, 0, 0, 0))...)
		}, refused(505, "UNEXPECTED_FRAME - expected content header for class 60, got non content header frame instead", 60, 40)},
		{"content header of another class", func(t *testing.T) []byte {
			return append(methodFrame(t, 1, &amqp.BasicPublish{}), rawFrame(amqp.FrameHeader, 1, headerPayload(50, 0, 0, 0, 0))...)
		}, refused(505, "UNEXPECTED_FRAME - expected content header for class 60, got one for class 50 instead", 60, 40)},
		{"content header too short", func(t *testing.T) []byte {
			return append(methodFrame(t, 1, &amqp.BasicPublish{}), rawFrame(amqp.FrameHeader, 1, []byte{0, 60})...)
		}, refused(501, "FRAME_ERROR - type 2, all octets = <<0,60>>: unknown_frame", 0, 0)},
		{"content header where the body is due", func(t *testing.T) []byte {
			b := methodFrame(t, 1, &amqp.BasicPublish{})
			b = append(b, rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 3, 0, 0))...)
			return append(b, rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 3, 0, 0))...)
		}, refused(505, "UNEXPECTED_FRAME - expected content body, got non content body frame instead", 60, 40)},
		// Where RabbitMQ 3.10.8's channel crashes on a header it cannot
		// decode (541 "INTERNAL_ERROR"), Warren says what is wrong.
		{"content header without property flags", func(t *testing.T) []byte {
			return append(methodFrame(t, 1, &amqp.BasicPublish{}), rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 0))...)
		}, refused(501, "FRAME_ERROR - cannot decode <<>>", 60, 40)},
		{"property flags' continuation bit and a second flag word", func(t *testing.T) []byte {
			return append(methodFrame(t, 1, &amqp.BasicPublish{}), rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 0, 0x00, 0x01, 0x00, 0x00))...)
		}, refused(501, "FRAME_ERROR - cannot decode <<0,1,0,0>>", 60, 40)},
		// A body frame larger than what is left of the announced size:
		// RabbitMQ 3.10.8 answers nothing, and the message never
		// completes; Warren closes the connection saying why.
		{"body larger than announced", func(t *testing.T) []byte {
			b := methodFrame(t, 1, &amqp.BasicPublish{})
			b = append(b, rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 3, 0, 0))...)
			return append(b, rawFrame(amqp.FrameBody, 1, []byte("abcd"))...)
		}, refused(501, "FRAME_ERROR - content body frame exceeds remaining content size", 60, 40)},
		{"property flag bit 1, which names no property", func(t *testing.T) []byte {
			return append(methodFrame(t, 1, &amqp.BasicPublish{RoutingKey: "nowhere"}), rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 0, 0x00, 0x02))...)
		}, accepted},
		{"property flags' continuation bit", func(t *testing.T) []byte {
			return append(methodFrame(t, 1, &amqp.BasicPublish{RoutingKey: "nowhere"}), rawFrame(amqp.FrameHeader, 1, headerPayload(60, 0, 0, 0x00, 0x01))...)
		}, accepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest(t, func(t *testing.T, b *broker.Broker) {
				c := startPipe(t, b, Config{})
				c.handshake(0)
				c.openChannels(1)
				c.send(tt.send(t))
				if tt.want.first != nil {
					c.expect(tt.want.first)
					tt.want.first = nil
				}
				if tt.want == accepted {
					c.method(1, &amqp.BasicQos{})
					c.expect(&amqp.BasicQosOk{})
					return
				}
				cmd := c.expect(&amqp.ConnectionClose{})
				cl := cmd.Method.(*amqp.ConnectionClose)
				got := refused(cl.ReplyCode, cl.ReplyText, cl.FailingClassID, cl.FailingMethodID)
				if cmd.Channel != 0 || got != tt.want {
					t.Fatalf("connection.close %+v, want %+v", got, tt.want)
				}
			})
		})
	}
}
