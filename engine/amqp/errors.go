package amqp

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is an AMQP exception raised by the codec: the connection layer
// answers it with connection.close (ConnectionError true) or channel.close
// on Channel, copying Code, Text, ClassID and MethodID into the close
// method. Like the engine's errors (http2's ConnectionError/StreamError
// split), the kind follows from the reply code: the spec marks each code a
// hard error (closes the connection) or a soft one (closes the channel).
//
// The codec raises:
//
//	501 FRAME_ERROR       malformed frame, header or method arguments; frame
//	                      larger than frame-max; bad frame-end octet;
//	                      invalid UTF-8 in a shortstr; body frame beyond the
//	                      declared body size (connection)
//	503 COMMAND_INVALID   unknown class or method id (connection; RabbitMQ
//	                      3.10 drops the TCP connection without a close)
//	505 UNEXPECTED_FRAME  a frame out of order: header or body where a
//	                      method was due, method where content was due,
//	                      heartbeat on a channel other than 0 (connection)
//	406 PRECONDITION_FAILED message larger than the configured maximum size
//	                      (channel)
type Error struct {
	// Code is the AMQP reply code, e.g. FrameError (501).
	Code uint16
	// Text is the reply text in RabbitMQ's "NAME - explanation" form, e.g.
	// "UNEXPECTED_FRAME - expected content body, got non content body frame
	// instead". It is at most 255 bytes, so it fits a shortstr.
	Text string
	// ClassID and MethodID name the method that caused the error, or are 0
	// when no method is to blame (RabbitMQ sends 0/0 then too).
	ClassID, MethodID uint16
	// Channel is the channel of the offending frame.
	Channel uint16
}

func (e *Error) Error() string {
	kind := "channel"
	if e.ConnectionError() {
		kind = "connection"
	}
	return "amqp: " + kind + " error " + strconv.Itoa(int(e.Code)) + ": " + e.Text
}

// ConnectionError reports whether the error closes the whole connection (a
// hard error in the spec) rather than just its channel.
func (e *Error) ConnectionError() bool { return IsHardError(e.Code) }

// maxReplyText is the longest reply-text a close method can carry (shortstr).
const maxReplyText = 255

// newError builds an Error with RabbitMQ's "NAME - explanation" text,
// truncated to fit a shortstr.
func newError(code uint16, classID, methodID uint16, format string, args ...any) *Error {
	text := ReplyName(code) + " - " + fmt.Sprintf(format, args...)
	if len(text) > maxReplyText {
		text = text[:maxReplyText-3] + "..."
	}
	return &Error{Code: code, Text: text, ClassID: classID, MethodID: methodID}
}

// ProtocolHeaderError reports that a connection did not open with
// "AMQP\x00\x00\x09\x01". The spec and RabbitMQ answer by writing their own
// ProtocolHeader, so that the client learns which version is spoken, and
// then closing the socket: there is no channel 0 yet to send connection.close
// on.
type ProtocolHeaderError struct {
	// Got holds the 8 bytes that arrived instead.
	Got [8]byte
}

func (e *ProtocolHeaderError) Error() string {
	return "amqp: bad protocol header " + erlangBinary(e.Got[:], true)
}

// erlangBinary renders b the way Erlang prints a binary in RabbitMQ's
// error texts, so that our texts read like theirs: <<"abc">> when every
// byte is printable (the ~p format) and quoted is true, otherwise
// <<1,2,3>> (the ~w format).
func erlangBinary(b []byte, quoted bool) string {
	var sb strings.Builder
	sb.WriteString("<<")
	if quoted && len(b) > 0 && printable(b) {
		sb.WriteString(strconv.Quote(string(b)))
	} else {
		for i, c := range b {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Itoa(int(c)))
		}
	}
	sb.WriteString(">>")
	return sb.String()
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

// snippet is RabbitMQ's payload_snippet: the whole payload when it is at
// most 16 bytes ("all"), else its first 16 ("first 16").
func snippet(payload []byte) (string, []byte) {
	if len(payload) <= 16 {
		return "all", payload
	}
	return "first 16", payload[:16]
}

// frameError is rabbit_reader's frame_error text:
// "type 3, all octets = <<>>: {frame_too_large,200000,131064}", the
// payload and the reason (an atom, or a tuple given flat) laid out as
// RabbitMQ's ~p lays them out (erlangfmt.go).
func frameError(typ uint8, channel uint16, payload []byte, reason string) *Error {
	text := frameSnippet(typ, payload) + ": "
	text += prettyTuple(reason, lastLineLen(text))
	e := newError(FrameError, 0, 0, "%s", text)
	e.Channel = channel
	return e
}

// frameSnippet is rabbit_reader's "type ~p, ~s octets = ~p" for a frame.
func frameSnippet(typ uint8, payload []byte) string {
	which, b := snippet(payload)
	text := "type " + strconv.Itoa(int(typ)) + ", " + which + " octets = "
	return text + prettyBinary(b, len(text))
}

// UnexpectedFrameError returns rabbit_reader's error for a frame that is not
// allowed where it arrived, e.g. a content frame on channel 0 or any frame on
// a channel before connection.open has completed:
// "UNEXPECTED_FRAME - type 2, all octets = <<...>>".
func UnexpectedFrameError(f Frame) *Error {
	e := newError(UnexpectedFrame, 0, 0, "%s", frameSnippet(f.Type, f.Payload))
	e.Channel = f.Channel
	return e
}

// cannotDecode is RabbitMQ's rabbit_misc:frame_error text for arguments
// that do not match the method's layout: "cannot decode <<...>>". The bytes
// are cut so that the text fits a shortstr.
func cannotDecode(classID, methodID uint16, args []byte) *Error {
	const maxShown = 48
	shown := erlangBinary(args[:min(len(args), maxShown)], false)
	if len(args) > maxShown {
		shown = shown[:len(shown)-2] + ",...>>"
	}
	return newError(FrameError, classID, methodID, "cannot decode %s", shown)
}
