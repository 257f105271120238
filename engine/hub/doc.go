// Package hub is the shared session hub: one broker that several
// browsers and real AMQP clients use together, on a clock they control
// (issue 11). It does no I/O: no sockets, no goroutines, no wall-clock
// reads, no randomness. Inputs are method calls that carry the wall time
// in Unix milliseconds; outputs accumulate until the driver takes them
// with Ready (raft's RawNode and Ready). The native server wraps a
// Session in a goroutine with WebSockets; the edge wraps the same Session
// in a Cloudflare Durable Object, which is why the package builds for
// GOOS=js GOARCH=wasm and imports only what the module's import policy
// (depsRules in the root's deps_test.go) allows.
//
// # A session is a broker plus its command log
//
// The Session owns the authoritative engine.Broker, with
// Config.RecordCommands on. Every input that changes it (a participant's
// script line, a real client's AMQP method, a move of the clock) becomes
// one Entry of the session's log: a sequence number, the engine command
// records the input produced (engine.DrainCommands), and its Origin (who,
// and the line they typed, or which AMQP connection, or the clock). There
// is no second replay mechanism: the records are the engine's own, and a
// replica applies them with engine.DecodeCommand and Broker.Apply.
//
// Browsers replicate; they do not render remote state. Each page runs its
// own wasm engine (Replica): it loads the snapshot its welcome message
// carries (engine.Broker.Save bytes as of an entry, plus the entries after
// it) and applies every later entry in order, so the playground's UI
// works unchanged on its own broker and animates the events its replica
// emits. Now and then a page reports its state hash (HashState: FNV-64a
// of Save) after an entry; a hash that differs from the hub's is
// surfaced (an error to the page, a Divergence for the driver to log as
// that participant's report, a failure in tests). Every entry that
// carries a hash lets the page check itself; a report is the page's
// word, which the hub cannot check (see Divergence). For the hashes to be comparable, Save must be
// a function of the commands applied alone; the engine's Save leaves out
// the one piece of state that reads could change (idle ack timers).
//
// # Participants and their script context
//
// A participant is a browser that joined with a name and a role: Editor,
// or ReadOnly, which the hub refuses every command and clock message
// (the driver decides the role from the link the page came by). Each
// participant's lines run through its own script.Runner over the shared
// broker (script.NewOn), so each has its own channel names, current
// channel and "ack last"; what other inputs do to its channels reaches
// its runner through script.Runner.Observe. A participant's lines run on
// the hub, not on its page: the page sends the line, and applies the
// entry like everyone else.
//
// # The clock
//
// The clock mode is session state, and switching it is an entry
// everyone sees (Entry.Clock). Manual: time moves only when an editor
// steps or advances (clock messages, or the script's advance, step, run
// and restart DOWNTIME lines) or the server does (Session.Advance).
// Paused: nothing moves it. Live: it follows the wall time the driver
// passes in, and each call that moves it is an entry of origin clock, so
// replicas never read a clock of their own. In live and paused modes
// the time verbs are refused.
//
// # Limits and lifetime
//
// Participants per session, commands a second per participant and per
// session (token buckets on the wall time passed in), the length of a
// line and of a message, and the bytes of messages the queues hold are
// the hub's; queues and messages per session are the engine's limits
// (Config.Engine), which answer with RabbitMQ's 406. A session with no
// command or join for Config.IdleMs ends, and everyone is told. Every
// refusal is an *Error with a stable key and named values (errors.go),
// so that a page can say it in its reader's language.
//
// # The driver's duties
//
//  1. Own the Session alone: one goroutine, or one Durable Object. Pass
//     the wall time, in Unix milliseconds, to every call.
//  2. When a page's socket opens, read its first message with
//     DecodeInbound (a join), call Join with the role its link grants,
//     and keep the returned ParticipantID with the socket; a refused join
//     is sent with ErrorMessage and the socket closed. Pass every later
//     message to Handle, and call Leave when the socket closes.
//  3. For a real AMQP client, apply its methods as commands with Apply,
//     with an Origin of kind OriginAMQP naming the connection, and check
//     AllowPublish before a basic.publish. Register the connection with
//     ConnectionOpened and ConnectionClosed for presence.
//  4. After every call, take Ready and act on all of it, in order: send
//     each Outgoing message to its participant (a *Message addressed to
//     many may be encoded once), hand the Events of its AMQP connections'
//     channels to them, log every Divergence as its participant's report
//     (who, role, source; never as a proven bug), and on Ended close
//     every socket and AMQP connection (320) and drop the session.
//  5. Arm one timer for NextWakeMs, and call Tick when it fires (or
//     sooner; an early Tick is harmless). Re-read NextWakeMs after every
//     call: commands and clock switches move it.
//  6. To keep a session's whole history (to export it, for instance),
//     store the entries as they go out (Ready.Entries, which has them
//     all, with participants there or not): the hub keeps only a
//     snapshot and the entries since (Config.SnapshotEvery). History
//     keeps them within bounds, and writes them as a script the
//     playground replays to the same state (history.go, export.go).
//  7. On shutdown call End(KeyShutdown), then deliver Ready.
//
// The JSON messages are the types in protocol.go; PROTOCOL.md describes
// the exchange with examples.
package hub
