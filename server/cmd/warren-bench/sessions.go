package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"warren/engine/hub"
)

// sessionsUsage is the help of `warren-bench sessions`.
const sessionsUsage = `usage: warren-bench sessions (--warren-bin PATH | --url http://HOST:PORT [--pid PID]) [flags]

Puts shared sessions under load over the browser protocol (engine/hub/PROTOCOL.md):
creates --sessions sessions with POST /api/sessions, joins --participants pages
to each over /ws/sessions/{id}, and has every page send --commands script lines
at --rate a second. It reports the fan-out latency (from a page sending a line
to each other page of its session receiving the entry the line made, matched by
the entry's origin line, which is unique per command), messages a second, the
server's RSS before any session, with the sessions idle and no one joined, and
with every page joined but idle, and again after the load (per idle session:
the growth over the number of sessions), whether every page read the log in
order without gaps, and the server's CPU per command (or AMQP publish) from
/proc/PID/stat.

Each session also has one AMQP client (amqp091-go, unless --amqp=false),
logged in with the session's own login: it publishes --amqp-messages at
--amqp-rate a second with publisher confirms into a queue of the session and
consumes and acks from it, so the pages receive entries of origin amqp. It
reports the publish->confirm latency and, apart from the pages' fan-out, the
AMQP fan-out latency (from the client publishing to each page receiving the
entry, matched by the unique body in the entry's basic.publish record); the
memory per idle session is read again with the client connected.

The pages do not replicate the engine: they read, count and time entries.

With --warren-bin it starts 'warren serve --data DIR --max-sessions N
--session-max-per-host N --session-creates-per-minute N' (DIR a fresh temporary directory, as make run keeps its state on disk) on free
loopback ports and stops it by its pid at the end; with --url it uses a running
server (memory and CPU need --pid) and deletes the sessions it created.
Everything is bounded by --timeout.

`

// sessionsConfig is what `warren-bench sessions` runs.
type sessionsConfig struct {
	bin          string
	url          string // http://host:port
	pid          int
	sessions     int
	participants int
	commands     int           // per participant
	rate         float64       // commands a second per participant
	timeout      time.Duration // the whole run
	settle       time.Duration // longest wait for RSS to settle, each time
	drain        time.Duration // longest wait for the last entries after the last command
	amqp         bool          // one AMQP client per session
	amqpMessages int           // per AMQP client
	amqpRate     float64       // publishes a second per AMQP client
}

// maxParticipantRate is the hub's per-participant command rate
// (hub.DefaultParticipantRate), which `warren serve` has no flag for: a
// page going faster gets rateLimited errors, not load.
const maxParticipantRate = hub.DefaultParticipantRate

func (c *sessionsConfig) check() error {
	switch {
	case (c.bin == "") == (c.url == ""):
		return errors.New("give exactly one of --warren-bin and --url")
	case c.url != "" && !strings.HasPrefix(c.url, "http://"):
		return fmt.Errorf("--url %q: want http://HOST:PORT", c.url)
	case c.sessions < 1 || c.sessions > 10_000:
		return fmt.Errorf("--sessions %d: want 1..10000", c.sessions)
	case c.participants < 2 || c.participants > 1000:
		return fmt.Errorf("--participants %d: want 2..1000 (fan-out needs a second page)", c.participants)
	case c.commands < 1 || c.commands > 100_000:
		return fmt.Errorf("--commands %d: want 1..100000", c.commands)
	case c.rate <= 0 || c.rate > maxParticipantRate:
		return fmt.Errorf("--rate %g: want above 0 and at most %d (the hub's per-participant limit)", c.rate, maxParticipantRate)
	case c.timeout <= 0 || c.settle < 0 || c.drain <= 0:
		return errors.New("--timeout and --drain must be above 0, --settle at least 0")
	case c.amqp && (c.amqpMessages < 1 || c.amqpMessages > 100_000):
		return fmt.Errorf("--amqp-messages %d: want 1..100000", c.amqpMessages)
	case c.amqp && (c.amqpRate <= 0 || c.amqpRate > maxAMQPRate):
		return fmt.Errorf("--amqp-rate %g: want above 0 and at most %d", c.amqpRate, maxAMQPRate)
	}
	return nil
}

