package script

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"warren/engine"
)

// Runner executes script lines against one broker and renders what happened
// as text: the engine's events, one per line, with a "@time" line whenever
// virtual time has moved since the last output.
type Runner struct {
	B *engine.Broker

	chans   map[string]*chanRef
	conns   map[string]engine.ConnID
	current string

	lastErr    *engine.Error
	lineErr    *engine.Error // the AMQP error of the last command run, if any
	lastEvents []engine.Event
	lastTag    uint64 // last delivery tag seen on any channel, for "ack last"
	printedAt  engine.Time
	scratch    []engine.Event
	// pendingOut is the command's own output, printed after the events.
	// It is a builder, not a string: a show line per message appended to
	// a string copied the whole output each time, quadratic in a
	// 20,000-message queue.
	pendingOut strings.Builder
	// pubs is what each channel's publisher has been told: confirms and
	// returned messages (publisher.go).
	pubs map[engine.ChannelID]*publisherRecord
	// MaxSteps bounds "run" so a script can never loop forever.
	MaxSteps int
	// MaxTraceBytes bounds the event lines one command prints (0: no
	// bound). Past it the remaining events are not rendered, though they
	// still count for the runner's state ("ack last", closed channels),
	// and TraceCut says so: publish count=100000 would otherwise build
	// 200,000 lines that a page then cuts to its own limit.
	MaxTraceBytes int
	traceCut      bool
	// ownsBroker is false for a runner over a broker others share
	// (NewOn): it may not replace the broker (history start).
	ownsBroker bool
	// history is the shared session's history being replayed, once a
	// history start line has loaded its state (verbs_history.go).
	history *historyReplay
}

// chanRef is a named channel: which connection and number.
type chanRef struct {
	conn  string
	num   uint16
	vhost string
	id    engine.ChannelID
	open  bool
}

// DefaultChannel is the channel commands use until another is selected.
const DefaultChannel = "app"

// New returns a runner over a fresh broker.
func New(cfg engine.Config) *Runner {
	r := NewOn(engine.New(cfg))
	r.ownsBroker = true
	return r
}

// NewOn returns a runner over an existing broker, which other runners and
// drivers may share: a shared session gives each participant a runner of
// their own (their own channel names, current channel and "ack last")
// over the session's one broker. A runner drains the events of the lines
// it runs; whoever applies anything else to a shared broker passes the
// events it drained to every runner's Observe, so that each still knows
// which of its channels are open.
func NewOn(b *engine.Broker) *Runner {
	return &Runner{B: b, chans: map[string]*chanRef{}, conns: map[string]engine.ConnID{}, current: DefaultChannel, MaxSteps: 100000}
}

// Observe updates the runner's state from events that it did not cause
// (another runner's line, a real client's command, a clock move on a
// shared broker): its channels and connections that closed, its broker's
// restart, and the last delivery tag on its own channels for "ack last".
// It renders nothing.
func (r *Runner) Observe(evs []engine.Event) {
	for _, e := range evs {
		switch e.Kind {
		case engine.EvDelivered:
			if !e.NoAck && r.owns(e.Channel) {
				r.lastTag = e.DeliveryTag
			}
		case engine.EvChannelClosed:
			for _, ch := range r.chans {
				if ch.id == e.Channel {
					ch.open = false
				}
			}
		case engine.EvConnectionClosed:
			r.dropConn(e.Channel.Conn)
		case engine.EvRestarted:
			for _, ch := range r.chans {
				ch.open = false
			}
			clear(r.conns)
		}
	}
}

