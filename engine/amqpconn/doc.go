// Package amqpconn is one AMQP 0-9-1 connection as a state machine with no
// I/O: decoded commands in (engine/amqp's reader and assembler make them
// from bytes), engine.Command values and outgoing methods out; the
// engine's results and events in, outgoing methods out. It is pure and
// deterministic like the engine beside it: no goroutines, locks, clock or
// sockets, so script tests drive it against a real engine.Broker
// (testdata/*.txt) and the browser could run it too.
//
// It owns what RabbitMQ's rabbit_reader and rabbit_channel decide for a
// connection: the handshake (connection.start, start-ok, tune, tune-ok,
// open), the channel numbers and their states (open, or closing while the
// server awaits the client's channel.close-ok), channel_max, the mapping of
// each method to an engine command and of its result to the -ok reply, the
// mapping of the engine's events to deliveries, returns, confirms,
// consumer cancel notifications, tx.commit-ok and closes, the closing
// handshake, and back-pressure as a decision.
//
// The driver's duties, in order (raft's Ready loop):
//
//  1. Call Start once the protocol header has arrived, and Recv for each
//     command read (Heartbeat frames need not be passed), FrameError for a
//     codec error.
//  2. Drain Ready: answer Login (a start-ok's credentials: the driver
//     checks them, the machine only decodes them) with LoggedIn, and Open
//     (connection.open passed the machine's checks) by applying
//     CmdOpenConnection with Opened or OpenFailed; apply Commands, in
//     order, stopping after the first whose result has an error, and hand
//     the results to Results; send Out, in order; then call Advance.
//     Results may queue more commands (the inputs after a failed one are
//     mapped again, now that its channel is closing): loop until Commands
//     is empty.
//  3. Hand the connection's engine events to Events, in order. A driver
//     may instead send a stateless event's frames itself (Stateless,
//     EventOut, EventSendOf) when no command of its is out, or when
//     EventsGoNow said so before it applied the commands that are: no
//     reply can be overtaken then.
//  4. Tell Backlog the bytes waiting to be written after each write and
//     each event batch: past the high-water mark it queues
//     CmdPauseConnection, and below a quarter of it the resume.
//  5. While Closing, read only to pass commands on (the machine discards
//     all but connection.close and close-ok) for at most CloseWait; end
//     the connection when Ended.
//
// Direct reply-to needs nothing here: the engine models it, and its
// methods map to commands like any others.
package amqpconn
