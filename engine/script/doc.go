// Package script is Warren's script language: plain text lines that drive
// the engine and assert on it. One small parser serves the engine's
// scenario tests (engine/testdata), the lessons, the console (warren
// console, warren run) and the browser; it does not import testing, so it
// builds for wasm.
//
// A Runner executes lines against one engine.Broker and returns, for each
// line, the text of what happened: the engine's events, one per line. Parse
// parses a line without running it; Help lists every verb's usage; the
// Case functions read, run and rewrite scenario files. Several runners may
// share one broker (NewOn), each with its own channel names, as a shared
// session's participants do; Observe tells each what the others did.
//
// # Lines and words
//
// Each line is one command. A line is split into words at spaces and tabs.
//
//   - Double quotes group words: publish q "hello world" has the body
//     "hello world". Inside them a backslash takes the next character
//     literally, so \" is a quote and \\ a backslash; there are no other
//     escapes (\n is the letter n).
//   - Single quotes group words with no escapes at all, so that JSON reads
//     as in a shell: set_policy ttl "^q" '{"message-ttl":60000}'.
//   - Quoted and unquoted parts run together into one word: a"b c" is the
//     word "ab c". An empty pair, "", is an empty word (an empty body or
//     routing key).
//   - A # at the start of a word, outside quotes, begins a comment that
//     runs to the end of the line. A blank or comment-only line does
//     nothing. a#b and "#" are ordinary words.
//   - A word with an unquoted = after its first character is an option,
//     KEY=VALUE. The value is everything after the first = and may be
//     quoted: body="two words". A quote before the = makes the whole word a
//     positional argument: "a=b" is an argument, and so is =b.
//   - A first word @NAME runs this one line on channel NAME (see Channels);
//     it is not the verb.
//
// The verb is the first word, or the first two for the families declare,
// delete, bind, unbind, expect, show, vhost and tx (declare queue, show
// timers, tx commit). After the verb come, in any order:
//
//   - positional arguments, in the order the usage gives (QUEUE, BODY ...);
//   - flags: bare words the verb lists, such as durable or no-ack. A quoted
//     flag word is an argument again: publish q "persistent" publishes the
//     body "persistent";
//   - options, KEY=VALUE. A verb accepts only its listed keys, except that
//     declare queue, declare exchange, bind, unbind and publish pass other
//     keys on as AMQP arguments or headers, and expect queue, expect msg
//     and expect event compare any field.
//
// An unknown verb, an option the verb does not take, or too few or too
// many arguments is a parse error that names the verb's usage. The policy
// verbs are the exception: they take rabbitmqctl's own syntax, word for
// word (see Policies).
//
// # Values
//
// Values that become AMQP field-table values (queue and exchange arguments,
// binding arguments, headers) are typed the way a learner expects:
//
//	5, -3            integer (an AMQP long, int64)
//	true, false      boolean
//	1.5, 2e3         floating point (a double)
//	[a,1,true]       array, each element typed the same way; [] is empty
//	anything else    string
//
// Quoting forces a string: x-max-priority="10" is the string "10", not the
// number.
//
// # Durations
//
// A duration is a number and a unit — ms, s, m, h or d — and units may be
// combined: 250ms, 5s, 1.5s, 2m, 1h, 1m30s, 1d. A bare number is
// milliseconds, as in AMQP: 5000 is 5s. Durations round to the nearest
// millisecond and are never negative. They are accepted by advance, expect
// time, the queue options ttl, message-ttl and expires (and
// x-message-ttl and x-expires, when unquoted), and publish's expiration and
// delay. Output writes times the same way: 0s, 250ms, 6s, 1.5s, 2m30s, 1h.
//
// # Channels
//
// Commands run on a channel the script names. The current channel is app
// until open or use selects another; @NAME selects NAME for one line. A
// name CONN.N is channel N of connection CONN; any other name is channel 1
// of a connection of that name, so @c1 and @c1.2 share connection c1.
// Connections and channels open implicitly on first use, in vhost /, and a
// channel that an error closed is reopened by its next command, as a client
// would open a new one. Traces name channels by these names: ch=app.
//
// # Verbs
//
// Topology:
//
//	declare queue [NAME] [durable|non-durable] [exclusive] [auto-delete] [passive] [sac] [KEY=VALUE ...]
//	declare exchange NAME [TYPE] [durable] [auto-delete] [internal] [passive] [KEY=VALUE ...]
//	delete queue NAME [if-unused] [if-empty]
//	delete exchange NAME [if-unused]
//	bind QUEUE EXCHANGE [ROUTING-KEY] [KEY=VALUE ...]
//	unbind QUEUE EXCHANGE [ROUTING-KEY] [KEY=VALUE ...]
//	bind exchange DESTINATION SOURCE [ROUTING-KEY] [KEY=VALUE ...]
//	unbind exchange DESTINATION SOURCE [ROUTING-KEY] [KEY=VALUE ...]
//	purge QUEUE
//
// declare queue without a NAME lets the server choose one (amq.gen-…). Its
// options are queue arguments, with shorthands: ttl or message-ttl
// (x-message-ttl), expires (x-expires), max-length, max-length-bytes,
// overflow (drop-head, reject-publish, reject-publish-dlx), dlx
// (x-dead-letter-exchange), dlrk (x-dead-letter-routing-key), max-priority,
// type (x-queue-type; quorum implies durable unless the flag non-durable
// says otherwise, to show what a client that forgets durable gets) and
// delivery-limit; the flag
// sac sets x-single-active-consumer; any other key is passed as it is
// (x-queue-mode=lazy). A server-named or passive declare prints
// "queue NAME messages=N consumers=N".
//
// declare exchange's TYPE is direct (the default), fanout, topic, headers
// or x-delayed-message; ae (or alternate-exchange) names an alternate
// exchange and delayed-type sets x-delayed-type. Binding options are
// binding arguments, such as x-match=all and the header values a headers
// exchange matches. delete queue prints "deleted messages=N" and purge
// prints "purged messages=N".
//
// Messaging:
//
//	publish [EXCHANGE] ROUTING-KEY [BODY] [mandatory] [persistent] [immediate] [KEY=VALUE ...]
//	get QUEUE [no-ack]
//
// publish counts its arguments: one is a routing key on the default
// exchange with an empty body; two are ROUTING-KEY BODY, still on the
// default exchange; three are EXCHANGE ROUTING-KEY BODY. So a message to a
// named exchange needs a body, if only "": publish logs info "". persistent
// sets delivery-mode 2. Options set properties, each present with the
// value given, empty or zero included (content-type="" priority=0):
//
//	expiration=E              per-message TTL; a duration (5s) becomes "5000",
//	                          a quoted value is sent verbatim
//	priority=N                0..255
//	delay=D                   the x-delay header (x-delayed-message exchanges)
//	cc=K1,K2  bcc=K1,K2       the CC and BCC headers (sender-selected routing)
//	count=N                   publish N copies, 1..1000000
//	id=ID (or message-id), type, reply-to, correlation-id, content-type,
//	content-encoding, app-id, user-id, cluster-id, timestamp=SECONDS
//	delivery-mode=N           0..255 (persistent is delivery-mode=2)
//	headers={}                the headers property, present and empty
//	header.NAME=VALUE         a header, typed as in Values (h.NAME also works)
//
// get is basic.get; it prints get-empty when the queue has nothing ready.
//
// Consumers and acknowledgements:
//
//	consume QUEUE [tag=TAG] [no-ack] [exclusive] [priority=N] [prefetch=N]
//	cancel CONSUMER-TAG
//	qos PREFETCH-COUNT [global]
//	ack TAG|last|all [multiple]
//	nack TAG|last|all [multiple] [requeue=false]
//	reject TAG|last [requeue=false]
//	recover [requeue=false]
//
// consume without tag= lets the server name the consumer (amq.ctag-…);
// prefetch=N sends basic.qos first and priority=N is the x-priority
// argument. A delivery TAG is a number, last (the latest delivery that
// needs an acknowledgement, on any channel) or all (every unacknowledged
// delivery on the channel: tag 0 with multiple). nack and reject requeue
// unless requeue=false. recover is basic.recover, with requeue unless
// requeue=false (which RabbitMQ refuses with 540).
//
// Direct reply-to is RabbitMQ's RPC without a reply queue: consume
// amq.rabbitmq.reply-to no-ack gives the channel a reply consumer; a
// publish from it with reply-to=amq.rabbitmq.reply-to carries the
// channel's own address instead, amq.rabbitmq.reply-to.TOKEN (show msg,
// expect msg, show channels and expect channel CHANNEL reply-to=... show
// it); and publish amq.rabbitmq.reply-to.TOKEN BODY from any channel goes
// straight to that consumer, through no queue (engine/testdata/
// direct_reply_to.txt).
//
// Confirms and transactions:
//
//	confirm                     confirm.select: later publishes are confirmed (or nacked)
//	tx select | tx commit | tx rollback
//
// Channels and connections:
//
//	open CHANNEL [vhost=V]      open CHANNEL (in vhost V) and make it current
//	use CHANNEL                 make CHANNEL current (it opens on first use)
//	close [CHANNEL]             channel.close, the current channel by default
//	disconnect [CONNECTION]     close a connection (a channel name names its
//	                            connection), as a dropped socket does
//
// Time. Virtual time starts at 0s and moves only here; every timer that
// falls due fires at its own deadline, in (deadline, arming order) order:
//
//	advance DURATION            move time forward by DURATION
//	advance to TIME             move time to TIME (never backwards)
//	step [N]                    jump to the next N timer deadlines
//	run                         step until no timer is pending
//	restart [DOWNTIME]          stop the broker as a crash does and start it
//	                            again DOWNTIME later (none by default)
//	reload                      save the broker's whole state and load it
//	                            back (engine.Broker.Save, engine.Load)
//
// step prints "nothing scheduled" when there is no timer. run is bounded by
// Runner.MaxSteps (100000), so a timer that keeps re-arming is an error,
// not a hang, and so is step's N. advance, advance to and restart move the
// clock at most 100 years (engine.MaxAdvanceMs) at a time and never past
// engine.MaxTime: a longer move is an error and moves nothing, so virtual
// time never wraps.
//
// restart keeps what a RabbitMQ node keeps (engine.Broker.Restart):
// durable queues, exchanges and bindings, policies and vhosts, persistent
// messages in durable queues (every message in a quorum queue), held
// delayed messages; unacked deliveries come back redelivered. Connections
// are gone: each channel opens again on its next use. Timers that fell due
// during the downtime fire at the start.
//
// reload changes nothing, and shows it: a snapshot keeps the whole state,
// connections, consumers and every message property included, so what the
// script shows after it is what it showed before. Only a broker of the
// runner's own is reloaded, never a shared session's.
//
// Policies, in rabbitmqctl's syntax (flags also as --flag=value; -p and
// --vhost are the same):
//
//	set_policy [-p VHOST] NAME PATTERN DEFINITION [--priority N] [--apply-to queues|exchanges|all|classic_queues|quorum_queues]
//	set_operator_policy [-p VHOST] NAME PATTERN DEFINITION [--priority N] [--apply-to ...]
//	clear_policy [-p VHOST] NAME
//	clear_operator_policy [-p VHOST] NAME
//
// DEFINITION is a JSON object, usually single-quoted; its integers stay
// integers. apply-to defaults to all and priority to 0.
//
// Vhosts:
//
//	vhost add NAME
//	vhost delete NAME
//
// A channel works in another vhost once opened there: open c2 vhost=NAME.
//
// Show prints state; show lines do not count as "the previous command" for
// expect:
//
//	show queues                 every queue, its counts and effective arguments
//	show queue NAME             its ready messages, head first
//	show msg QUEUE INDEX        properties, headers and x-death of a ready message
//	show exchanges | show bindings | show consumers | show policies
//	show channels               modes, prefetch, reply-to and unacknowledged deliveries
//	show timers                 everything scheduled, soonest first
//	show next                   what the next step will do, and when
//	show time                   the virtual time
//	help [COMMAND]              every command by group; with COMMAND, its usage
//
// Expect asserts; a failure is a script error (KeyExpectationFailed, for
// which errors.Is(err, ErrExpectation) holds) and changes nothing:
//
//	expect queue NAME [FIELD=VALUE ...]
//	expect msg QUEUE INDEX [FIELD=VALUE ...]
//	expect error CODE|none
//	expect event KIND [FIELD=VALUE ...]
//	expect exists queue|exchange NAME
//	expect missing queue|exchange NAME
//	expect time DURATION
//	expect channel CHANNEL [FIELD=VALUE ...]
//	expect unacked CHANNEL TAG [FIELD=VALUE ...]
//	expect confirm CHANNEL TAG ack|nack
//	expect returned CHANNEL [FIELD=VALUE ...]
//
// Fields compare as text, as show prints them; a field a message lacks
// compares as "(absent)". expect queue knows ready, unacked, consumers,
// expired, bytes, messages (ready plus unacked), type and policy. expect msg
// looks at the INDEX-th ready message, 0 being the head, and knows body,
// id, exchange, routing-key, priority and expiration (0 and empty when
// absent), properties (the properties present, in AMQP's order:
// properties=headers,priority tells priority=0 sent from none), each other
// property when present, empty ones too (message-id, type, reply-to,
// correlation-id, content-type, content-encoding, app-id, user-id,
// cluster-id, delivery-mode, timestamp), redelivered, expired, expires-at, via (the binding that routed it there,
// as its enqueued event says) and alternate, header.NAME, x-death (the number of
// entries) and x-death.I.queue, .reason, .count, .time, .exchange,
// .routing-keys and .original-expiration. expect error checks the AMQP
// reply code of the previous command, and expect event that one of the
// previous command's events has KIND (an engine.EventKind word such as
// enqueued, expired or dead-lettered) and the given fields, named as in the
// trace: expect event dead-lettered q=q reason=expired.
//
// Those two look at the previous command only, so any other command run in
// between changes their answer; every other expect verb judges state, and
// gives the same answer until the state changes, which is what a lesson's
// check needs. expect channel judges an open channel's confirm, tx,
// prefetch, global-prefetch, consumers (a count), unacked, pending-tx
// (publishes and acks a transaction holds) and reply-to (its direct
// reply-to address, empty without a reply consumer); a closed or never opened
// channel has only open=false. expect unacked finds the delivery with
// delivery tag TAG awaiting its acknowledgement on CHANNEL and knows queue,
// consumer, redelivered, delivered-at and expect msg's message fields.
// expect confirm and expect returned judge what the channel's publisher
// was told, which the script keeps as a client would: how the broker
// confirmed the publish with delivery tag TAG (1 for the first publish
// after confirm), and whether a message came back with basic.return,
// matched on x, key, code and text and the message fields. The record
// lives as long as the channel and keeps the last 100 returns.
//
// A shared session's history replays exactly. Its participants' lines
// cannot simply run again (each ran in a script context of its own, and
// real AMQP clients and clock moves have no line), so the history is the
// engine command records the session's broker applied, entry by entry,
// from the state it started in:
//
//	history start SEQ STATE         replace the broker with the session's after entry SEQ
//	history entry SEQ [RECORD ...]  apply entry SEQ's engine command records, as the session did
//	history hash SEQ HASH           the state hash after entry SEQ must be HASH
//
// STATE (engine.Broker.Save) and each RECORD (engine.AppendCommand) are
// unpadded base64url; HASH is 16 hexadecimal digits (StateHash, the hash
// a session's pages compare). Entries apply one after another, without
// the Settle other lines end with; their AMQP exceptions print as any
// line's. A replay that differs from the session fails at the next
// history hash, saying after which entry. The server exports a session's
// history in this form, a comment before each entry saying who did what
// (GET /api/sessions/{id}/history); the playground opens it. A runner
// over a shared broker (NewOn) refuses the three verbs.
//
// # Errors
//
// There are two kinds. Script errors — parse errors, misuse such as a bad
// duration, and failed expectations — are returned by Exec; scenario files
// show them in the output as "script error: ...", the console as
// "error: ...". Each is an *Error: a stable key (ErrorKeys lists them all)
// and the named values its English text is made from, and for a failed
// comparison the fields that differ, so that a page can say the same in
// its reader's language. AMQP exceptions are not script errors but part of what
// happened: the trace shows the channel.closed (or connection.closed) event
// and then "error: CODE TEXT", and expect error can check the code. A text
// of several lines (rabbitmqctl's "Validation failed" and its reason)
// prints one line each, continuation lines indented by two spaces and
// blank ones left out; the closed event's text="..." shows it exactly. When
// the error closed a channel or connection, a "note:" line says so: the
// runner opens it again for the next command that uses it, as a client
// opens a new channel.
//
// # Output
//
// Exec returns one line per engine event, in the order the engine emitted
// them: the event kind, then field=value pairs in a fixed order, zero
// fields left out, and values containing spaces, quotes or = quoted as Go
// strings. Before the first event at a new virtual time comes an @TIME
// line; when time moves with nothing happening, the new time is printed
// alone. Connections and channels opening are not shown. Each event's
// fields are named for what they mean to that kind (engine.Event.String):
// an exchange's type=, a copy's expires= deadline, a binding's dest= and
// args=. An enqueued event says which binding routed the copy, via=: the
// binding's exchange and what matched, "x:*.orange.*" for a topic pattern,
// "x:KEY" for direct, "x" alone for fanout, "x:{ARGS}" for headers,
// "(default):QUEUE" for the default exchange, with alternate=true when the
// message got there through an alternate exchange. A message that reaches
// no queue and is not returned is shown dropped, with cause="routed to no
// queue", where RabbitMQ drops it silently. After the events
// comes the command's own output (show tables, get-empty, "deleted
// messages=N" ...) and the AMQP error line, if any:
//
//	> declare queue q ttl=5s
//	queue.declared ch=app q=q features="x-message-ttl=5000"
//	> publish q hello
//	published ch=app x="" key=q msg=1
//	enqueued q=q msg=1 via=(default):q expires=5s
//	> advance 6s
//	@5s
//	expired q=q msg=1
//
// # Scenario files
//
// Scenario files (engine/testdata/*.txt, in the style of
// cockroachdb/datadriven) hold cases:
//
//	# What this case shows. Comments before a case are kept.
//	new
//	declare queue q ttl=5s
//	publish q hello
//	advance 6s
//	----
//	queue.declared ch=app q=q features="x-message-ttl=5000"
//	published ch=app x="" key=q msg=1
//	enqueued q=q msg=1 via=(default):q expires=5s
//	@5s
//	expired q=q msg=1
//
// A case starts with a directive line: new runs on a fresh broker, run
// continues with the previous case's broker. Its input lines follow, up to
// a line that is exactly ----; then comes the expected output, up to a
// blank line or the end of the file, which is why output never contains a
// blank line. Inside the input, run is the verb again. ParseCases reads a
// file, RunCases runs its cases and FormatCases writes them back with new
// output: go test ./engine -run TestScenarios -rewrite regenerates every
// expectation, and the diff is what a reviewer reads.
package script