// Connections returns the engine connections the runner has open, in
// order: what closes when the participant a shared session gave this
// runner leaves.
func (r *Runner) Connections() []engine.ConnID {
	ids := make([]engine.ConnID, 0, len(r.conns))
	for _, id := range r.conns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// owns reports whether id is one of the runner's open channels.
func (r *Runner) owns(id engine.ChannelID) bool {
	for _, ch := range r.chans {
		if ch.open && ch.id == id {
			return true
		}
	}
	return false
}

// dropConn forgets a closed connection and marks its channels closed.
func (r *Runner) dropConn(conn engine.ConnID) {
	for name, id := range r.conns {
		if id == conn {
			delete(r.conns, name)
		}
	}
	for _, ch := range r.chans {
		if ch.id.Conn == conn {
			ch.open = false
		}
	}
}

// Exec runs one line and returns its output. Parse errors, misuse and failed
// expectations are returned as errors; AMQP exceptions are not errors of the
// script: they are printed ("error: 406 PRECONDITION_FAILED - ...") and
// remembered for "expect error".
func (r *Runner) Exec(line string) (string, error) {
	c, err := Parse(line)
	if err != nil || c == nil {
		return "", err
	}
	return r.ExecCommand(c)
}

// ExecCommand runs a parsed command.
func (r *Runner) ExecCommand(c *Command) (string, error) {
	var out strings.Builder
	r.traceCut = false
	spec := verbs[c.Verb]
	runErr := spec.run(r, c)
	if !spec.exact {
		// A script's next line sees this one's effects whole: the batches
		// a large backlog is worked off in all run now (engine/backlog.go).
		r.B.Settle(r.B.Now())
	}
	var amqpErr *engine.Error
	r.lineErr = nil
	if errors.As(runErr, &amqpErr) {
		r.lineErr = amqpErr
		r.lastErr = amqpErr
		runErr = nil
	} else if runErr == nil && !strings.HasPrefix(c.Verb, "expect") && !strings.HasPrefix(c.Verb, "show") {
		r.lastErr = nil
	}
	r.scratch = r.B.DrainEvents(r.scratch[:0])
	r.dropRecords()
	if !strings.HasPrefix(c.Verb, "expect") && !strings.HasPrefix(c.Verb, "show") {
		r.lastEvents = append(r.lastEvents[:0], r.scratch...)
	}
	closed := r.writeEvents(&out, r.scratch)
	if amqpErr != nil {
		writeError(&out, amqpErr)
		if closed != "" {
			out.WriteString(closed)
		}
	}
	if r.pendingOut.Len() > 0 {
		out.WriteString(r.pendingOut.String())
		r.pendingOut.Reset()
	}
	return out.String(), runErr
}

// TraceCut reports whether the last command's event lines were cut at
// MaxTraceBytes.
func (r *Runner) TraceCut() bool { return r.traceCut }

// writeError prints an AMQP error as "error: CODE TEXT". A text of several
// lines (rabbitmqctl's "Validation failed\n\n...", an Erlang term the
// pretty-printer broke) prints one line each, continuation lines indented
// and blank ones left out, since a blank line would end a scenario's
// output; the closing event's text="..." keeps the reply text exact.
func writeError(out *strings.Builder, e *engine.Error) {
	fmt.Fprintf(out, "error: %d ", e.Code)
	for i, line := range strings.Split(e.Text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case i == 0:
			out.WriteString(line)
		case line != "":
			out.WriteString("\n  ")
			out.WriteString(line)
		}
	}
	out.WriteByte('\n')
}

// writeEvents renders events, tracking delivery tags and channel state. It
// returns a note for an AMQP error's output when a channel or connection
// was closed with an error code: what is closed, and that the runner opens
// it again on the next command that uses it (see channel).
func (r *Runner) writeEvents(out *strings.Builder, evs []engine.Event) (closed string) {
	for _, e := range evs {
		r.notePublisher(e)
		r.history.noteEvent(e)
		if e.Kind == engine.EvConnectionOpened || e.Kind == engine.EvChannelOpened {
			// Channels open implicitly on first use; their opening is
			// noise in a trace.
			continue
		}
		switch {
		case r.MaxTraceBytes > 0 && out.Len() >= r.MaxTraceBytes:
			r.traceCut = true
		default:
			if e.Time != r.printedAt {
				fmt.Fprintf(out, "@%s\n", engine.FormatDuration(int64(e.Time)))
				r.printedAt = e.Time
			}
			out.WriteString(r.describe(e))
			out.WriteByte('\n')
		}
		switch e.Kind {
		case engine.EvDelivered:
			if !e.NoAck {
				r.lastTag = e.DeliveryTag
			}
		case engine.EvChannelClosed:
			if e.Code != engine.ReplySuccess && closed == "" {
				closed = fmt.Sprintf("note: channel %s closed; the next command on it reopens it\n", r.channelName(e.Channel))
			}
			for _, ch := range r.chans {
				if ch.id == e.Channel {
					ch.open = false
				}
			}
		case engine.EvConnectionClosed:
			if e.Code != engine.ReplySuccess {
				closed = fmt.Sprintf("note: connection %s closed, with its channels; the next command on one reconnects\n", r.channelName(e.Channel))
			}
			r.dropConn(e.Channel.Conn)
		}
	}
	return closed
}

