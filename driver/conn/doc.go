// Package conn serves one AMQP 0-9-1 connection over any byte transport
// against a backend that owns an engine: the server's broker
// (server/broker) or a shared session's (driver/sessions). It owns the
// connection's goroutines, its outbox and its writes; the protocol is
// engine/amqpconn's machine, the bytes are the transports' (server/tcp,
// server/ws, and the edge's wasm/worker/amqpsocket). It lives under
// driver/ because the native server and the edge worker both run it; it
// imports no transport and nothing of the server's (the server's users
// reach it as a Users, events as a driver/sink.Sink).
//
// Two goroutines per connection, each with one job:
//
//   - the owner reads: it turns bytes into frames and commands
//     (engine/amqp's reader and assembler), hands them to the machine,
//     answers the machine's decisions (a login, the connection's opening),
//     hands the machine's engine commands to the backend with Apply, and
//     the results and the events they caused back, then queues what the
//     machine sends in the outbox (drive.go). Only the owner touches the
//     machine, and it asserts so (owner.go). Other goroutines reach it
//     through its inbox, and wake it by ending its read (inbox.go,
//     wake.go): the sink, which the backend calls with the connection's
//     events from wherever it applies commands, sends the stateless ones
//     (deliveries, returns, confirms) itself, unless the owner is applying
//     commands that reply, and leaves the rest to the owner;
//   - the writer drains the outbox, encoding replies and the engine's
//     events into frames, and sends heartbeats.
//
// Over TCP the owner also writes, right after each turn, what the turn
// queued on any of the home's connections, as far as their sockets take
// it at once; the writers then wake only for the rest, for what other
// goroutines queue, and for heartbeats (inline.go). Writing another
// connection's socket touches only that connection's outbox and write
// state, under its write lock, never its machine, so it keeps single
// ownership. While a TCP client streams, a read waits up to 200 µs for a
// few kilobytes before it returns, so that each wake-up carries tens of
// messages (server/tcp); so does a read after a batch of acks from a
// client that still holds many deliveries (acks.go).
package conn
