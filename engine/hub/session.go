package hub

import (
	"warren/engine"
	"warren/engine/script"
)

// Config sets a session's broker and limits. A zero field takes the
// default named beside it.
type Config struct {
	// Engine configures the session's broker. RecordCommands is always
	// on (the log is made of its records). MaxQueuesPerVhost and
	// MaxMessagesPerVhost are the session's queue and message limits,
	// enforced by the engine as RabbitMQ enforces a vhost's limits (a
	// 406 for the declare or publish past them); they default to
	// DefaultMaxQueues and DefaultMaxMessages.
	Engine engine.Config
	// Clock is the clock mode the session starts in; Manual by default.
	Clock ClockMode
	// MaxParticipants bounds the browsers in the session at once.
	MaxParticipants int
	// ParticipantRate and ParticipantBurst bound each participant's
	// commands and clock messages: a token bucket refilled at Rate a
	// second and holding Burst.
	ParticipantRate, ParticipantBurst int
	// SessionRate and SessionBurst bound the same for all participants
	// together.
	SessionRate, SessionBurst int
	// MaxBytes bounds the message bytes the session's queues hold: while
	// they hold this many or more, publish lines are refused (a driver
	// checks AllowPublish for its AMQP clients). A publish below the limit
	// is taken whole, so the bytes may pass it by one publish.
	MaxBytes int64
	// IdleMs ends the session when no command or join has come for this
	// long (AMQP clients' actions count; the live clock's ticks do not).
	IdleMs int64
	// MaxLineBytes bounds a command line.
	MaxLineBytes int
	// MaxOutputBytes bounds the trace a command's result carries.
	MaxOutputBytes int
	// HashEvery puts the state hash on every HashEvery-th entry.
	HashEvery uint64
	// AMQP, when set, is the session's own login for real AMQP clients
	// (amqp.go), which editors' welcome messages carry.
	AMQP *AMQPLogin
	// SnapshotEvery bounds the log the hub keeps: after this many entries
	// past its snapshot it takes a new one, so a joiner gets a snapshot
	// and at most this many entries.
	SnapshotEvery int
}

// The defaults of Config's zero fields.
const (
	DefaultMaxParticipants  = 50
	DefaultParticipantRate  = 20
	DefaultParticipantBurst = 40
	DefaultSessionRate      = 100
	DefaultSessionBurst     = 200
	DefaultMaxQueues        = 1000
	DefaultMaxMessages      = 100_000
	DefaultMaxBytes         = 64 << 20
	DefaultIdleMs           = 60 * 60 * 1000
	DefaultMaxLineBytes     = 4096
	DefaultMaxOutputBytes   = 64 << 10
	DefaultHashEvery        = 32
	DefaultSnapshotEvery    = 256
)

func (c *Config) setDefaults() {
	setDefault(&c.MaxParticipants, DefaultMaxParticipants)
	setDefault(&c.ParticipantRate, DefaultParticipantRate)
	setDefault(&c.ParticipantBurst, DefaultParticipantBurst)
	setDefault(&c.SessionRate, DefaultSessionRate)
	setDefault(&c.SessionBurst, DefaultSessionBurst)
	setDefault(&c.Engine.MaxQueuesPerVhost, DefaultMaxQueues)
	setDefault(&c.Engine.MaxMessagesPerVhost, DefaultMaxMessages)
	setDefault(&c.MaxBytes, DefaultMaxBytes)
	setDefault(&c.IdleMs, DefaultIdleMs)
	setDefault(&c.MaxLineBytes, DefaultMaxLineBytes)
	setDefault(&c.MaxOutputBytes, DefaultMaxOutputBytes)
	setDefault(&c.HashEvery, DefaultHashEvery)
	setDefault(&c.SnapshotEvery, DefaultSnapshotEvery)
	if c.Clock == "" {
		c.Clock = Manual
	}
	c.Engine.RecordCommands = true
}

func setDefault[T int | int64 | uint64](p *T, v T) {
	if *p <= 0 {
		*p = v
	}
}

// Session is one shared session: the authoritative broker, its ordered
// log, the clock mode, the participants and the AMQP connections. It does
// no I/O and is not safe for concurrent use: one owner (a goroutine, a
// Durable Object) calls its methods, each with the current wall time in
// Unix milliseconds, and after each call takes what it produced with
// Ready. See the package comment for the driver's duties.
type Session struct {
	cfg Config
	b   *engine.Broker

	seq  uint64 // the last entry's number
	tail []Entry
	snap Snapshot // without Entries: tail is kept apart
	// hashes are the state hashes the hub knows, oldest first, at most
	// keptHashes.
	hashes []seqHash

	clock clockState

	parts    []*participant // in the order they joined
	nextID   ParticipantID
	conns    []Connection
	bucket   bucket
	activeMs int64 // the last command or join
	ended    *Error

	ready Ready
	recs  [][]byte
}

