package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// scenario is one behaviour, run the same way against each broker; its
// trace is everything the client observed.
type scenario struct {
	name string
	doc  string // what it checks, one sentence
	run  func(s *S)
}

// Bounds on waiting. Everything a scenario waits for has a limit, so a
// broker that never answers costs seconds, not the run.
const (
	scenarioTimeout = 30 * time.Second
	deliverWait     = 3 * time.Second        // for a delivery or confirm that should come
	quietWait       = 300 * time.Millisecond // to be sure nothing more comes
	settleWait      = 100 * time.Millisecond // for in-flight frames before the wire summary
	syncSettle      = 30 * time.Millisecond  // for queue processes after a round trip (see Ch.Sync)
	maxTraceLines   = 2000                   // a runaway scenario stops tracing here
)

// S is one scenario's run against one broker: it opens connections,
// records the trace and cleans up what the scenario declared.
type S struct {
	t      *target
	prefix string // unique per run and scenario; stripped from the trace
	start  time.Time

	mu    sync.Mutex
	lines []string
	done  bool // after a timeout the scenario goroutine may still log

	conns     []*Conn
	ctl       *amqp.Connection // untapped, for counts, dumps and cleanup
	queues    []string
	exchanges []string
	policies  []string
	users     []string
}

// abort is panicked with to stop a scenario that cannot go on (a
// connection that cannot be opened); the runner records it.
type abort struct{ why string }

// N returns the run-unique name for a short name. The empty name (the
// default exchange, a server-named queue) and amq.* names are kept, so
// scenarios can use built-in exchanges and provoke reserved-name errors.
func (s *S) N(short string) string {
	if short == "" || strings.HasPrefix(short, "amq.") {
		return short
	}
	return s.prefix + short
}

// Log appends one line to the trace, normalised.
func (s *S) Log(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	for _, l := range strings.Split(fmt.Sprintf(format, args...), "\n") {
		if len(s.lines) == maxTraceLines {
			s.lines = append(s.lines, "TRACE TRUNCATED")
		}
		if len(s.lines) > maxTraceLines {
			return
		}
		s.lines = append(s.lines, normalise(l, s.prefix))
	}
}

// Wait sleeps; timing-based scenarios wait generously so both brokers
// have settled.
func (s *S) Wait(d time.Duration) {
	s.Log("wait %s", d)
	time.Sleep(d)
}

// errText renders an error for the trace: a server's close with its code
// and text, a client-side refusal marked as such.
func errText(err error) string {
	var e *amqp.Error
	if errors.As(err, &e) {
		if e.Server {
			return fmt.Sprintf("error %d %s", e.Code, e.Reason)
		}
		return fmt.Sprintf("client error %d %s", e.Code, e.Reason)
	}
	return "error " + err.Error()
}

// result renders "ok" or the error.
func result(err error) string {
	if err != nil {
		return errText(err)
	}
	return "ok"
}

// Conn is a tapped client connection.
type Conn struct {
	s      *S
	label  string
	c      *amqp.Connection
	tap    *tap
	closed chan *amqp.Error
	nch    int
}

// Conn opens a new tapped connection, labelled c1, c2 ... in order.
func (s *S) Conn() *Conn {
	c, tp, err := s.t.dial(true)
	if err != nil {
		panic(abort{"dial: " + err.Error()})
	}
	cn := &Conn{s: s, label: fmt.Sprintf("c%d", len(s.conns)+1), c: c, tap: tp}
	cn.closed = c.NotifyClose(make(chan *amqp.Error, 1))
	s.mu.Lock()
	s.conns = append(s.conns, cn)
	s.mu.Unlock()
	return cn
}

// ConnAs opens a new tapped connection as user (see User).
func (s *S) ConnAs(user string) *Conn {
	c, tp, err := s.t.dialAs(user, userPassword, true)
	if err != nil {
		panic(abort{"dial as " + user + ": " + err.Error()})
	}
	cn := &Conn{s: s, label: fmt.Sprintf("c%d", len(s.conns)+1), c: c, tap: tp}
	cn.closed = c.NotifyClose(make(chan *amqp.Error, 1))
	s.mu.Lock()
	s.conns = append(s.conns, cn)
	s.mu.Unlock()
	return cn
}

