package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// durableServer is a broker process this tool started with its state in a
// directory: it can be crashed (SIGKILL) and started again on the same
// directory. Its url and pid change with every start.
type durableServer interface {
	start(ctx context.Context) error
	kill() error  // SIGKILL, then wait for the process to be gone
	stop() error  // graceful
	close() error // stop, and end anything else it started
	addr() (url string, pid int)
	dataDir() string // "" when the state is in memory
	// running returns nil while the process runs, or how it ended with
	// the end of what it logged.
	running() error
}

// warrenNode is `warren serve --data DIR` (no --data when data is "": a
// warren too old for the flag, which keeps its state in memory), with the
// flags extra besides. Its ports are chosen at its first start and kept,
// so that a restart (after a crash, say) comes back where the clients
// look for it.
type warrenNode struct {
	bin, data          string
	extra              []string
	amqpAddr, httpAddr string
	proc               *warrenProc
}

func (w *warrenNode) start(ctx context.Context) error {
	if w.amqpAddr == "" {
		var err error
		if w.amqpAddr, err = freeLoopback("127.0.0.1:5673"); err != nil {
			return err
		}
		if w.httpAddr, err = freeLoopback("127.0.0.1:8081"); err != nil {
			return err
		}
	}
	args := []string{"serve", "--amqp", w.amqpAddr, "--http", w.httpAddr}
	if w.data != "" {
		args = append(args, "--data", w.data)
	}
	p, err := startProc(ctx, "warren", exec.Command(w.bin, append(args, w.extra...)...), w.url())
	if p != nil {
		p.http = w.httpAddr
	}
	w.proc = p
	return err
}

// url is the AMQP URL of the node's port, running or not.
func (w *warrenNode) url() string { return "amqp://guest:guest@" + w.amqpAddr + "/" }

func (w *warrenNode) kill() error {
	if w.proc == nil {
		return errors.New("warren is not running")
	}
	err := w.proc.kill()
	w.proc = nil
	return err
}

func (w *warrenNode) stop() error {
	if w.proc == nil {
		return nil
	}
	err := w.proc.stop()
	w.proc = nil
	return err
}

func (w *warrenNode) close() error { return w.stop() }

func (w *warrenNode) addr() (string, int) {
	if w.proc == nil {
		return w.url(), 0
	}
	return w.url(), w.proc.pid
}

func (w *warrenNode) dataDir() string { return w.data }

func (w *warrenNode) running() error {
	if w.proc == nil {
		return errors.New("warren is not running")
	}
	select {
	case <-w.proc.exited:
		return fmt.Errorf("warren (pid %d) exited (%v): %s", w.proc.pid, w.proc.err, lastLines(w.proc.output.String(), 10))
	default:
		return nil
	}
}

func (n *rabbitNode) addr() (string, int) {
	if n.beam == nil {
		return "", 0
	}
	return n.url, n.pid
}

func (n *rabbitNode) dataDir() string { return n.mnesia }

