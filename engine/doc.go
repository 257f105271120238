// Package engine is Warren's broker: RabbitMQ's AMQP 0-9-1 semantics as a
// pure, deterministic state machine.
//
// The engine has no goroutines, no locks, no I/O and no clock. Commands
// (one per AMQP method: CmdQueueDeclare, CmdBasicPublish, CmdBasicAck, ...)
// change its state and append Events; virtual time, in milliseconds, is an
// input. Given the same commands and the same AdvanceTo calls it produces
// the same events, natively, in the browser (GOOS=js) and in tests.
//
// Every input is a value: a Command (CmdQueueDeclare, CmdAdvanceTo, ...)
// passed to Broker.Apply, the one entry point; methods such as QueueDeclare
// and AdvanceTo are wrappers that build the command and return their part
// of the Result.
// A command has a versioned binary encoding (AppendCommand, DecodeCommand);
// with Config.RecordCommands the broker logs the records of the commands it
// applies, and DrainCommands hands them to the driver as DrainEvents hands
// over events. Applying those records, in order, to a new broker with the
// same Config rebuilds the same broker, with the same events on the way.
// Reads (Snapshot, NextDeadline, the listings) are not commands and must
// not change what later commands do. A driver that keeps only what a
// restart keeps (a data directory) turns on the durable log instead
// (EnableDurableLog, durable.go): DrainDurable hands over context-free
// records of the durable state's changes, each change its own records.
//
// The driver's duties (compare etcd raft's Node/RawNode contract):
//
//  1. Own the Broker alone: one owner at a time (a goroutine, a lock whose
//     holder runs one request as the server's does, or the browser's single
//     thread). Nothing in the engine calls back into the driver.
//  2. Before each command, call AdvanceTo(now) with a non-decreasing now, so
//     that everything due fires first, in (deadline, arming order) order.
//  3. Arm one timer for NextDeadline() and call AdvanceTo when it is
//     reached. In the browser, Step() jumps straight to it. A deadline no
//     later than Now() is a continuation: a large backlog is worked off a
//     batch per call (backlog.go), and AdvanceTo returns short of its
//     target when the next batch is due; call it again, serving other
//     commands in between, or call Settle to finish at once.
//  4. After every command and every AdvanceTo, drain the events with
//     DrainEvents and act on each, in order: deliver Delivered messages to
//     consumers, send Returned before Confirmed, send basic.cancel for
//     server-side ConsumerCancelled, close channels on ChannelClosed.
//  5. With Config.RecordCommands, drain the command records with
//     DrainCommands as often as the events, and keep them (or send them
//     on) before acting on what they caused where losing them would show:
//     they are the broker's history.
//  6. Treat a returned *Error as the AMQP exception it describes: the engine
//     has already closed the channel (Connection false) or the connection it
//     names; the driver sends channel.close or connection.close with the
//     error's Code, Text and Method.
//
// Save writes the broker's whole state to bytes, between drains, and Load
// builds a broker from them (save.go): given the same later commands and
// AdvanceTo calls, the loaded broker produces exactly the events the saved
// one would, so a snapshot plus the commands since is the state.
//
// A message copy's life in a queue is told by its events: Enqueued creates
// it; Delivered hands it out (ending it at once when NoAck); Requeued brings
// an unacked copy back; and exactly one of Acked, Expired, Rejected,
// Overflowed, DeliveryLimited, Purged or Discarded ends it. (A purge or
// deletion of more than a batch ends the copies at once but reports the
// rest of them in the calls that follow; see bulkend.go.) A death with a
// dead-letter exchange is followed by DeadLettered (naming the new message)
// or Dropped (saying why not). Enqueued names the binding that routed the
// copy (Via); a message routed to no queue, and not returned to a mandatory
// publisher, is Dropped at its exchange, where RabbitMQ is silent.
//
// Limits: everything the engine stores is bounded by what the driver feeds
// it; the server enforces per-connection and per-vhost limits before calling
// in. Dead-letter cycles are cut by RabbitMQ's own rule (a message that
// would reach a queue it already died in, with no rejection in between, is
// dropped).
package engine
