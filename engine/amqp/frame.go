package amqp

import (
	"encoding/binary"
	"fmt"
)

// Frame is one AMQP frame:
//
//	0      1         3             7                  7+size  8+size
//	+------+---------+-------------+------ ... -------+--------+
//	| type | channel |    size     |     payload      |  0xCE  |
//	+------+---------+-------------+------ ... -------+--------+
//	 octet   short       long         size octets      frame-end
//
// Type is FrameMethod, FrameHeader, FrameBody or FrameHeartbeat.
type Frame struct {
	Type    uint8
	Channel uint16
	Payload []byte
}

// frameOverhead is the size of a frame around its payload: the 7-byte
// header and the frame-end octet. A frame-max counts it.
const frameOverhead = 8

// ProtocolHeader opens every AMQP 0-9-1 connection, and is what a server
// writes back before closing when a client opens with anything else.
var ProtocolHeader = [8]byte{'A', 'M', 'Q', 'P', 0, 0, 9, 1}

// AppendFrame appends a complete frame carrying payload.
func AppendFrame(b []byte, typ uint8, channel uint16, payload []byte) []byte {
	b = append(b, typ, byte(channel>>8), byte(channel))
	b = appendUint32(b, uint32(len(payload)))
	b = append(b, payload...)
	return append(b, FrameEnd)
}

// IsHeartbeat reports whether f is a well-formed heartbeat: type 8 on
// channel 0 with an empty payload. A heartbeat frame with a payload or on
// another channel is not one; the Assembler refuses it as RabbitMQ does
// (501 FRAME_ERROR "type 8, all octets = <<...>>: unknown_frame", or 505
// UNEXPECTED_FRAME on a channel other than 0), so a connection layer that
// takes heartbeats aside before assembling must take only these.
func IsHeartbeat(f Frame) bool {
	return f.Type == FrameHeartbeat && f.Channel == 0 && len(f.Payload) == 0
}

// AppendHeartbeat appends a heartbeat frame (always on channel 0, empty).
func AppendHeartbeat(b []byte) []byte {
	return AppendFrame(b, FrameHeartbeat, 0, nil)
}

// AppendMethodFrame appends a method frame for m on channel, encoding the
// arguments in place rather than through an intermediate buffer. On error
// (a shortstr over 255 bytes, a table value of a type AMQP cannot carry) b
// is returned unchanged.
func AppendMethodFrame(b []byte, channel uint16, m Method) ([]byte, error) {
	start := len(b)
	b = append(b, FrameMethod, byte(channel>>8), byte(channel), 0, 0, 0, 0)
	b = appendUint16(b, m.ClassID())
	b = appendUint16(b, m.MethodID())
	b, err := m.AppendArgs(b)
	if err != nil {
		return b[:start], err
	}
	return endFrame(b, start), nil
}

// AppendContentHeaderFrame appends a content header frame announcing
// bodySize bytes. On error b is returned unchanged.
func AppendContentHeaderFrame(b []byte, channel uint16, classID uint16, bodySize uint64, p Properties) ([]byte, error) {
	start := len(b)
	b = append(b, FrameHeader, byte(channel>>8), byte(channel), 0, 0, 0, 0)
	b, err := AppendContentHeader(b, classID, bodySize, p)
	if err != nil {
		return b[:start], err
	}
	return endFrame(b, start), nil
}

// AppendContent appends a content header frame and the body, cut into body
// frames that fit frameMax (the negotiated frame-max, which counts the 8
// bytes of frame overhead). An empty body gets no body frame, as RabbitMQ
// sends it. frameMax must be at least 9: a smaller one is a bug in the
// caller, so it panics. On error b is returned unchanged.
//
// Over WebSocket each frame must travel in its own message; callers that
// need the frames separately use AppendContentHeaderFrame and AppendFrame.
func AppendContent(b []byte, channel uint16, classID uint16, p Properties, body []byte, frameMax uint32) ([]byte, error) {
	if frameMax <= frameOverhead {
		panic(fmt.Sprintf("amqp: AppendContent with frameMax %d, which leaves no room for a body", frameMax))
	}
	b, err := AppendContentHeaderFrame(b, channel, classID, uint64(len(body)), p)
	if err != nil {
		return b, err
	}
	chunk := int(frameMax - frameOverhead)
	for len(body) > 0 {
		n := min(chunk, len(body))
		b = AppendFrame(b, FrameBody, channel, body[:n])
		body = body[n:]
	}
	return b, nil
}

// endFrame fills in the size of the frame that starts at b[start] and
// appends the frame-end octet.
func endFrame(b []byte, start int) []byte {
	binary.BigEndian.PutUint32(b[start+3:], uint32(len(b)-start-7))
	return append(b, FrameEnd)
}
