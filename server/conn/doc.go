// Package conn serves one AMQP 0-9-1 connection over any byte transport
// (TCP, or WebSocket binary messages) against the engine driven by
// server/broker.
//
// Two goroutines per connection, each with one job:
//
//   - the connection goroutine reads: it turns bytes into frames and
//     frames into commands (engine/amqp's sans-I/O reader and assembler),
//     runs the handshake and then, for each command or batch of pipelined
//     commands, one Do on the backend whose closure calls the engine and
//     queues the reply in the outbox;
//   - the writer drains the outbox, encoding replies and the engine's
//     events (deliveries, returns, confirms, closes) into frames.
//
// Over TCP the connection goroutine also writes, right after each request,
// what the request queued on any of the home's connections, as far as
// their sockets take it at once; the writers then wake only for the rest,
// for what other goroutines queue, and for heartbeats (inline.go). While
// a TCP client streams, a read waits up to 200 µs for a few kilobytes
// before it returns, so that each wake-up carries tens of messages
// (readpacing.go, readwait_linux.go); so does a read after a batch of
// acks from a client that still holds many deliveries (acks.go).
//
// Everything that must agree with the engine's state — which channels are
// closing, whether the connection is paused for back-pressure — belongs to
// the backend's owner (the server's broker's lock, a shared session's
// goroutine): it is touched only inside Do closures and by the event sink,
// both of which run there.
package conn