func (n *rabbitNode) running() error {
	if n.beam == nil {
		return errors.New("rabbitmq-server is not running")
	}
	select {
	case <-n.exited:
		log, _ := os.ReadFile(filepath.Join(n.dir, "log", "warrenbench@localhost.log"))
		return fmt.Errorf("beam.smp (pid %d) exited (%v); its log ends:\n%s", n.pid, n.err, lastLines(string(log), 10))
	default:
		return nil
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// persistentMsg is a persistent (delivery-mode 2) message of size bytes.
func persistentMsg(size int) amqp.Publishing {
	return amqp.Publishing{DeliveryMode: amqp.Persistent, Body: body(size)}
}

// declareDurable declares a durable classic queue with a name of its own.
func declareDurable(ch *amqp.Channel, kind string) (string, error) {
	return declareNamed(ch, kind, true)
}

// declareNamed declares a classic queue named for kind, with a name of
// its own.
func declareNamed(ch *amqp.Channel, kind string, durable bool) (string, error) {
	q := fmt.Sprintf("warren-bench.%s.%08x", kind, rand.Uint32())
	_, err := ch.QueueDeclare(q, durable, false, false, false, nil)
	return q, err
}

// usPerMsg converts a CPU time in clock ticks to microseconds per message.
func usPerMsg(ticks int64, n int) float64 {
	return float64(ticks) * 1e6 / clockTicksHz / float64(n)
}

// runConfirms publishes n persistent messages with confirms, at
// most window unconfirmed, into a durable queue, and reports msgs/s until
// the last confirm and the broker's CPU time (user + system from
// /proc/PID/stat) per message over the same span; also the broker's CPU
// until it is idle again (work it does after confirming, such as moving
// messages out of a journal), the client's own CPU per message, and, when
// disk is set, the data directory's growth per message once settled.
// With transient set it publishes transient messages into a non-durable
// queue instead: the same round trips, none of them to disk.
func runConfirms(ctx context.Context, srv durableServer, c publishCase, size int) (res Result, err error) {
	n, window, disk := c.messages, c.window, c.disk
	url, pid := srv.addr()
	s, err := openSession(url)
	if err != nil {
		return res, err
	}
	defer s.close()
	q, msg := "", persistentMsg(size)
	if c.transient {
		msg = amqpPublishing(size)
		q, err = declareNamed(s.ch, "transient", false)
	} else {
		q, err = declareDurable(s.ch, "persistent")
	}
	if err != nil {
		return res, err
	}
	defer func() { err = errors.Join(err, cleanup(url, []string{q}, nil)) }()
	dir := srv.dataDir()
	disk = disk && dir != ""
	var before diskUse
	if disk {
		if before, _, err = settledDisk(ctx, dir); err != nil {
			return res, err
		}
	}
	cp, err := newConfirmingPublisher(s.ch, n, window)
	if err != nil {
		return res, err
	}
	cpu0, err := cpuTicks(pid)
	if err != nil {
		return res, err
	}
	self0, err := cpuTicks(os.Getpid())
	if err != nil {
		return res, err
	}
	start := time.Now()
	if err := cp.publishAll(ctx, q, msg, n); err != nil {
		return res, err
	}
	elapsed := time.Since(start)
	cpu1, err1 := cpuTicks(pid)
	self1, err2 := cpuTicks(os.Getpid())
	if err := errors.Join(err1, err2); err != nil {
		return res, err
	}
	waited, quiet, err := waitQuiet(ctx, pid)
	if err != nil {
		return res, err
	}
	cpu2, err := cpuTicks(pid)
	if err != nil {
		return res, err
	}
	res = Result{
		ElapsedMs: ms(elapsed),
		Metrics: []Metric{
			{Name: "throughput", Unit: "msgs/s", Value: rate(n, elapsed), HigherIsBetter: true},
			{Name: "broker CPU to last confirm", Unit: "µs/msg", Value: usPerMsg(cpu1-cpu0, n)},
			{Name: "broker CPU until idle", Unit: "µs/msg", Value: usPerMsg(cpu2-cpu0, n)},
			{Name: "client CPU", Unit: "µs/msg", Value: usPerMsg(self1-self0, n)},
		},
		Notes: []string{fmt.Sprintf("confirm window %d; broker idle %s after the last confirm", window, waited.Round(time.Millisecond))},
	}
	if !quiet {
		res.Notes = append(res.Notes, "the broker was still busy when the wait for idle gave up")
	}
	if disk {
		after, settled, err := settledDisk(ctx, dir)
		if err != nil {
			return res, err
		}
		res.Metrics = append(res.Metrics, Metric{Name: "disk", Unit: "B/msg", Value: float64(after.allocated-before.allocated) / float64(n)})
		res.Notes = append(res.Notes, diskNote(before, after, settled, n))
	}
	qi, err := s.ch.QueueDeclarePassive(q, !c.transient, false, false, false, nil)
	if err != nil {
		return res, err
	}
	if qi.Messages != n {
		return res, fmt.Errorf("queue holds %d messages, want %d", qi.Messages, n)
	}
	return res, nil
}

func diskNote(before, after diskUse, settled bool, n int) string {
	s := fmt.Sprintf("data directory %.1f MB before, %.1f MB after (apparent size %+.1f B/msg)",
		float64(before.allocated)/1e6, float64(after.allocated)/1e6, float64(after.apparent-before.apparent)/float64(n))
	if !settled {
		s += fmt.Sprintf("; still changing after %s", diskSettleMax)
	}
	return s
}

// runRecovery fills a durable queue with n persistent messages (confirmed,
// at most window unconfirmed), kills the broker with SIGKILL, starts it
// again on the same data and times how long until a passive queue.declare
// reports all n; then stops it gracefully and times a clean start the same
// way. The clock starts just before the process is started; "accepting" is
// the first AMQP connection that completes its handshake.
func runRecovery(ctx context.Context, srv durableServer, n, window, size int) (res Result, err error) {
	url, _ := srv.addr()
	s, err := openSession(url)
	if err != nil {
		return res, err
	}
	q, err := declareDurable(s.ch, "recovery")
	if err != nil {
		s.close()
		return res, err
	}
	defer func() {
		url, _ := srv.addr()
		if url != "" {
			err = errors.Join(err, cleanup(url, []string{q}, nil))
		}
	}()
	dir := srv.dataDir()
	before, _, err := settledDisk(ctx, dir)
	if err != nil {
		s.close()
		return res, err
	}
	cp, err := newConfirmingPublisher(s.ch, n, window)
	if err != nil {
		s.close()
		return res, err
	}
	start := time.Now()
	err = cp.publishAll(ctx, q, persistentMsg(size), n)
	fill := time.Since(start)
	s.close()
	if err != nil {
		return res, err
	}
	after, settled, err := settledDisk(ctx, dir)
	if err != nil {
		return res, err
	}
	res.Metrics = []Metric{
		{Name: "fill", Unit: "msgs/s", Value: rate(n, fill), HigherIsBetter: true},
		{Name: "disk", Unit: "B/msg", Value: float64(after.allocated-before.allocated) / float64(n)},
	}
	res.Notes = append(res.Notes, diskNote(before, after, settled, n))

	if err := srv.kill(); err != nil {
		return res, err
	}
	accept, all, err := timeStart(ctx, srv, q, n)
	if err != nil {
		return res, fmt.Errorf("after SIGKILL: %w", err)
	}
	res.Metrics = append(res.Metrics,
		Metric{Name: "after SIGKILL: accepting", Unit: "s", Value: accept.Seconds()},
		Metric{Name: "after SIGKILL: all messages", Unit: "s", Value: all.Seconds()})
	if u, err := measureDisk(dir); err == nil {
		res.Notes = append(res.Notes, fmt.Sprintf("data directory %.1f MB after the recovery", float64(u.allocated)/1e6))
	}

	if err := srv.stop(); err != nil {
		return res, err
	}
	accept, all, err = timeStart(ctx, srv, q, n)
	if err != nil {
		return res, fmt.Errorf("after a graceful stop: %w", err)
	}
	res.Metrics = append(res.Metrics,
		Metric{Name: "after graceful stop: accepting", Unit: "s", Value: accept.Seconds()},
		Metric{Name: "after graceful stop: all messages", Unit: "s", Value: all.Seconds()})
	res.ElapsedMs = ms(time.Since(start))
	return res, nil
}

// timeStart starts srv and returns how long until it accepted AMQP and
// until queue q reported want messages.
func timeStart(ctx context.Context, srv durableServer, q string, want int) (accept, all time.Duration, err error) {
	t0 := time.Now()
	if err := srv.start(ctx); err != nil {
		return 0, 0, err
	}
	accept = time.Since(t0)
	url, _ := srv.addr()
	at, err := waitForRecovered(ctx, url, q, want)
	if err != nil {
		return accept, 0, err
	}
	return accept, at.Sub(t0), nil
}

// waitForRecovered polls q with passive declares until it reports want
// messages. A declare that fails (the queue not back yet: 404 closes the
// channel) is retried on a new channel.
func waitForRecovered(ctx context.Context, url, q string, want int) (time.Time, error) {
	s, err := openSession(url)
	if err != nil {
		return time.Time{}, err
	}
	defer s.close()
	last, lastErr := -1, error(nil)
	for {
		qi, err := s.ch.QueueDeclarePassive(q, true, false, false, false, nil)
		if err == nil && qi.Messages >= want {
			return time.Now(), nil
		}
		if err == nil {
			last = qi.Messages
		} else {
			lastErr = err
			if s.ch, err = s.conn.Channel(); err != nil {
				return time.Time{}, err
			}
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("queue %s reports %d of %d messages (last error %v): %w", q, last, want, lastErr, ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}
