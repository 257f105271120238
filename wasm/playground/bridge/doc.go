// Package bridge is the browser playground's whole logic, as plain Go: a
// Session runs script lines (engine/script) against one engine.Broker and
// answers in JSON-ready structs. The wasm main in wasm/playground only
// converts JavaScript arguments and hands Call's JSON to JSON.parse, so
// everything here is tested natively and again under GOOS=js.
//
// The bridge holds no engine logic. Every change of state, time moves
// included, is a script line run by the script.Runner, because the runner
// keeps its own state (channel names, the last delivery tag, the last AMQP
// error) that a direct call into the broker would leave behind. Hence:
//
//  1. The log is the session. Log returns every line the runner accepted,
//     in order; Replay of that log on a fresh session gives the same state
//     and the same events, byte for byte, because the engine is
//     deterministic and the session always starts from the same Config
//     (seed 1, clock at 0, as engine/testdata's scenarios do). This is what
//     time travel (Replay up to line k) and share links use. A shared
//     session's exported history is such a log too: its history start
//     line loads the session's state, whatever the Config (history.go).
//  2. AdvanceBy, AdvanceTo and Step are written into the log as the script
//     lines "advance 2s" and "advance to 5s"; Step is "advance to" the next
//     deadline, which is what engine.Broker.Step does.
//  3. Events reach the bridge as the runner's trace (the text Exec returns,
//     documented in engine/script's package comment: one line per event,
//     "kind key=value ...", with an "@TIME" line whenever the clock moved)
//     and are read back into Event structs; see trace.go for why.
//  4. Nothing is unbounded: a line's length, the log, the events and output
//     one call returns, and the messages, timers and body bytes a snapshot
//     shows all have a limit (the Max constants). A result that hit one
//     says so (eventsTruncated, outputTruncated, readyCount > len(ready),
//     timerCount > len(timers), ...).
//  5. A script error comes twice: error, its English text, and
//     errorDetail, the same as a key and named values (errors.go), which
//     the page says in its reader's language. Only what a bug in the page
//     causes (a call with wrong arguments, a time move out of range, check
//     lines that are not expect lines) is answered in English alone.
//
// # JSON shapes
//
// Every type here marshals with encoding/json to camelCase keys. Times are
// virtual milliseconds since the session started (int64, exact in
// JavaScript up to MaxTimeMs); a deadline that never comes is null. Slices
// are never null, so JavaScript can iterate without checks. Field tables
// (arguments, headers, policy definitions) become objects whose values are
// numbers, strings, booleans, arrays, objects or null; a timestamp is its
// number of seconds, a decimal and a non-finite float their text.
//
//	Result        {line, logged, output, outputTruncated?, error?, errorDetail?:ErrorDetail, amqpError?:AMQPError,
//	               events:[Event], eventsTruncated?, now, fired?:[Timer], firedCount?, help?:HelpOverview}
//	ErrorDetail   {key, args?:{name: text}, mismatches?:[{field, got, want, absent?}], cause?:ErrorDetail}
//	HelpOverview  {groups:[{key, title, verbs:[string]}], more}
//	AMQPError     {code, text, closed?}
//	Event         {kind, time, vhost, channel?, exchange?, queue?, name?, routingKey?, msgId?, newMsgId?,
//	               consumer?, deliveryTag?, multiple?, redelivered?, noAck?, reason?, code?, text?, count?, at?,
//	               type?, features?, destination?, destinationType?, argsText?, policy?, operatorPolicy?,
//	               priority?, remaining?, deliveries?, overflow?, cause?, expiresAt?, releaseAt?, via?:Via, trace}
//	Via           {exchange, type, key, args?, argsText?, alternate?, text}
//	Timer         {at, kind, vhost, queue?, exchange?, channel?, msgId?}
//	ReplayResult  {now, results:[Result], error?, errorDetail?}
//	CheckResult   {passed, lines:[{line, error?, errorDetail?}]}
//	LiveResult    Result + {seq, clock, hash?, diverged?}  (a shared session's entry; live.go)
//	LiveHash      {seq, hash}
//	StateHash     {hash, history?, live?, seq?}  (the page's state hash; history.go)
//	Snapshot      {now, vhosts:[Vhost], timers:[Timer], timerCount}
//	Vhost         {name, exchanges, bindings, queues, policies, operatorPolicies, connections}
//	Queue         {name, type, durable, exclusive, autoDelete, args, effective:Settings, readyCount, readyBytes,
//	               ready:[ReadyMessage], unacked, expired, consumers:[Consumer]}
//	ReadyMessage  Message + {via:Via|null, enqueuedAt, expiresAt, priority, redelivered, deliveries, expired}
//	Message       {id, body, bodyBytes, bodyTruncated?, exchange, routingKey, properties, headers, headersText}
//
// See each type for its fields. Call is the JavaScript entry point: it
// takes a method name from Methods and plain arguments and returns JSON.
package bridge