// sessionRate is the --session-rate the started server gets: what the
// pages of one session send together, twice over, and at least the
// default.
func (c *sessionsConfig) sessionRate() int {
	return max(hub.DefaultSessionRate, int(2*c.rate*float64(c.participants)+1))
}

// latencyStats summarises fan-out latencies.
type latencyStats struct {
	n             int
	p50, p99, max time.Duration
}

// summarize sorts lat in place and returns its count, median, 99th
// percentile (nearest rank) and maximum.
func summarize(lat []time.Duration) latencyStats {
	slices.Sort(lat)
	s := latencyStats{n: len(lat), p50: percentile(lat, 0.50), p99: percentile(lat, 0.99)}
	if len(lat) > 0 {
		s.max = lat[len(lat)-1]
	}
	return s
}

// perSession is the growth from before to after spread over n sessions,
// in bytes.
func perSession(before, after int64, n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(after-before) / float64(n)
}

// mib formats bytes as MiB with two decimals.
func mib(b float64) string {
	return strconv.FormatFloat(b/(1<<20), 'f', 2, 64) + " MiB"
}

// loadPage is one participant's page: its socket, the session's table of
// send times, and what its reader counted.
type loadPage struct {
	ws        *websocket.Conn
	id        hub.ParticipantID
	sends     *sync.Map // line -> time.Time sent, shared by the session's pages
	amqpSends *sync.Map // AMQP body -> time.Time published, the session's

	mu       sync.Mutex
	lat      []time.Duration // fan-out latencies of the others' commands
	amqpLat  []time.Duration // fan-out latencies of the AMQP client's publishes
	results  map[string]chan *hub.Result
	errs     map[string]int // error keys of results and errors
	received int            // others' entries matched
	lastSeq  uint64         // the last entry's seq, to find gaps
	entries  int            // entries read since the welcome
	closed   string         // why the socket closed, once it has
}

// loadSession is one session, its pages and its AMQP client.
type loadSession struct {
	id        string
	login     *hub.AMQPLogin
	sends     sync.Map
	amqpSends sync.Map
	pages     []*loadPage
	amqp      *loadAMQP // nil with --amqp=false
}

// counters shared by all pages.
type loadCounters struct {
	matched  atomic.Int64 // others' entries matched to a sent line
	messages atomic.Int64 // every message the pages received
	sent     atomic.Int64 // command lines sent
	ok       atomic.Int64 // commands whose result has a seq
	failed   atomic.Int64 // commands with an error or without an entry

	amqpSent      atomic.Int64 // AMQP publishes sent
	amqpConfirmed atomic.Int64 // acked by a confirm
	amqpNacked    atomic.Int64 // nacked by a confirm
	amqpConsumed  atomic.Int64 // deliveries the clients consumed and acked
	amqpMatched   atomic.Int64 // entries of AMQP publishes the pages received
}