// describe renders an event with the script's channel names instead of
// engine ids.
func (r *Runner) describe(e engine.Event) string {
	s := e.String()
	if e.Channel.Conn == 0 {
		return s
	}
	name := r.channelName(e.Channel)
	return strings.Replace(s, " ch="+e.Channel.String(), " ch="+name, 1)
}

func (r *Runner) channelName(id engine.ChannelID) string {
	best := ""
	for name, ch := range r.chans {
		if ch.id == id && (best == "" || name < best) {
			best = name
		}
	}
	if best == "" {
		for name, cid := range r.conns {
			if cid == id.Conn && id.Num == 0 {
				return name
			}
		}
		// A connection closed by an error has left r.conns by the time
		// the bridge names the line's events; its channels still name it.
		for _, ch := range r.chans {
			if id.Num == 0 && ch.id.Conn == id.Conn && (best == "" || ch.conn < best) {
				best = ch.conn
			}
		}
		if best == "" {
			if name, ok := r.history.channelName(id); ok {
				return name
			}
			return id.String()
		}
	}
	return best
}

// channel returns the engine channel for a command, opening the connection
// and channel on first use (and reopening a channel an error closed, as a
// client would open a new one).
func (r *Runner) channel(c *Command) (engine.ChannelID, error) {
	name := c.Channel
	if name == "" {
		name = r.current
	}
	return r.ensureChannel(name, "/")
}

func (r *Runner) ensureChannel(name, vhost string) (engine.ChannelID, error) {
	ch, ok := r.chans[name]
	if !ok {
		conn, num := name, uint16(1)
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			var n int
			if _, err := fmt.Sscanf(name[i+1:], "%d", &n); err == nil && n > 0 && n < 65536 {
				conn, num = name[:i], uint16(n)
			}
		}
		ch = &chanRef{conn: conn, num: num, vhost: vhost}
		r.chans[name] = ch
	}
	if ch.open {
		return ch.id, nil
	}
	cid, ok := r.conns[ch.conn]
	if !ok {
		id, err := r.B.OpenConnection(engine.ConnectionOpen{Vhost: ch.vhost, Name: ch.conn, User: "guest"})
		if err != nil {
			return engine.ChannelID{}, err
		}
		r.conns[ch.conn] = id
		cid = id
	}
	id, err := r.B.OpenChannel(cid, ch.num)
	if err != nil {
		return engine.ChannelID{}, err
	}
	ch.id, ch.open = id, true
	return id, nil
}

// LastEvents returns the events the last state-changing command caused
// (show, expect and help leave them alone), for callers that want the
// events themselves rather than their trace text. The slice is reused by
// the next command. The opening of implicit connections and channels is
// included here although the trace hides it.
func (r *Runner) LastEvents() []engine.Event { return r.lastEvents }

// LineEvents returns every event the last line caused, show and expect
// lines included (a line that settles time can fire timers), for callers
// that must see the engine's whole event stream, such as a test comparing
// a broker with its replay. The slice is reused by the next line.
func (r *Runner) LineEvents() []engine.Event { return r.scratch }

// LineError returns the AMQP error the last command raised (the one its
// "error:" line shows), or nil.
func (r *Runner) LineError() *engine.Error { return r.lineErr }

// EventLine renders an event as the trace does, with the script's channel
// names.
func (r *Runner) EventLine(e engine.Event) string { return r.describe(e) }

// ChannelName returns the script's name for a channel ("app", "c1.2").
func (r *Runner) ChannelName(id engine.ChannelID) string { return r.channelName(id) }
