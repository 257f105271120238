package hub

import (
	"sort"

	"warren/engine/script"
)

// Error is a hub error as data, like engine/script's: a stable Key and the
// named values its text is made from. Error renders the English text from
// the key's template; a page in another language renders the same key and
// values from its own catalog, which is why the text is never built any
// other way.
type Error struct {
	Key  string
	Args map[string]string
}

// The keys of hub errors. Each template names its values in braces.
const (
	// Joining.
	KeySessionFull = "sessionFull"
	KeyBadName     = "badName"
	KeyBadRole     = "badRole"
	KeyNotJoined   = "notJoined"
	KeyJoinedTwice = "joinedTwice"

	// Commands and the clock.
	KeyReadOnly           = "readOnly"
	KeyRateLimited        = "rateLimited"
	KeySessionRateLimited = "sessionRateLimited"
	KeySessionBytes       = "sessionBytes"
	KeyLineTooLong        = "lineTooLong"
	KeyClockNotManual     = "clockNotManual"
	KeyBadClockMode       = "badClockMode"
	KeyBadClockRequest    = "badClockRequest"
	KeyClockRange         = "clockRange"

	// The protocol.
	KeyBadMessage  = "badMessage"
	KeyUnknownType = "unknownType"
	KeyMessageSize = "messageSize"

	// State hashes.
	KeyDivergence = "divergence"
	KeyStaleHash  = "staleHash"
	KeyBadHash    = "badHash"

	// The end of a session: the reason an "ended" message gives, and the
	// error every later input gets.
	KeyEnded    = "ended"
	KeyIdle     = "idle"
	KeyShutdown = "shutdown"
	KeyClosed   = "closed"

	// Seeding a new session (Seed).
	KeySeedTooLong = "seedTooLong"
	KeySeedLine    = "seedLine"

	// Creating a session (the drivers' POST /api/sessions).
	KeyTooManySessions = "tooManySessions"
	KeyAddrSessions    = "addrSessions"
	KeyAddrCreateRate  = "addrCreateRate"
	KeyStopping        = "stopping"

	// Refused before any endpoint sees the request (server/httpguard):
	// a change sent by a page of another site, a body that is not JSON.
	KeyCrossSite = "crossSite"
	KeyNotJSON   = "notJSON"

	// Why a page's socket was closed, in its close reason (CloseReason).
	KeyNoSession = "noSession"
	KeyTooSlow   = "tooSlow"
	KeyJoinFirst = "joinFirst"
	KeyNoJoin    = "noJoin"
	KeyTextOnly  = "textOnly"
	KeyPageGone  = "pageGone"
)