func runSessions(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren-bench sessions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, sessionsUsage)
		fs.PrintDefaults()
	}
	var c sessionsConfig
	fs.StringVar(&c.bin, "warren-bin", "", "the warren binary to start (`warren serve` in the default mode, on a fresh data directory and free loopback ports)")
	fs.StringVar(&c.url, "url", "", "instead of --warren-bin: the HTTP address of a running warren, http://HOST:PORT")
	fs.IntVar(&c.pid, "pid", 0, "with --url: the server's process id, for its RSS and CPU")
	fs.IntVar(&c.sessions, "sessions", 100, "shared sessions")
	fs.IntVar(&c.participants, "participants", 5, "browser-protocol pages per session, all editors")
	fs.IntVar(&c.commands, "commands", 20, "command lines each page sends")
	fs.Float64Var(&c.rate, "rate", 5, "command lines a second each page sends (at most the hub's per-page limit)")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Minute, "give up on the whole run after this long")
	fs.DurationVar(&c.settle, "settle", 20*time.Second, "wait at most this long for the server's RSS to settle, each time it is read")
	fs.DurationVar(&c.drain, "drain", 15*time.Second, "after the last command, wait at most this long for the last entries")
	fs.BoolVar(&c.amqp, "amqp", true, "give each session one AMQP client with the session's login (--amqp=false: pages only)")
	fs.IntVar(&c.amqpMessages, "amqp-messages", 20, "messages each AMQP client publishes with confirms, and consumes")
	fs.Float64Var(&c.amqpRate, "amqp-rate", 5, "publishes a second each AMQP client sends")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "warren-bench sessions: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := c.check(); err != nil {
		fmt.Fprintf(stderr, "warren-bench sessions: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if err := sessionsLoad(ctx, &c, stdout); err != nil {
		fmt.Fprintf(stderr, "warren-bench sessions: %v\n", err)
		return 1
	}
	return 0
}

