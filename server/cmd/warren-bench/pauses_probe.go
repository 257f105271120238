package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// A healthy client, for the pause benchmark (pauses.go): a connection of
// its own that does one round trip (a passive queue.declare of its own
// queue) every probe interval and times each, while another client loads
// the broker. A broker that holds everyone up behind one client's work
// shows as a long round trip here. A passive declare publishes nothing,
// so a memory alarm, which blocks publishers, does not block it on either
// broker.
//
// The healthy client is a process of its own (this binary's probe
// subcommand): in the load's process its reply would wait behind the
// load client's own work (a goroutine that keeps both of the process's
// Ps busy writing, its collector), and the pause measured would be the
// client's, not the broker's. The child times each round trip itself and
// prints it, one line of nanoseconds each.

// probeEnv makes a test binary run as the probe (see TestMain).
const probeEnv = "WARREN_BENCH_PROBE_CHILD"

// probe is a running healthy client, seen from the load's process.
type probe struct {
	interval time.Duration
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	done     chan struct{}

	mu   sync.Mutex
	rtts []time.Duration
	err  error
}

// startProbe starts the healthy client against url and returns once it
// has connected and declared its queue.
func startProbe(url string, interval time.Duration) (*probe, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "probe", "--url", url, "--interval", interval.String())
	cmd.Env = append(os.Environ(), probeEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &probe{interval: interval, cmd: cmd, stdin: stdin, done: make(chan struct{})}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "ready" {
		stdin.Close()
		cmd.Wait()
		return nil, fmt.Errorf("the probe did not start: %q", lines.Text())
	}
	go p.read(lines)
	return p, nil
}

// read records the child's round trips until it exits.
func (p *probe) read(lines *bufio.Scanner) {
	defer close(p.done)
	for lines.Scan() {
		line := lines.Text()
		ns, err := strconv.ParseInt(line, 10, 64)
		p.mu.Lock()
		if err != nil {
			p.err = errors.New(strings.TrimPrefix(line, "error: "))
		} else {
			p.rtts = append(p.rtts, time.Duration(ns))
		}
		p.mu.Unlock()
	}
}

// mark is where the round trips of a stretch start (for since).
func (p *probe) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.rtts)
}

// since returns the round trips made from mark on, and the probe's
// failure if it failed.
func (p *probe) since(mark int) (pauseStats, error) {
	p.mu.Lock()
	rtts := slices.Clone(p.rtts[mark:])
	err := p.err
	p.mu.Unlock()
	return newPauseStats(rtts), err
}

// close stops the healthy client: its stdin closing is its signal.
func (p *probe) close() {
	p.stdin.Close()
	<-p.done
	p.cmd.Wait()
}

// runProbe is the probe subcommand: it connects, declares its own queue,
// prints "ready", then times a round trip every interval and prints it,
// until its stdin closes. A failed round trip is printed as "error: ..."
// and ends it.
func runProbe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren-bench probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "amqp://guest:guest@127.0.0.1:5672/", "AMQP URL of the broker")
	interval := fs.Duration("interval", time.Millisecond, "pause between round trips")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *interval < 0 || *interval > time.Second {
		fmt.Fprintln(stderr, "warren-bench probe: --interval must be 0..1s")
		return 2
	}
	s, err := openSession(*url)
	if err != nil {
		fmt.Fprintf(stderr, "warren-bench probe: %v\n", err)
		return 1
	}
	defer s.close()
	q := fmt.Sprintf("warren-bench.probe.%08x", rand.Uint32())
	if _, err := s.ch.QueueDeclare(q, false, true, false, false, nil); err != nil {
		fmt.Fprintf(stderr, "warren-bench probe: %v\n", err)
		return 1
	}
	stop := make(chan struct{})
	go func() {
		io.Copy(io.Discard, stdin)
		close(stop)
	}()
	out := bufio.NewWriter(stdout)
	fmt.Fprintln(out, "ready")
	out.Flush()
	for {
		select {
		case <-stop:
			return 0
		case <-time.After(*interval):
		}
		t0 := time.Now()
		_, err := s.ch.QueueDeclarePassive(q, false, true, false, false, nil)
		d := time.Since(t0)
		if err != nil {
			fmt.Fprintf(out, "error: %v\n", err)
			out.Flush()
			return 1
		}
		fmt.Fprintln(out, int64(d))
		out.Flush()
	}
}

// pauseStats summarises a stretch of round trips.
type pauseStats struct {
	n             int
	p50, p99, max time.Duration
}

func newPauseStats(rtts []time.Duration) pauseStats {
	slices.Sort(rtts)
	st := pauseStats{n: len(rtts), p50: percentile(rtts, 0.50), p99: percentile(rtts, 0.99)}
	if len(rtts) > 0 {
		st.max = rtts[len(rtts)-1]
	}
	return st
}

// metrics are the stats as a result's metrics, named after what ran.
func (st pauseStats) metrics() []Metric {
	return []Metric{
		{Name: "round trip p99", Unit: "ms", Value: ms(st.p99)},
		{Name: "longest pause", Unit: "ms", Value: ms(st.max)},
		{Name: "round trip p50", Unit: "ms", Value: ms(st.p50)},
		{Name: "round trips", Unit: "", Value: float64(st.n), HigherIsBetter: true},
	}
}

// noLoadProbe is what the probe sees with the broker idle, as a baseline.
func noLoadProbe(p *probe, span time.Duration) (pauseStats, error) {
	m := p.mark()
	time.Sleep(span)
	return p.since(m)
}

// probed runs load with a probe against url, and returns the probe's
// stats over the load's span with the load's own result.
func probed(url string, interval time.Duration, load func() (Result, error)) (Result, error) {
	p, err := startProbe(url, interval)
	if err != nil {
		return Result{}, fmt.Errorf("healthy client: %w", err)
	}
	defer p.close()
	m := p.mark()
	before, haveCPU := readCPUTimes()
	res, err := load()
	after, _ := readCPUTimes()
	// A load shorter than a round trip still gets one: the one it was
	// under way beside.
	for wait := time.Now().Add(time.Second); p.mark() == m && time.Now().Before(wait); {
		time.Sleep(max(p.interval/4, 100*time.Microsecond))
	}
	st, perr := p.since(m)
	res.Metrics = append(st.metrics(), res.Metrics...)
	if stolen, ok := stolenPercent(before, after); haveCPU && ok {
		res.Metrics = append(res.Metrics, Metric{Name: "CPU stolen by the host", Unit: "%", Value: stolen})
	}
	if err == nil && perr != nil {
		err = fmt.Errorf("healthy client: %w", perr)
	}
	return res, err
}

// amqpPublishing is a transient message of size bytes.
func amqpPublishing(size int) amqp.Publishing { return amqp.Publishing{Body: body(size)} }
