package bridge

import (
	"fmt"
	"strconv"
	"strings"

	"warren/engine"
	"warren/engine/script"
)

// engineConfig is every session's broker configuration: seed 1 and the
// clock at 0, as in engine/testdata's scenarios, so that a lesson's trace
// and the playground's agree, and so that a log replays exactly.
var engineConfig = engine.Config{Seed: 1}

// Session is one playground: a script.Runner over a broker, and the log of
// the lines it ran. It is not safe for concurrent use; the browser's one
// JavaScript thread owns it.
type Session struct {
	r   *script.Runner
	log []string
	// live is the shared session the page replicates, or nil (live.go).
	live *live
}

// Result is what one line did.
type Result struct {
	// Line is the script line that ran: as typed for Exec, "advance 2s" or
	// "advance to 5s" for the time moves. Logged says whether it entered
	// the log (every line the script language parses does, even one that
	// then fails, so that a replay fails the same way).
	Line   string `json:"line"`
	Logged bool   `json:"logged"`
	// Output is the runner's text: the trace, then the AMQP error line
	// ("error: 404 NOT_FOUND - ..."; a several-line text continues on
	// indented lines), a "note:" line when the error closed the channel or
	// connection, and the verb's own output.
	Output          string `json:"output"`
	OutputTruncated bool   `json:"outputTruncated,omitempty"`
	// Error is a script error: a parse error, misuse, or a failed expect,
	// or the bridge's refusal of the line; in English. ErrorDetail is the
	// same as data, for the page to say in its reader's language. AMQP
	// exceptions are not script errors; they are channel.closed or
	// connection.closed events and an "error:" line in Output.
	Error       string       `json:"error,omitempty"`
	ErrorDetail *ErrorDetail `json:"errorDetail,omitempty"`
	// AMQPError is the AMQP exception the line raised, if any: the reply
	// code and text exactly as RabbitMQ sends them (Output prints a
	// several-line text readably), and which the broker closed for it,
	// "channel" or "connection" ("" for a rabbitmqctl-style command, which
	// closes nothing). The script reopens what was closed on the next line
	// that uses it.
	AMQPError       *AMQPError `json:"amqpError,omitempty"`
	Events          []Event    `json:"events"`
	EventsTruncated bool       `json:"eventsTruncated,omitempty"`
	// Now is the virtual time after the line.
	Now int64 `json:"now"`
	// Fired lists, for Step, the first MaxTimersShown timers that were due
	// at the deadline it jumped to (Now), and FiredCount counts them all.
	// Their consequences are in Events.
	Fired      []Timer `json:"fired,omitempty"`
	FiredCount int     `json:"firedCount,omitempty"`
	// Help is, for the line "help", the overview Output prints, as data:
	// the page titles its groups in the reader's language.
	Help *HelpOverview `json:"help,omitempty"`
}

// HelpOverview is the help overview: each group of commands, in order,
// and the line that says how to ask about one command (script.HelpMore).
type HelpOverview struct {
	Groups []HelpGroup `json:"groups"`
	More   string      `json:"more"`
}

// HelpGroup is one group of the overview: its stable key, its English
// title and its commands.
type HelpGroup struct {
	Key   string   `json:"key"`
	Title string   `json:"title"`
	Verbs []string `json:"verbs"`
}

func helpOverview() *HelpOverview {
	h := &HelpOverview{Groups: []HelpGroup{}, More: script.HelpMore}
	for _, g := range script.HelpOverview() {
		h.Groups = append(h.Groups, HelpGroup(g))
	}
	return h
}

// AMQPError is an AMQP exception a line raised.
type AMQPError struct {
	Code   int    `json:"code"`
	Text   string `json:"text"`
	Closed string `json:"closed,omitempty"` // "channel", "connection" or absent
}

// closedBy says what an error closed: the connection if one closed with an
// error code, else the channel, else nothing.
func closedBy(evs []engine.Event) string {
	closed := ""
	for _, e := range evs {
		switch {
		case e.Code == engine.ReplySuccess:
		case e.Kind == engine.EvConnectionClosed:
			return "connection"
		case e.Kind == engine.EvChannelClosed:
			closed = "channel"
		}
	}
	return closed
}