// Ch opens a channel on a new connection: the common case.
func (s *S) Ch() *Ch { return s.Conn().Ch() }

// Close closes the connection from the client side.
func (c *Conn) Close() {
	c.s.Log("%s: close connection: %s", c.label, result(c.c.Close()))
}

// Closed reports how the server closed the connection, waiting briefly.
func (c *Conn) Closed() {
	select {
	case e, ok := <-c.closed:
		if ok && e != nil {
			c.s.Log("%s: connection closed by server: %s", c.label, errText(e))
			return
		}
		c.s.Log("%s: connection closed", c.label)
	case <-time.After(quietWait):
		c.s.Log("%s: connection open", c.label)
	}
}

// ctlConn is the untapped connection for counts and cleanup.
func (s *S) ctlConn() *amqp.Connection {
	if s.ctl == nil || s.ctl.IsClosed() {
		c, _, err := s.t.dial(false)
		if err != nil {
			panic(abort{"dial control connection: " + err.Error()})
		}
		s.ctl = c
	}
	return s.ctl
}

// ctlCh opens a fresh control channel; the caller closes it.
func (s *S) ctlCh() *amqp.Channel {
	ch, err := s.ctlConn().Channel()
	if err != nil {
		panic(abort{"control channel: " + err.Error()})
	}
	return ch
}

// runSide runs one scenario against one broker and returns its trace.
func runSide(sc scenario, t *target, prefix string) []string {
	s := &S{t: t, prefix: prefix, start: time.Now()}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		defer func() {
			if r := recover(); r != nil {
				if a, ok := r.(abort); ok {
					s.Log("ABORTED: %s", a.why)
					return
				}
				s.Log("PANIC: %v", r)
			}
		}()
		sc.run(s)
	}()
	select {
	case <-finished:
	case <-time.After(scenarioTimeout):
		s.Log("TIMED OUT after %s", scenarioTimeout)
	}
	time.Sleep(settleWait)
	s.mu.Lock()
	conns := append([]*Conn(nil), s.conns...)
	s.mu.Unlock()
	for _, c := range conns {
		if c.tap == nil {
			continue
		}
		for _, l := range c.tap.summary() {
			s.Log("wire %s %s", c.label, l)
		}
	}
	s.mu.Lock()
	s.done = true
	lines := s.lines
	s.mu.Unlock()
	for _, c := range conns {
		c.c.Close()
	}
	s.cleanup()
	return lines
}

// cleanup deletes what the scenario declared, on a fresh connection, and
// ignores errors: most things are gone already.
func (s *S) cleanup() {
	s.mu.Lock()
	queues, exchanges, policies, users := s.queues, s.exchanges, s.policies, s.users
	s.mu.Unlock()
	for _, p := range policies {
		s.t.api("DELETE", policyPath(p), nil)
	}
	for _, u := range users {
		s.t.api("DELETE", "/api/users/"+url.PathEscape(u), nil)
	}
	c, _, err := s.t.dial(false)
	if err != nil {
		return
	}
	defer c.Close()
	for _, q := range queues {
		if ch, err := c.Channel(); err == nil {
			ch.QueueDelete(q, false, false, false)
			ch.Close()
		}
	}
	for _, x := range exchanges {
		if ch, err := c.Channel(); err == nil {
			ch.ExchangeDelete(x, false, false)
			ch.Close()
		}
	}
	if s.ctl != nil {
		s.ctl.Close()
	}
}

// trackQueue remembers a queue for cleanup; names outside the run's
// prefix are not the scenario's to delete.
func (s *S) trackQueue(name string) {
	if strings.HasPrefix(name, s.prefix) {
		s.trackServerNamed(name)
	}
}

// trackServerNamed remembers a queue whatever its name.
func (s *S) trackServerNamed(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queues = append(s.queues, name)
}

func (s *S) trackExchange(name string) {
	if strings.HasPrefix(name, s.prefix) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.exchanges = append(s.exchanges, name)
	}
}
