// Package amqp is Warren's AMQP 0-9-1 codec: bytes in, frames and commands
// out. It is sans-I/O, in the manner of nats-server's parser without its
// coupling: no sockets, locks, goroutines, clocks or authentication, so
// that the same code serves TCP, WebSocket and the browser build, and can
// be fuzzed with input split at any point.
//
// The pieces, from the wire up:
//
//   - FrameReader cuts a byte stream into frames. It reads the protocol
//     header first and checks every frame's size against frame-max as soon
//     as the 7-byte frame header is in, before buffering the payload.
//   - Assembler turns frames into commands, per channel: a method, and for
//     basic.publish and friends its content header and body frames,
//     checking order and sizes as RabbitMQ's rabbit_command_assembler does.
//   - DecodeMethod and the generated method structs (methods_gen.go,
//     generated from spec/amqp-rabbitmq-0.9.1.json by server/cmd/amqpgen) decode
//     and encode method arguments; Table and Properties the field tables and
//     content properties.
//   - AppendMethodFrame, AppendContent and AppendFrame encode by appending
//     to a []byte, so that a connection can write many frames with one
//     buffer.
//
// The driver's duties (the connection layer):
//
//  1. Create one FrameReader and one Assembler per connection. Feed the
//     reader each chunk read from the socket (or each WebSocket message),
//     then call ReadProtocolHeader until it reports true, then Next until
//     it reports no frame, before feeding again. On a *ProtocolHeaderError
//     write ProtocolHeader and close the socket.
//  2. Use a frame's Payload before the next call to Next or Feed, which may
//     reuse its memory; keep the slice passed to Feed unmodified until Next
//     reports no frame. Decoded methods, properties and bodies are copies
//     and may be kept.
//  3. After connection.tune-ok, call SetFrameMax with the negotiated
//     frame-max, and encode content with AppendContent under the same limit.
//  4. Hand every frame to Assembler.Add and act on each Command in order.
//     Frames on channels other than 0 before connection.open has completed
//     are refused with UnexpectedFrameError, as RabbitMQ refuses them.
//  5. Treat every error as an AMQP exception. An *Error whose
//     ConnectionError is true is answered with connection.close (Code,
//     Text, ClassID, MethodID) and no further input is read: reader errors
//     are sticky, because the stream is out of sync. Otherwise answer with
//     channel.close on the error's Channel and carry on.
//  6. Call Assembler.Reset when a channel closes, so that a half-received
//     message does not leak into the channel's next life.
//
// Limits: a frame's payload is at most frame-max (4096, FrameMinSize, until
// SetFrameMax); a message body at most the Assembler's MaxMessageSize
// (RabbitMQ's default of 128 MiB unless configured); field tables nest at
// most MaxTableDepth deep; every length read from the wire is checked
// against what remains of the payload before anything is allocated.
package amqp

//go:generate go run warren/server/cmd/amqpgen