// ReplayResult is what Replay did: each line's Result, in order.
type ReplayResult struct {
	Now     int64    `json:"now"`
	Results []Result `json:"results"`
	// Error says why nothing was replayed (the session is then unchanged),
	// and ErrorDetail says it as data, as in Result.
	Error       string       `json:"error,omitempty"`
	ErrorDetail *ErrorDetail `json:"errorDetail,omitempty"`
}

// New returns a session over a fresh broker.
func New() *Session {
	s := &Session{}
	s.Reset()
	return s
}

// Reset starts over: a fresh broker at time 0 and an empty log, out of
// any shared session.
func (s *Session) Reset() {
	s.r = script.New(engineConfig)
	s.r.MaxTraceBytes = MaxOutputBytes
	s.log = nil
	s.live = nil
}

// Now returns the virtual time.
func (s *Session) Now() int64 { return int64(s.r.B.Now()) }

// Log returns a copy of the lines run so far; replaying it reproduces the
// session.
func (s *Session) Log() []string { return append(make([]string, 0, len(s.log)), s.log...) }

// Exec runs one script line (see engine/script for the language). A blank
// or comment line does nothing; a line that does not parse changes nothing
// and is not logged.
func (s *Session) Exec(line string) Result {
	if s.live != nil {
		return s.errLive("exec")
	}
	return s.exec(line, resultBudget())
}

func (s *Session) exec(line string, b *budget) Result {
	res := Result{Line: line, Events: []Event{}, Now: s.Now()}
	switch {
	case len(line) > lineLimit(line):
		res.Error, res.ErrorDetail = refusal(KeyLineTooLong, map[string]string{"bytes": strconv.Itoa(len(line)), "limit": strconv.Itoa(lineLimit(line))})
		return res
	case strings.ContainsAny(line, "\r\n"):
		res.Error, res.ErrorDetail = refusal(KeyLineBreak, nil)
		return res
	}
	c, err := script.Parse(line)
	if err != nil {
		res.Error, res.ErrorDetail = err.Error(), detailOf(err)
		return res
	}
	if c == nil {
		return res
	}
	if len(s.log) >= MaxLogLines {
		res.Error, res.ErrorDetail = refusal(KeyLogFull, map[string]string{"limit": strconv.Itoa(MaxLogLines)})
		return res
	}
	out, err := s.r.ExecCommand(c)
	s.log = append(s.log, c.Line)
	res.Line, res.Logged, res.Now = c.Line, true, s.Now()
	if err != nil {
		res.Error, res.ErrorDetail = err.Error(), detailOf(err)
	} else if c.Verb == "help" && len(c.Args) == 0 {
		res.Help = helpOverview()
	}
	if e := s.r.LineError(); e != nil {
		res.AMQPError = &AMQPError{Code: e.Code, Text: e.Text, Closed: closedBy(s.r.LastEvents())}
	}
	if !readOnly(c.Verb) {
		// show output can look like a trace ("@5s message-ttl q=q"), and
		// show, expect and help never change anything.
		res.Events, res.EventsTruncated = eventsOf(s.r, b)
	}
	res.Output, res.OutputTruncated = b.output(out)
	res.OutputTruncated = res.OutputTruncated || s.r.TraceCut()
	return res
}

func readOnly(verb string) bool {
	return verb == "help" || strings.HasPrefix(verb, "show") || strings.HasPrefix(verb, "expect")
}

// AdvanceBy moves virtual time forward by ms, firing what falls due; it is
// logged as "advance DURATION".
func (s *Session) AdvanceBy(ms int64) Result {
	if s.live != nil {
		return s.errLive("advanceBy")
	}
	if ms < 0 || ms > MaxTimeMs-s.Now() {
		return s.refused(fmt.Sprintf("advanceBy: %d ms is out of range: time runs forward, up to %d ms", ms, int64(MaxTimeMs)))
	}
	return s.Exec("advance " + engine.FormatDuration(ms))
}