// sessionsLoad runs the load and prints the report.
func sessionsLoad(ctx context.Context, c *sessionsConfig, out io.Writer) (err error) {
	base := c.url
	pid := c.pid
	if c.bin != "" {
		w, err := startWarrenIn(ctx, c.bin, warrenDefault,
			"--max-sessions", strconv.Itoa(c.sessions),
			// Every session comes from this tool's one loopback address,
			// all within a minute.
			"--session-max-per-host", strconv.Itoa(c.sessions),
			"--session-creates-per-minute", strconv.Itoa(c.sessions),
			"--session-max-participants", strconv.Itoa(c.participants),
			"--session-rate", strconv.Itoa(c.sessionRate()))
		if err != nil {
			return err
		}
		defer func() {
			if serr := w.stop(); serr != nil && err == nil {
				err = serr
			}
		}()
		base, pid = "http://"+w.http, w.pid
	}
	rss := func(what string) (int64, error) {
		if pid == 0 {
			return 0, nil
		}
		b, steady, err := settledRSS(ctx, pid, c.settle)
		if err != nil {
			return 0, fmt.Errorf("RSS %s: %w", what, err)
		}
		if !steady {
			fmt.Fprintf(out, "(RSS %s had not settled after %s)\n", what, c.settle)
		}
		return b, nil
	}

	rss0, err := rss("before any session")
	if err != nil {
		return err
	}
	all := make([]*loadSession, 0, c.sessions)
	defer func() {
		for _, s := range all {
			if s.amqp != nil {
				s.amqp.close()
			}
			for _, p := range s.pages {
				p.ws.CloseNow()
			}
		}
		if c.bin == "" { // a server we did not start keeps running: end our sessions
			for _, s := range all {
				deleteSession(base, s.id)
			}
		}
	}()
	for i := 0; i < c.sessions; i++ {
		id, login, err := createSession(ctx, base, fmt.Sprintf("bench %d", i))
		if err != nil {
			return fmt.Errorf("session %d: %w", i, err)
		}
		all = append(all, &loadSession{id: id, login: login})
	}
	rss1, err := rss("with the sessions idle, no one joined")
	if err != nil {
		return err
	}

	var cnt loadCounters
	wsBase := "ws://" + strings.TrimPrefix(base, "http://") + "/ws/sessions/"
	var readers sync.WaitGroup
	readCtx, stopReaders := context.WithCancel(context.Background())
	defer func() {
		stopReaders()
		readers.Wait()
	}()
	for i, s := range all {
		for j := 0; j < c.participants; j++ {
			p, err := joinPage(ctx, wsBase+s.id, fmt.Sprintf("s%d-p%d", i, j), s)
			if err != nil {
				return fmt.Errorf("session %d, page %d: %w", i, j, err)
			}
			s.pages = append(s.pages, p)
			readers.Add(1)
			go func() {
				defer readers.Done()
				p.read(readCtx, &cnt)
			}()
		}
	}
	// Every session's first page declares the queue the lines publish
	// to, kept at one message so the sessions stay small.
	for i, s := range all {
		if r, err := s.pages[0].command(ctx, "setup", "declare queue bench max-length=1"); err != nil {
			return fmt.Errorf("session %d: declare: %w", i, err)
		} else if r.Error != nil {
			return fmt.Errorf("session %d: declare: %s", i, r.Error.Text)
		}
	}
	rss2, err := rss("with every page joined, idle")
	if err != nil {
		return err
	}
	rss2a := rss2
	if c.amqp {
		host, _, err := net.SplitHostPort(strings.TrimPrefix(base, "http://"))
		if err != nil {
			return fmt.Errorf("--url %q: %w", base, err)
		}
		for i, s := range all {
			if s.amqp, err = connectAMQP(host, s.login, i, &s.amqpSends); err != nil {
				return fmt.Errorf("session %d: AMQP client: %w", i, err)
			}
			readers.Add(1)
			go func() {
				defer readers.Done()
				s.amqp.consume(readCtx, &cnt)
			}()
		}
		if rss2a, err = rss("with every page joined and the AMQP clients connected, idle"); err != nil {
			return err
		}
	}

	cpu0 := int64(0)
	if pid != 0 {
		if cpu0, err = cpuTicks(pid); err != nil {
			return err
		}
	}
	msgs0 := cnt.messages.Load()
	self0, _ := cpuTicks(os.Getpid())
	busy0, _ := machineBusyTicks()
	start := time.Now()
	var senders sync.WaitGroup
	sendErr := make(chan error, 1)
	for _, s := range all {
		if s.amqp != nil {
			senders.Add(1)
			go func() {
				defer senders.Done()
				if err := s.amqp.publish(ctx, c, &cnt); err != nil {
					select {
					case sendErr <- err:
					default:
					}
				}
			}()
		}
		for j, p := range s.pages {
			senders.Add(1)
			go func() {
				defer senders.Done()
				if err := p.send(ctx, c, j, &cnt); err != nil {
					select {
					case sendErr <- err:
					default:
					}
				}
			}()
		}
	}
	senders.Wait()
	sendEnd := time.Now()
	select {
	case err := <-sendErr:
		return err
	default:
	}
	// Wait for the others' entries of every command that made one, every
	// page's entry of every confirmed AMQP publish, and its delivery.
	want := cnt.ok.Load() * int64(c.participants-1)
	wantAMQP := cnt.amqpConfirmed.Load() * int64(c.participants)
	drained := func() bool {
		return cnt.matched.Load() >= want && cnt.amqpMatched.Load() >= wantAMQP && cnt.amqpConsumed.Load() >= cnt.amqpConfirmed.Load()
	}
	drainEnd := time.Now().Add(c.drain)
	for !drained() && time.Now().Before(drainEnd) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	elapsed := time.Since(start)
	cpu1 := int64(0)
	if pid != 0 {
		if cpu1, err = cpuTicks(pid); err != nil {
			return err
		}
	}
	msgs := cnt.messages.Load() - msgs0
	self1, _ := cpuTicks(os.Getpid())
	busy1, _ := machineBusyTicks()
	rss3, err := rss("after the load, every page and client still connected")
	if err != nil {
		return err
	}

	var lat []time.Duration
	errKeys := map[string]int{}
	entries, dropped := 0, 0
	for _, s := range all {
		for _, p := range s.pages {
			p.mu.Lock()
			if p.closed != "" {
				dropped++
			}
			entries += p.entries
			lat = append(lat, p.lat...)
			for k, n := range p.errs {
				errKeys[k] += n
			}
			p.mu.Unlock()
		}
	}
	st := summarize(lat)

	host, _ := os.Hostname()
	fmt.Fprintf(out, "warren-bench sessions, %s, on %s: %d CPUs, %s\n",
		time.Now().UTC().Format(time.UnixDate), host, runtime.NumCPU(), runtime.Version())
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(out, "load average at the end: %s\n", strings.Join(strings.Fields(string(b))[:3], " "))
	}
	fmt.Fprintf(out, "%d sessions × %d browser-protocol pages, %d lines each at %g/s; %s\n",
		c.sessions, c.participants, c.commands, c.rate, amqpShape(c))
	fmt.Fprintf(out, "commands: %d sent, %d made an entry, %d did not; sending took %.1f s, draining %.1f s more\n",
		cnt.sent.Load(), cnt.ok.Load(), cnt.failed.Load(), sendEnd.Sub(start).Seconds(), elapsed.Seconds()-sendEnd.Sub(start).Seconds())
	for _, k := range slices.Sorted(maps.Keys(errKeys)) {
		fmt.Fprintf(out, "  error %s: %d\n", k, errKeys[k])
	}
	gaps := "yes"
	if errKeys["seqGap"] > 0 {
		gaps = "NO"
	}
	fmt.Fprintf(out, "entries read by the pages: %d; every page's in order without gaps: %s; pages whose socket closed during the load: %d\n", entries, gaps, dropped)
	fmt.Fprintf(out, "page fan-out: %d of %d entries reached the other pages; latency p50 %.2f ms, p99 %.2f ms, max %.2f ms (target p99 < 50 ms: %s)\n",
		st.n, want, ms(st.p50), ms(st.p99), ms(st.max), verdict(st.n > 0 && int64(st.n) == want && st.p99 < 50*time.Millisecond))
	if c.amqp {
		reportAMQP(out, all, &cnt, wantAMQP)
	}
	fmt.Fprintf(out, "messages to pages: %.0f/s (%d in %.1f s)\n", float64(msgs)/elapsed.Seconds(), msgs, elapsed.Seconds())
	if pid == 0 {
		fmt.Fprintln(out, "server memory and CPU: not measured (give --pid with --url)")
		return nil
	}
	idle := perSession(rss0, rss1, c.sessions)
	joined := perSession(rss0, rss2, c.sessions)
	connected := perSession(rss0, rss2a, c.sessions)
	used := perSession(rss0, rss3, c.sessions)
	fmt.Fprintf(out, "server RSS: %s before any session\n", mib(float64(rss0)))
	fmt.Fprintf(out, "  %s with %d idle sessions, no page joined: %s per session\n", mib(float64(rss1)), c.sessions, mib(idle))
	fmt.Fprintf(out, "  %s with %d pages joined to each, idle: %s per session\n", mib(float64(rss2)), c.participants, mib(joined))
	if c.amqp {
		fmt.Fprintf(out, "  %s with the AMQP client connected too (2 channels, a consumer), idle: %s per session\n", mib(float64(rss2a)), mib(connected))
	}
	fmt.Fprintf(out, "  %s after the load, everyone still connected: %s per session\n", mib(float64(rss3)), mib(used))
	fmt.Fprintf(out, "  target < 2 MiB per idle session: %s\n", verdict(idle < 2<<20 && joined < 2<<20 && connected < 2<<20 && used < 2<<20))
	if n, a := cnt.sent.Load(), cnt.amqpSent.Load(); n+a > 0 {
		fmt.Fprintf(out, "server CPU: %.1f µs per page command or AMQP publish (%d + %d; %.2f s over the load), %.1f µs per message to pages\n",
			usPerMsg(cpu1-cpu0, int(n+a)), n, a, float64(cpu1-cpu0)/clockTicksHz, usPerMsg(cpu1-cpu0, int(max(msgs, 1))))
	}
	if busy1 > busy0 {
		others := busy1 - busy0 - (cpu1 - cpu0) - (self1 - self0)
		fmt.Fprintf(out, "CPU over the load, of %.0f s × %d CPUs: server %.1f s, this tool (pages and AMQP clients) %.1f s, the rest of the machine %.1f s\n",
			elapsed.Seconds(), runtime.NumCPU(), float64(cpu1-cpu0)/clockTicksHz, float64(self1-self0)/clockTicksHz, float64(max(others, 0))/clockTicksHz)
	}
	return nil
}

