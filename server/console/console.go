// Package console is Warren's interactive console: a read-eval-print loop
// over an in-memory engine, driven by the script language of
// warren/engine/script. A newcomer types "declare queue q ttl=5s",
// "publish q hi" and "advance 6s", and sees the engine's events.
//
// The console has two clock modes:
//
//   - stepped (Options.Clock is nil): virtual time moves only when a line
//     says so (advance, step, run), exactly as in a scenario script;
//   - real: a Clock drives the engine. Before each line the engine is
//     advanced to the elapsed wall time, and timers that fall due while the
//     user is idle fire on their own and are printed as they happen. A typed
//     advance, step or run jumps ahead; the wall clock then continues from
//     there.
//
// Run owns the engine from one goroutine, as a shared session's goroutine
// owns its hub (driver/sessions): the goroutine that calls Run is the only
// one that touches the engine. A reader goroutine hands it input
// lines, and the clock's timer wakes it, both by channel.
package console

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"warren/engine"
	"warren/engine/script"
)

// Prompt is printed before each input line.
const Prompt = "> "

// Limits, so that no input can make the console grow without bound.
const (
	maxLineBytes    = 1 << 20  // one input line
	maxFileBytes    = 16 << 20 // one script file for load or run
	maxHistoryLines = 100_000  // lines kept for save
)

// Options configure a Console.
type Options struct {
	// Clock drives the engine in real mode. Nil means stepped mode: virtual
	// time moves only by advance, step and run lines.
	Clock Clock
	// Seed seeds the engine's generator for server-chosen names
	// (amq.gen-…, amq.ctag-…), so a session can be replayed exactly.
	Seed uint64
	// Echo writes each input line after its prompt, so that a transcript of
	// piped input reads like a session (a terminal echoes by itself).
	Echo bool
	// Banner prints a greeting with three example lines before the first
	// prompt.
	Banner bool
}

// Console is one session over one in-memory broker. It is not safe for
// concurrent use: Run's goroutine owns it.
type Console struct {
	out  io.Writer
	opts Options
	r    *script.Runner

	// history is the script that replays the session: the lines that ran
	// without a script error, with "advance to" lines where the wall clock
	// moved time. recordedAt is the virtual time a replay of it reaches.
	history    []string
	recordedAt engine.Time
	truncated  bool

	// Real mode: engine time = wall time since start + offset, where offset
	// is how far typed advance, step and run lines jumped ahead.
	start  time.Time
	offset engine.Time

	atPrompt bool // a prompt is the last thing written
	errors   int  // script errors so far
}

// New returns a console writing to out, over a fresh broker.
func New(out io.Writer, opts Options) *Console {
	c := &Console{out: out, opts: opts}
	c.reset()
	return c
}

// Errors returns how many script errors (parse errors, misuse, failed
// expectations) the session has had.
func (c *Console) Errors() int { return c.errors }

// reset starts again with a fresh broker at virtual time zero.
func (c *Console) reset() {
	c.r = script.New(engine.Config{Seed: c.opts.Seed})
	c.history = c.history[:0]
	c.recordedAt = 0
	c.truncated = false
	c.offset = 0
	if c.opts.Clock != nil {
		c.start = c.opts.Clock.Now()
	}
}

// inputLine is one line from the reader goroutine, or the error that ended
// its input.
type inputLine struct {
	text string
	err  error
}

// readLines sends in's lines to lines until EOF, an error, or done closes.
// It is the only goroutine besides Run's, and touches nothing but in.
func readLines(in io.Reader, lines chan<- inputLine, done <-chan struct{}) {
	defer close(lines)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), maxLineBytes)
	for sc.Scan() {
		select {
		case lines <- inputLine{text: sc.Text()}:
		case <-done:
			return
		}
	}
	if err := sc.Err(); err != nil {
		select {
		case lines <- inputLine{err: err}:
		case <-done:
		}
	}
}

// Run reads lines from in and executes them until EOF or quit. It returns
// an error only if reading fails; script errors are printed and counted.
func (c *Console) Run(in io.Reader) error {
	lines := make(chan inputLine)
	done := make(chan struct{})
	defer close(done)
	go readLines(in, lines, done)

	if c.opts.Banner {
		c.write(c.banner())
	}
	c.prompt()
	for {
		timer, fire := c.armTimer()
		select {
		case l, ok := <-lines:
			if timer != nil {
				timer.Stop()
			}
			if !ok {
				c.write("\n") // end the last prompt's line (Ctrl-D)
				return nil
			}
			if l.err != nil {
				c.write("\n")
				return l.err
			}
			if c.opts.Echo {
				c.write(l.text + "\n")
			}
			c.atPrompt = false
			if quit := c.handle(l.text); quit {
				return nil
			}
			c.prompt()
		case <-fire:
			// A timer fell due while the user was idle: show what it did
			// on lines of its own, then prompt again.
			if out := c.catchUp(); out != "" {
				if c.atPrompt {
					c.write("\n")
				}
				c.write(out)
				c.prompt()
			}
		}
	}
}