var errorTemplates = map[string]string{
	KeySessionFull: "the session is full: it has its limit of {max} participants",
	KeyBadName:     "a name is 1 to {max} characters without control characters, got {name}",
	KeyBadRole:     "unknown role {role} (use editor or read-only)",
	KeyNotJoined:   "participant {id} is not in this session",
	KeyJoinedTwice: "this participant has already joined",

	KeyReadOnly:           "{name} joined read-only: a read-only participant watches, and cannot run commands or move the clock",
	KeyRateLimited:        "too many commands: each participant may send {rate} a second (bursts of {burst}); wait a moment",
	KeySessionRateLimited: "the session is busy: it takes {rate} commands a second from everyone together (bursts of {burst}); wait a moment",
	KeySessionBytes:       "the session's queues hold {bytes} bytes of messages, at its limit of {max}: consume, purge or delete before publishing more",
	KeyLineTooLong:        "a command line may be {max} bytes at most, this one has {bytes}",
	KeyClockNotManual:     "the clock is {mode}: only a manual clock is stepped or advanced (switch it to manual first)",
	KeyBadClockMode:       "unknown clock mode {mode} (use live, paused or manual)",
	KeyBadClockRequest:    "a clock message sets exactly one of mode, advanceMs (above 0) and step",
	KeyClockRange:         "the clock moves forward by at most {max} at a time, and never past {end}: cannot advance {advance} from {now}",

	KeyBadMessage:  "cannot read the message: {detail}",
	KeyUnknownType: "unknown message type {type} (use command, clock or hash)",
	KeyMessageSize: "a message may be {max} bytes at most, this one has {bytes}",

	KeyDivergence: "your broker has diverged from the session's: at entry {seq} its state hash is {got}, the session's is {want}; this is a bug, please report it, and reload the page to rejoin",
	KeyStaleHash:  "the session keeps no state hash for entry {seq} (the oldest hash it keeps is of entry {from}, the newest of entry {to}): report the hash of an entry that carries one, or of the latest",
	KeyBadHash:    "a state hash is 16 hexadecimal digits, got {hash}",

	KeyEnded:    "the session has ended",
	KeyIdle:     "the session ended: no one ran a command for {idle}",
	KeyShutdown: "the session ended: the server is shutting down",
	KeyClosed:   "the session ended: it was closed",

	KeySeedTooLong: "a session starts from {max} lines at most, the page's log has {lines}",
	KeySeedLine:    "line {n} of the page's log cannot start a session: {reason}",

	KeyTooManySessions: "the server runs its limit of {max} sessions: end one (DELETE its /api/sessions URL) or wait for an idle one to end",
	KeyAddrSessions:    "your address {addr} runs its limit of {max} sessions: end one (DELETE its /api/sessions URL) or wait for an idle one to end",
	KeyAddrCreateRate:  "your address {addr} has created its limit of {rate} sessions a minute: wait a moment",
	KeyStopping:        "the server is shutting down",

	KeyCrossSite: "refused: a page of another site ({from}) may not change anything here; Warren takes changes only from its own pages ({own}) and from clients that are not browsers",
	KeyNotJSON:   "the body must be JSON, sent with Content-Type: application/json (this request's Content-Type is \"{type}\")",

	KeyNoSession: "no session has this id (it may have ended)",
	KeyTooSlow:   "too slow: the page fell too far behind the session; reload to rejoin",
	KeyJoinFirst: "the first message must be a join",
	KeyNoJoin:    "no join message came",
	KeyTextOnly:  "the session protocol is JSON text messages",
	KeyPageGone:  "the session no longer has this page: join again",
}

// NewError returns an error of key with its arguments given as name,
// value pairs: the hub's own, and what the drivers refuse on their own
// (creating a session, KeyTooManySessions, KeyAddrSessions,
// KeyAddrCreateRate and KeyStopping; any change, KeyCrossSite and
// KeyNotJSON; a page's
// socket, KeyNoSession and the keys after it). An unknown key panics.
func NewError(key string, nameValues ...string) *Error {
	if _, ok := errorTemplates[key]; !ok || len(nameValues)%2 != 0 {
		panic("hub: bad error " + key) // programmer error
	}
	e := &Error{Key: key}
	if len(nameValues) > 0 {
		e.Args = make(map[string]string, len(nameValues)/2)
		for i := 0; i < len(nameValues); i += 2 {
			e.Args[nameValues[i]] = nameValues[i+1]
		}
	}
	return e
}

// Error renders the English text.
func (e *Error) Error() string {
	return script.Fill(errorTemplates[e.Key], func(name string) string { return e.Args[name] })
}

// MaxCloseReason is the longest close reason WebSocket allows (RFC 6455:
// a control frame's 125 bytes less the status code's 2).
const MaxCloseReason = 123

// CloseReason is the close reason of a page's socket closed for e: its
// key, a colon and a space, then its English text, cut to MaxCloseReason
// bytes on a UTF-8 boundary. Why the key: a close frame is the last
// thing a page hears, and it carries one string; a page reads the key in
// front and says the reason in its reader's language from its catalog,
// while a tool that is not a page still reads English.
func CloseReason(e *Error) string {
	text := e.Key + ": " + e.Error()
	if len(text) <= MaxCloseReason {
		return text
	}
	cut := MaxCloseReason
	for cut > 0 && text[cut]&0xC0 == 0x80 {
		cut--
	}
	return text[:cut]
}

// ErrorKeys returns every key a hub error can have, sorted: what a
// catalog that translates them must cover.
func ErrorKeys() []string {
	keys := make([]string, 0, len(errorTemplates))
	for k := range errorTemplates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ErrorTemplate returns the English template of key ("" for a key that is
// not one).
func ErrorTemplate(key string) string { return errorTemplates[key] }