// machineBusyTicks returns the clock ticks all CPUs spent on anything
// but idle and iowait, from the first line of /proc/stat.
func machineBusyTicks() (int64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return parseBusyTicks(string(b))
}

// parseBusyTicks reads the "cpu" line of /proc/stat: user nice system idle
// iowait irq softirq steal ..., and adds all but idle and iowait (and the
// guest times, which user already counts).
func parseBusyTicks(stat string) (int64, error) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var busy int64
	for i, v := range f[1:9] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: %q: %v", line, err)
		}
		if i != 3 && i != 4 { // idle, iowait
			busy += n
		}
	}
	return busy, nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// createSession is POST /api/sessions; it returns the editor id and the
// session's AMQP login (nil when the server has no AMQP listener).
func createSession(ctx context.Context, base, name string) (string, *hub.AMQPLogin, error) {
	body, _ := json.Marshal(map[string]string{"name": name})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/sessions", bytes.NewReader(body))
	if err != nil {
		return "", nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusCreated {
		return "", nil, fmt.Errorf("POST /api/sessions: %s: %s", resp.Status, data)
	}
	var created struct {
		ID   string         `json:"id"`
		AMQP *hub.AMQPLogin `json:"amqp"`
	}
	if err := json.Unmarshal(data, &created); err != nil || created.ID == "" {
		return "", nil, fmt.Errorf("POST /api/sessions: no id in %s", data)
	}
	return created.ID, created.AMQP, nil
}

// deleteSession ends a session, bounded, ignoring failures (the server
// ends idle sessions on its own).
func deleteSession(base, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, base+"/api/sessions/"+id, nil)
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// joinPage opens a page's socket to session s, sends its join and reads
// its welcome.
func joinPage(ctx context.Context, url, name string, s *loadSession) (*loadPage, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	ws.SetReadLimit(64 << 20) // a welcome carries the session's snapshot
	p := &loadPage{ws: ws, sends: &s.sends, amqpSends: &s.amqpSends, results: map[string]chan *hub.Result{}, errs: map[string]int{}}
	if err := p.write(ctx, hub.Inbound{Type: hub.InJoin, Name: name}); err != nil {
		ws.CloseNow()
		return nil, err
	}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			ws.CloseNow()
			return nil, err
		}
		var m hub.Message
		if err := json.Unmarshal(data, &m); err != nil {
			ws.CloseNow()
			return nil, err
		}
		switch m.Type {
		case hub.OutWelcome:
			p.id = m.You.ID
			p.lastSeq = m.Snapshot.Seq
			if n := len(m.Snapshot.Entries); n > 0 {
				p.lastSeq = m.Snapshot.Entries[n-1].Seq
			}
			return p, nil
		case hub.OutError, hub.OutEnded:
			ws.CloseNow()
			return nil, fmt.Errorf("join refused: %s", m.Error.Text)
		}
	}
}