// ParticipantID names a participant in its session: 1, 2, ... in the
// order they joined, never reused.
type ParticipantID uint32

// Role is what a participant may do.
type Role string

// The roles.
const (
	// Editor runs commands and moves the clock.
	Editor Role = "editor"
	// ReadOnly watches: the hub refuses its commands and clock messages.
	ReadOnly Role = "read-only"
)

// participant is a joined browser and its own script context on the
// session's broker.
type participant struct {
	Participant
	runner *script.Runner
	bucket bucket
	// differed says a hash report of this participant already differed:
	// its later ones are refused but not reported again (ReportHash).
	differed bool
}

// seqHash is the state hash after entry seq.
type seqHash struct {
	seq  uint64
	hash uint64
}

// keptHashes bounds the hashes a session keeps for late reports.
const keptHashes = 16

// Ready is what the session produced since the last call to Ready, for
// the driver to act on, in order.
type Ready struct {
	// Messages are for participants' pages.
	Messages []Outgoing
	// Events are the broker's events, in order, whatever caused them: the
	// driver hands those of its AMQP connections' channels to them
	// (deliveries, confirms, closes), as it would with a broker of its own.
	Events []engine.Event
	// Entries are the entries the log gained, in order, whether or not
	// anyone is there to get them: what a driver stores to keep the
	// session's whole history (duty 6, History).
	Entries []Entry
	// Divergences are participants whose reported state hash differs from
	// the session's, for the driver to log with who sent them (see
	// Divergence: a report is a page's word, not the hub's finding).
	Divergences []Divergence
	// Ended is set once, when the session ends, with the reason; every
	// participant has an "ended" message in Messages. The driver closes
	// the sockets and the AMQP connections (320) and drops the session.
	Ended *Error
}

// Outgoing is one message for one participant.
type Outgoing struct {
	To  ParticipantID
	Msg *Message
}

// Divergence is a participant's report that its replica's state hash
// differs from the session's. What the report is for: a page applies
// every entry to its own engine and compares the hashes entries carry
// itself (live.js), and its report tells the server's operator what the
// page saw, so that a replica bug in someone's browser is not lost. What
// it is not: the hub's own check. The hub never sees a page's state, only
// the hash the page chose to send, and any participant, editor or
// read-only, can send a made-up one; so a driver logs a Divergence as the
// participant's claim, with its id, name, role and source address, and
// never as a proven bug. The hub reports each participant's first
// differing hash only, so that one page cannot flood the log.
type Divergence struct {
	Participant Participant
	Seq         uint64
	Got, Want   uint64
}

// New returns a session whose clock starts at nowMs, in cfg.Clock's mode.
func New(cfg Config, nowMs int64) *Session {
	cfg.setDefaults()
	s := &Session{cfg: cfg, b: engine.New(cfg.Engine), nextID: 1, activeMs: nowMs}
	s.bucket = newBucket(cfg.SessionRate, cfg.SessionBurst, nowMs)
	s.clock.set(cfg.Clock, nowMs, s.b.Now())
	s.takeSnapshot()
	return s
}

// Ready returns what the session produced since the last call, and
// forgets it.
func (s *Session) Ready() Ready {
	r := s.ready
	s.ready = Ready{}
	return r
}

// Broker returns the session's broker, for reading (listings for the
// management API, a driver's AMQP bookkeeping). Change it only through
// Apply and the hub's other methods.
func (s *Session) Broker() *engine.Broker { return s.b }

// Seq returns the number of the log's last entry (0 before the first).
func (s *Session) Seq() uint64 { return s.seq }

// Ended returns why the session ended, or nil while it runs.
func (s *Session) Ended() *Error { return s.ended }

// Limits returns the session's limits.
func (s *Session) Limits() Limits {
	c := &s.cfg
	return Limits{
		MaxParticipants: c.MaxParticipants, ParticipantRate: c.ParticipantRate, SessionRate: c.SessionRate,
		MaxQueues: c.Engine.MaxQueuesPerVhost, MaxMessages: c.Engine.MaxMessagesPerVhost, MaxBytes: c.MaxBytes,
		IdleMs: c.IdleMs, MaxLineBytes: c.MaxLineBytes,
	}
}

// send queues m for participant to.
func (s *Session) send(to ParticipantID, m *Message) {
	s.ready.Messages = append(s.ready.Messages, Outgoing{To: to, Msg: m})
}

// broadcast queues m for every participant.
func (s *Session) broadcast(m *Message) {
	for _, p := range s.parts {
		s.send(p.ID, m)
	}
}

// find returns the participant id, or nil.
func (s *Session) find(id ParticipantID) *participant {
	for _, p := range s.parts {
		if p.ID == id {
			return p
		}
	}
	return nil
}
