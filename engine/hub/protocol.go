package hub

import (
	"errors"
	"warren/engine/script"
)

// The browser protocol: JSON text messages over one WebSocket per
// participant, each an object whose "type" says what it is. PROTOCOL.md
// describes it with examples; these types are its definition.

// Inbound is a message from a participant's page. Which fields count
// depends on Type:
//
//	join     Name (sent first; the driver calls Session.Join with the role
//	         the link it came by grants)
//	command  Ref, Line: a script line, run on the session's broker
//	clock    Ref and exactly one of Mode, AdvanceMs, Step
//	hash     Seq, Hash: the page's state hash after applying entry Seq
type Inbound struct {
	Type      string `json:"type"`
	Ref       string `json:"ref,omitempty"`
	Name      string `json:"name,omitempty"`
	Line      string `json:"line,omitempty"`
	Mode      string `json:"mode,omitempty"`
	AdvanceMs int64  `json:"advanceMs,omitempty"`
	Step      bool   `json:"step,omitempty"`
	Seq       uint64 `json:"seq,omitempty"`
	Hash      string `json:"hash,omitempty"`
}

// The types of inbound messages.
const (
	InJoin    = "join"
	InCommand = "command"
	InClock   = "clock"
	InHash    = "hash"
	// InPing is a page saying it is still there. The hub does nothing
	// with it: warren serve pings pages itself, and the edge's session
	// object answers it without waking (docs/edge.md), which is how it
	// tells a page whose network died from one that only watches.
	InPing = "ping"
)

// Message is a message to a participant's page. Type says which of the
// other fields it carries:
//
//	welcome  You, Snapshot, Presence, Clock, Limits, and for an editor
//	         AMQP (the session's login for real clients): the first
//	         message after a join
//	entry    Entry: the next entry of the session's log
//	presence Presence: who is here now, after any join or leave
//	result   Ref, Result: what the participant's own command or clock
//	         message did
//	error    Ref (if a message caused it), Error
//	ended    Error: why the session ended; nothing follows
//
// One *Message is often addressed to every participant (an entry): a
// driver may encode it once and send the bytes to each.
type Message struct {
	Type     string       `json:"type"`
	Ref      string       `json:"ref,omitempty"`
	You      *Participant `json:"you,omitempty"`
	Snapshot *Snapshot    `json:"snapshot,omitempty"`
	Presence *Presence    `json:"presence,omitempty"`
	Clock    ClockMode    `json:"clock,omitempty"`
	Limits   *Limits      `json:"limits,omitempty"`
	AMQP     *AMQPLogin   `json:"amqp,omitempty"`
	Entry    *Entry       `json:"entry,omitempty"`
	Result   *Result      `json:"result,omitempty"`
	Error    *ErrorInfo   `json:"error,omitempty"`
}

// The types of messages to pages.
const (
	OutWelcome  = "welcome"
	OutEntry    = "entry"
	OutPresence = "presence"
	OutResult   = "result"
	OutError    = "error"
	OutEnded    = "ended"
)

// Snapshot is what a joining page starts from: the broker's state as
// engine.Broker.Save wrote it after entry Seq (base64 in JSON), then the
// entries after it, in order. Loading State and applying Entries gives
// the session's broker at its latest entry (see Replica).
type Snapshot struct {
	Seq     uint64  `json:"seq"`
	State   []byte  `json:"state"`
	Entries []Entry `json:"entries"`
}

// Entry is one entry of the session's log: one input and the engine
// command records it produced (base64 in JSON), which every replica
// applies in order with engine.DecodeCommand and engine.Broker.Apply.
// Clock is set on an entry that changed the clock mode (it has no
// records). NowMs is the broker's time after the entry. Hash, at every
// Config.HashEvery-th entry, is the state hash after it (16 hexadecimal
// digits, see HashState), for the page to compare and report.
type Entry struct {
	Seq     uint64    `json:"seq"`
	Origin  Origin    `json:"origin"`
	Records [][]byte  `json:"records,omitempty"`
	Clock   ClockMode `json:"clock,omitempty"`
	NowMs   int64     `json:"nowMs"`
	Hash    string    `json:"hash,omitempty"`
}

