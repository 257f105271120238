// Package sessions is the driver of the shared-session hub
// (warren/engine/hub): on `warren serve` it owns the sessions of one
// server, each an isolated broker with its own hub.Session, and connects
// pages to them over WebSocket; at the edge each session's Durable Object
// runs one of them through Host (host.go), so both homes run this code.
//
// Each session is owned by one goroutine (session.run) that alone calls its
// hub.Session: it selects over the messages its sockets read, one timer
// armed from NextWakeMs, and a stop channel, and after every call acts on
// Ready as the hub's doc.go lists the driver's duties: every Outgoing
// message goes to its socket's writer, every Divergence is logged as its
// participant's report with its role and source address (hashreport.go),
// and Ended closes the sockets and drops the session, freeing its ids.
//
// Each socket (socket.go) has a reader, the HTTP handler's goroutine,
// which passes every message to the session's goroutine, and a writer
// with a bounded queue: a page that cannot keep up is dropped, with a
// close reason that says so, rather than hold up the session and every
// other page.
//
// The HTTP side (api.go) is POST /api/sessions to create a session (no
// credentials: the playground's pages create them; the server's session
// limit bounds them), GET /api/sessions to list them (administrator tag,
// checked as the management API checks it: the list shows every
// session's ids), DELETE /api/sessions/{id} to end one (the editor id is
// the capability), and GET /ws/sessions/{id} to join one, as an editor by
// its id or read-only by its read-only id.
//
// Real AMQP clients join a session's broker with its own login
// (amqp.go), GET/POST /api/sessions/{id}/clock reads and moves a
// session's clock (clock.go), and each session's goroutine keeps its
// whole log, within bounds, which GET /api/sessions/{id}/history exports
// as a script the playground replays to the session's state (history.go).
package sessions