func (p *loadPage) write(ctx context.Context, in hub.Inbound) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return p.ws.Write(ctx, websocket.MessageText, data)
}

// command sends one line and waits for its result (used outside the
// load, where the reader runs).
func (p *loadPage) command(ctx context.Context, ref, line string) (*hub.Result, error) {
	ch := make(chan *hub.Result, 1)
	p.mu.Lock()
	p.results[ref] = ch
	p.mu.Unlock()
	if err := p.write(ctx, hub.Inbound{Type: hub.InCommand, Ref: ref, Line: line}); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// send runs the page's share of the load: c.commands lines at c.rate a
// second, starting at a random point of the first interval so the pages
// do not send in step. Each line is unique, so an entry's origin line
// names the command it came from. It waits for every result.
func (p *loadPage) send(ctx context.Context, c *sessionsConfig, page int, cnt *loadCounters) error {
	every := time.Duration(float64(time.Second) / c.rate)
	select {
	case <-time.After(rand.N(every)):
	case <-ctx.Done():
		return ctx.Err()
	}
	results := make([]chan *hub.Result, c.commands)
	next := time.Now()
	for i := 0; i < c.commands; i++ {
		if d := time.Until(next); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		next = next.Add(every)
		ref := strconv.Itoa(i)
		line := fmt.Sprintf("publish bench p%d-%d-%d", p.id, page, i)
		p.mu.Lock()
		if p.closed != "" {
			p.mu.Unlock()
			break
		}
		results[i] = make(chan *hub.Result, 1)
		p.results[ref] = results[i]
		p.mu.Unlock()
		p.sends.Store(line, time.Now())
		if err := p.write(ctx, hub.Inbound{Type: hub.InCommand, Ref: ref, Line: line}); err != nil {
			if ctx.Err() != nil {
				return err
			}
			results[i] = nil // the reader sees the socket close and says why
			p.deliver(ref, nil)
			break
		}
		cnt.sent.Add(1)
	}
	for _, ch := range results {
		if ch == nil {
			continue
		}
		select {
		case r := <-ch:
			if r.Seq != 0 && r.Error == nil {
				cnt.ok.Add(1)
			} else {
				cnt.failed.Add(1)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// read reads the page's messages until its socket closes or ctx ends: an
// entry another page's line made gives a latency, a result goes to whoever
// waits for it, errors are counted by key.
func (p *loadPage) read(ctx context.Context, cnt *loadCounters) {
	for {
		_, data, err := p.ws.Read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				p.close("socketClosed", websocket.CloseStatus(err).String())
			}
			return
		}
		now := time.Now()
		cnt.messages.Add(1)
		var m hub.Message
		if err := json.Unmarshal(data, &m); err != nil {
			p.countErr("undecodable")
			continue
		}
		switch m.Type {
		case hub.OutEntry:
			p.mu.Lock()
			if m.Entry.Seq != p.lastSeq+1 {
				p.errs["seqGap"]++
			}
			p.lastSeq = m.Entry.Seq
			p.entries++
			p.mu.Unlock()
			o := m.Entry.Origin
			if o.Kind == hub.OriginAMQP {
				p.amqpEntry(m.Entry, now, cnt)
				continue
			}
			if o.Kind != hub.OriginParticipant || o.Participant == p.id {
				continue
			}
			if t, ok := p.sends.Load(o.Line); ok {
				p.mu.Lock()
				p.lat = append(p.lat, now.Sub(t.(time.Time)))
				p.received++
				p.mu.Unlock()
				cnt.matched.Add(1)
			}
		case hub.OutResult:
			if m.Result.Error != nil {
				p.countErr(m.Result.Error.Key)
			}
			p.deliver(m.Ref, m.Result)
		case hub.OutError:
			p.countErr(m.Error.Key)
			if m.Ref != "" {
				p.deliver(m.Ref, &hub.Result{Error: m.Error})
			}
		case hub.OutEnded:
			p.close("ended:"+m.Error.Key, m.Error.Text)
			return
		}
	}
}

// close records that the page's socket is gone (the server drops a page
// whose queue of outgoing messages is full) and gives every command still
// waiting a result with key as its error, so no sender waits for ever.
func (p *loadPage) close(key, why string) {
	p.mu.Lock()
	p.closed = key + " (" + why + ")"
	p.errs[key]++
	waiting := p.results
	p.results = map[string]chan *hub.Result{}
	p.mu.Unlock()
	for _, ch := range waiting {
		ch <- &hub.Result{Error: &hub.ErrorInfo{Key: key, Text: why}}
	}
}

func (p *loadPage) deliver(ref string, r *hub.Result) {
	p.mu.Lock()
	ch := p.results[ref]
	delete(p.results, ref)
	p.mu.Unlock()
	if ch != nil && r != nil {
		ch <- r
	}
}

func (p *loadPage) countErr(key string) {
	p.mu.Lock()
	p.errs[key]++
	p.mu.Unlock()
}
