package conn

// What a transport may do beyond Transport, each asked for where it is
// used: the TCP transport (server/tcp) tries writes and paces reads,
// the WebSocket ones (server/ws, wasm/worker/amqpsocket) bound their
// messages.

// TryWriter is a transport whose writes can be tried without waiting
// (TCP): the connection's goroutine then writes its own replies
// (inline.go). TryWrite writes b as far as the socket takes it at once and
// keeps the rest to go out before anything written after it; blocked says
// bytes were kept, which the next WriteFrames sends first.
type TryWriter interface {
	TryWrite(b []byte) (blocked bool, err error)
	CanTryWrite() bool
}

// AckPacer is a transport whose next read can wait for a consumer's acks
// (TCP on Linux, acks.go).
type AckPacer interface{ AcksHeld() }

// MessageBounder is a transport with messages of its own (WebSocket) that
// must be bounded once the connection is tuned: the largest a client may
// send in one message, a whole publish (amqpconn.LargestPublish).
type MessageBounder interface {
	BoundMessages(frameMax uint32, maxMessageSize uint64)
}

// Resetter is a transport whose close can reset the connection (TCP's
// SO_LINGER 0), as RabbitMQ resets a socket dropped at the handshake
// timeout.
type Resetter interface{ ResetOnClose() }

// boundMessages applies the negotiated frame-max and the largest message
// body to t's messages, if t has any.
func boundMessages(t Transport, frameMax uint32, maxMessageSize uint64) {
	if mb, ok := t.(MessageBounder); ok {
		mb.BoundMessages(frameMax, maxMessageSize)
	}
}

// resetOnClose makes closing t reset the connection, if t can.
func resetOnClose(t Transport) {
	if r, ok := t.(Resetter); ok {
		r.ResetOnClose()
	}
}