// armTimer returns a wall-clock timer for the engine's next deadline, or
// nils in stepped mode or when nothing is scheduled (a nil channel never
// fires in a select).
func (c *Console) armTimer() (Timer, <-chan time.Time) {
	if c.opts.Clock == nil {
		return nil, nil
	}
	at, ok := c.r.B.NextDeadline()
	if !ok {
		return nil, nil
	}
	wait := at - c.now()
	if wait < 0 {
		wait = 0
	}
	t := c.opts.Clock.NewTimer(time.Duration(wait) * time.Millisecond)
	return t, t.C()
}

// now is the virtual time the wall clock has reached (real mode only).
func (c *Console) now() engine.Time {
	return engine.Time(c.opts.Clock.Now().Sub(c.start).Milliseconds()) + c.offset
}

// catchUp advances the engine to the wall clock in real mode and returns
// the output of the timers that fired on the way. Timers run through the
// script's own "advance to" so that their events render like any other; a
// move that fires nothing goes straight to the engine, so that it prints no
// bare "@time" line.
func (c *Console) catchUp() string {
	if c.opts.Clock == nil {
		return ""
	}
	now := c.now()
	if at, ok := c.r.B.NextDeadline(); ok && at <= now {
		out, err := c.r.Exec("advance to " + strconv.FormatInt(int64(now), 10))
		if err != nil {
			// now never goes backwards (keepUp), so this is a bug.
			panic(fmt.Sprintf("console: wall clock advance failed: %v", err))
		}
		return out
	}
	c.r.B.AdvanceTo(now)
	return ""
}

// keepUp moves the wall clock's origin forward when a typed line jumped the
// engine ahead of it, so that real time continues from the new time.
func (c *Console) keepUp() {
	if c.opts.Clock == nil {
		return
	}
	if now, b := c.now(), c.r.B.Now(); b > now {
		c.offset += b - now
	}
}

// handle runs one input line and reports whether the user asked to quit.
func (c *Console) handle(text string) (quit bool) {
	c.write(c.catchUp())
	words := strings.Fields(text)
	if len(words) == 0 {
		return false
	}
	arg := strings.TrimSpace(strings.TrimSpace(text)[len(words[0]):])
	switch words[0] {
	case "quit", "exit":
		return true
	case "help":
		c.help(arg)
	case "save":
		if arg == "" {
			c.failf("usage: save FILE")
			break
		}
		c.save(arg)
	case "load":
		if arg == "" {
			c.failf("usage: load FILE")
			break
		}
		c.load(arg)
	case "reset":
		c.reset()
		c.write("a fresh broker at time 0s\n")
	default:
		c.exec(text, "")
	}
	return false
}

// exec runs one script line, prints its output, and records it for save
// unless it failed. where, if not empty, locates the line in a file.
func (c *Console) exec(line, where string) {
	before := c.r.B.Now()
	out, err := c.r.Exec(line)
	c.write(out)
	if err != nil {
		if where != "" {
			err = fmt.Errorf("%s: %w", where, err)
		}
		c.failf("%v", err)
	} else {
		c.record(line, before)
	}
	c.keepUp()
}

// record appends a line that ran at virtual time before to the history,
// preceded by an "advance to" if the clock moved time since the last one.
// Comments are not kept: saving a loaded session would repeat its header.
func (c *Console) record(line string, before engine.Time) {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return
	}
	if len(c.history)+2 > maxHistoryLines {
		c.truncated = true
		return
	}
	if before != c.recordedAt {
		c.history = append(c.history, "advance to "+engine.FormatDuration(int64(before)))
	}
	c.history = append(c.history, strings.TrimSpace(line))
	c.recordedAt = c.r.B.Now()
}

func (c *Console) prompt() {
	c.write(Prompt)
	c.atPrompt = true
}

func (c *Console) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(c.out, s)
	c.atPrompt = false
}

func (c *Console) failf(format string, args ...any) {
	c.errors++
	c.write("error: " + fmt.Sprintf(format, args...) + "\n")
}