// AdvanceTo moves virtual time forward to ms, firing what falls due; it is
// logged as "advance to TIME".
func (s *Session) AdvanceTo(ms int64) Result {
	if s.live != nil {
		return s.errLive("advanceTo")
	}
	if ms < s.Now() || ms > MaxTimeMs {
		return s.refused(fmt.Sprintf("advanceTo: %d ms is out of range: time runs forward from now (%d ms), up to %d ms", ms, s.Now(), int64(MaxTimeMs)))
	}
	res := s.Exec("advance to " + engine.FormatDuration(ms))
	if res.Error == "" && res.Now != ms {
		panic(fmt.Sprintf("bridge: advance to %s reached %d ms, not %d: FormatDuration and the script's durations disagree",
			engine.FormatDuration(ms), res.Now, ms))
	}
	return res
}

// Step jumps to the next deadline and fires everything due then, as
// engine.Broker.Step does; it is logged as "advance to TIME". Result.Fired
// lists the timers that were due. With nothing scheduled it does nothing
// and logs nothing.
func (s *Session) Step() Result {
	if s.live != nil {
		return s.errLive("step")
	}
	at, ok := s.r.B.NextDeadline()
	if !ok {
		return Result{Output: "nothing scheduled\n", Events: []Event{}, Now: s.Now()}
	}
	at = max(at, s.r.B.Now())
	due, count := s.r.B.TimersUntil(at, MaxTimersShown)
	names := s.namesFor(due)
	res := s.AdvanceTo(int64(at))
	if res.Error == "" {
		res.Fired, res.FiredCount = timersJSON(due, names), count
	}
	return res
}

// Next returns the timer that fires first, or nil when none is armed.
func (s *Session) Next() *Timer {
	ts, _ := s.r.B.TimersUntil(engine.Never, 1)
	if len(ts) == 0 {
		return nil
	}
	t := timerJSON(ts[0], s.namesFor(ts[:1]))
	return &t
}

// namesFor returns connection names if a timer names a channel: only the
// snapshot knows them, and it is worth building only then.
func (s *Session) namesFor(ts []engine.PendingTimer) connNames {
	for _, t := range ts {
		if t.Channel.Conn != 0 {
			return namesOf(s.r.B.SnapshotLimit(1))
		}
	}
	return nil
}

// Snapshot returns the whole state, as JavaScript draws it.
// The engine lists only the messages shown (MaxMessagesShown per queue and
// channel); the counts cover all.
func (s *Session) Snapshot() Snapshot {
	snap := s.r.B.SnapshotLimit(MaxMessagesShown)
	if len(snap.Timers) < snap.TimerCount && MaxTimersShown > MaxMessagesShown {
		snap.Timers, _ = s.r.B.TimersUntil(engine.Never, MaxTimersShown)
	}
	return snapshotJSON(snap)
}

// Replay starts over and runs lines[:upTo] (all of them when upTo is
// negative or past the end), as a fresh session given them one by one
// would. Replaying a Log gives the state it was taken in; replaying its
// first k lines, the state after line k: time travel.
func (s *Session) Replay(lines []string, upTo int) ReplayResult {
	if s.live != nil {
		return ReplayResult{Now: s.Now(), Results: []Result{}, Error: s.errLive("replay").Error}
	}
	if upTo < 0 || upTo > len(lines) {
		upTo = len(lines)
	}
	if upTo > MaxLogLines {
		text, detail := refusal(KeyReplayTooLong, map[string]string{"lines": strconv.Itoa(upTo), "limit": strconv.Itoa(MaxLogLines)})
		return ReplayResult{Now: s.Now(), Results: []Result{}, Error: text, ErrorDetail: detail}
	}
	s.Reset()
	b := replayBudget()
	out := ReplayResult{Results: make([]Result, 0, upTo)}
	for _, line := range lines[:upTo] {
		out.Results = append(out.Results, s.exec(line, b))
	}
	out.Now = s.Now()
	return out
}

// refused is the result of a call refused before it ran.
func (s *Session) refused(msg string) Result {
	return Result{Error: msg, Events: []Event{}, Now: s.Now()}
}