// Origin says what caused an entry, for pages to show it.
type Origin struct {
	// Kind is one of the Origin kinds below.
	Kind string `json:"kind"`
	// Participant and Name are the participant's, for OriginParticipant
	// and OriginLeave.
	Participant ParticipantID `json:"participant,omitempty"`
	Name        string        `json:"name,omitempty"`
	// Line is the script line the participant ran ("advance 30s" for a
	// clock message that moved time, "clock manual" for a mode switch).
	Line string `json:"line,omitempty"`
	// Connection is the AMQP connection's id, for OriginAMQP (see
	// Connection).
	Connection string `json:"connection,omitempty"`
}

// The kinds of origins.
const (
	// OriginParticipant is a participant's command or clock message.
	OriginParticipant = "participant"
	// OriginLeave closes the connections of a participant who left.
	OriginLeave = "leave"
	// OriginAMQP is what a real AMQP client's connection did.
	OriginAMQP = "amqp"
	// OriginClock is the live clock's move (Session.Tick).
	OriginClock = "clock"
	// OriginServer is the driver acting for the server itself: a mode set
	// through its API, a shutdown.
	OriginServer = "server"
)

// Result is what a participant's command did: Seq is its entry (0 when
// it changed nothing: a show or expect line, a parse error), Output the
// runner's text (the trace as the playground prints it, with the line's
// AMQP error if any), and Error a script error (parse error, misuse,
// failed expect).
type Result struct {
	Seq       uint64     `json:"seq,omitempty"`
	Output    string     `json:"output"`
	Truncated bool       `json:"truncated,omitempty"`
	Error     *ErrorInfo `json:"error,omitempty"`
}

// ErrorInfo is an error as a page shows it: its stable key, its named
// values and its English text. Script says that the key is a script error's
// (engine/script's catalog) rather than the hub's.
type ErrorInfo struct {
	Key    string            `json:"key"`
	Args   map[string]string `json:"args,omitempty"`
	Text   string            `json:"text"`
	Script bool              `json:"script,omitempty"`
	// Mismatches and Cause complete a script error as the playground's
	// bridge gives one (its errorDetail), so that a page says it in its
	// reader's language whole: the fields a failed expect found
	// different, and the error it wraps.
	Mismatches []script.Mismatch `json:"mismatches,omitempty"`
	Cause      *ErrorInfo        `json:"cause,omitempty"`
}

// Presence is who is in the session: its participants in the order they
// joined, and the AMQP connections the driver registered, in the order
// they opened.
type Presence struct {
	Participants []Participant `json:"participants"`
	Connections  []Connection  `json:"connections"`
}

// Participant is one browser in the session.
type Participant struct {
	ID   ParticipantID `json:"id"`
	Name string        `json:"name"`
	Role Role          `json:"role"`
}

// Connection is a real AMQP client's connection to the session's broker.
type Connection struct {
	// ID is the driver's name for it, unique in the session; entries it
	// causes carry it in Origin.Connection.
	ID      string `json:"id"`
	Client  string `json:"client,omitempty"`
	Address string `json:"address,omitempty"`
	User    string `json:"user,omitempty"`
}

// Limits are the session's limits, as the welcome message tells a page.
type Limits struct {
	MaxParticipants int   `json:"maxParticipants"`
	ParticipantRate int   `json:"participantRate"`
	SessionRate     int   `json:"sessionRate"`
	MaxQueues       int   `json:"maxQueues"`
	MaxMessages     int64 `json:"maxMessages"`
	MaxBytes        int64 `json:"maxBytes"`
	IdleMs          int64 `json:"idleMs"`
	MaxLineBytes    int   `json:"maxLineBytes"`
}

// info renders err for a page: a hub *Error or a script *script.Error.
func info(err error) *ErrorInfo {
	var he *Error
	if errors.As(err, &he) {
		return &ErrorInfo{Key: he.Key, Args: he.Args, Text: he.Error()}
	}
	var se *script.Error
	if errors.As(err, &se) {
		return scriptInfo(se)
	}
	panic("hub: an error that is neither a hub nor a script error: " + err.Error()) // programmer error
}

// scriptInfo renders a script error with its mismatches and cause.
func scriptInfo(se *script.Error) *ErrorInfo {
	i := &ErrorInfo{Key: se.Key, Args: se.Args, Text: se.Error(), Script: true, Mismatches: se.Mismatches}
	if se.Cause != nil {
		i.Cause = scriptInfo(se.Cause)
	}
	return i
}

// ErrorMessage returns the message that tells a page err, which is a hub
// *Error (as Join returns): what a driver sends to a page it could not
// join.
func ErrorMessage(err error) *Message { return &Message{Type: OutError, Error: info(err)} }
