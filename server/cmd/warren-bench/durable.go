package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

// durableConfig holds the durable subcommand's flags.
type durableConfig struct {
	reps        int
	messages    int // persistent publish, windowed
	window      int
	syncMsgs    int // persistent publish, window 1
	recoveryN   int // 0: no recovery run
	size        int
	timeout     time.Duration
	recoveryMax time.Duration
	budget      time.Duration
	jsonPath    string
}

// durableSide is one broker in the durable comparison.
type durableSide struct {
	label  string
	srv    durableServer
	onDisk bool   // its state is in a data directory (else recovery is skipped)
	skip   string // why it is left out, if it is
}

// runDurable is `warren-bench durable`: persistence benchmarks against a
// Warren started with --data in a temporary directory and a RabbitMQ node
// this tool starts in another (never the machine's own RabbitMQ, which it
// must not crash): persistent publish with confirms to a durable queue at
// --window and at window 1, transient publish with confirms to a
// non-durable queue at window 1 (the same round trips with no disk, so
// that the difference is what a fsync adds), and recovery of --recovery-messages after
// SIGKILL and after a graceful stop, with bytes on disk per message.
func runDurable(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren-bench durable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	warrenBin := fs.String("warren-bin", "", "a built `warren` binary; started with --data in the work directory (in memory, with a note, if it has no --data)")
	rabbitScript := fs.String("rabbit-server", "/usr/lib/rabbitmq/bin/rabbitmq-server", "RabbitMQ's start script, run as a node of this tool's own; '' leaves RabbitMQ out")
	work := fs.String("work", "", "directory for both brokers' data (default: a new temporary one, removed at the end)")
	var cfg durableConfig
	fs.IntVar(&cfg.reps, "reps", 3, "repetitions of the publish runs on every broker")
	fs.IntVar(&cfg.messages, "messages", 100_000, "persistent publish: messages per run")
	fs.IntVar(&cfg.window, "window", 256, "persistent publish: publishes left unconfirmed at most")
	fs.IntVar(&cfg.syncMsgs, "sync-messages", 10_000, "persistent publish with window 1 (each publish waits for its confirm): messages per run")
	fs.IntVar(&cfg.recoveryN, "recovery-messages", 1_000_000, "recovery: messages queued before the kill (0: no recovery run)")
	fs.IntVar(&cfg.size, "size", 16, "message body size in bytes")
	fs.DurationVar(&cfg.timeout, "timeout", 3*time.Minute, "limit per publish run")
	fs.DurationVar(&cfg.recoveryMax, "recovery-timeout", 10*time.Minute, "limit per recovery run (fill, kill, two restarts)")
	fs.DurationVar(&cfg.budget, "budget", 10*time.Minute, "start no publish repetition that would end after this much time")
	fs.StringVar(&cfg.jsonPath, "json", "", "also write every run's result to this file as JSON")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case *warrenBin == "" && *rabbitScript == "":
		fmt.Fprintln(stderr, "warren-bench durable: nothing to measure: give --warren-bin or --rabbit-server")
		return 2
	case cfg.reps < 1 || cfg.reps > 50:
		fmt.Fprintln(stderr, "warren-bench durable: --reps must be 1..50")
		return 2
	case cfg.messages < 1 || cfg.syncMsgs < 1 || cfg.recoveryN < 0 || max(cfg.messages, cfg.syncMsgs, cfg.recoveryN) > 10_000_000:
		fmt.Fprintln(stderr, "warren-bench durable: message counts must be 1..10000000 (--recovery-messages may be 0)")
		return 2
	case cfg.window < 1 || cfg.window > 1_000_000 || cfg.size < 0 || cfg.size > 1<<20:
		fmt.Fprintln(stderr, "warren-bench durable: --window must be 1..1000000 and --size 0..1048576")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "warren-bench-durable-")
		if err != nil {
			fmt.Fprintf(stderr, "warren-bench durable: %v\n", err)
			return 1
		}
		defer os.RemoveAll(d)
		dir = d
	}
	warren := startWarrenSide(ctx, *warrenBin, filepath.Join(dir, "warren-data"), stderr)
	defer closeSide(warren, stderr)
	rabbit := startRabbitSide(ctx, *rabbitScript, filepath.Join(dir, "rabbitmq"), stderr)
	defer closeSide(rabbit, stderr)

	results := durableRuns(ctx, cfg, warren, rabbit, stderr)
	printDurable(stdout, cfg, results, warren, rabbit)
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, results); err != nil {
			fmt.Fprintf(stderr, "warren-bench durable: %v\n", err)
			return 1
		}
	}
	if ctx.Err() != nil {
		return 1
	}
	return 0
}

// hasDataFlag says whether `bin serve` accepts --data (its -h lists it).
func hasDataFlag(ctx context.Context, bin string) bool {
	ctx, cancel := context.WithTimeout(ctx, warrenStartMax)
	defer cancel()
	out, _ := exec.CommandContext(ctx, bin, "serve", "-h").CombinedOutput()
	return strings.Contains(string(out), "\n  -data ")
}

func startWarrenSide(ctx context.Context, bin, data string, log io.Writer) *durableSide {
	side := &durableSide{label: "Warren"}
	if bin == "" {
		side.skip = "no --warren-bin: Warren's column is left empty"
		fmt.Fprintln(log, "NOTE: "+side.skip)
		return side
	}
	node := &warrenNode{bin: bin}
	if hasDataFlag(ctx, bin) {
		if err := os.Mkdir(data, 0o755); err != nil {
			side.skip = err.Error()
			return side
		}
		node.data, side.onDisk = data, true
	} else {
		side.label = "Warren (in memory)"
		fmt.Fprintln(log, "NOTE: this warren has no --data flag: it runs in memory, without disk or recovery figures")
	}
	if err := node.start(ctx); err != nil {
		side.skip = fmt.Sprintf("warren did not start: %v", err)
		fmt.Fprintln(log, "NOTE: "+side.skip)
		return side
	}
	side.srv = node
	url, pid := node.addr()
	fmt.Fprintf(log, "started warren (pid %d) at %s, data %q\n", pid, url, node.data)
	return side
}

func startRabbitSide(ctx context.Context, script, dir string, log io.Writer) *durableSide {
	side := &durableSide{label: "RabbitMQ"}
	if script == "" {
		side.skip = "--rabbit-server '': RabbitMQ's column is left empty"
		fmt.Fprintln(log, "NOTE: "+side.skip)
		return side
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		side.skip = err.Error()
		return side
	}
	node, err := newRabbitNode(script, dir)
	if err == nil {
		if err = node.start(ctx); err != nil {
			node.close()
		}
	}
	if err != nil {
		side.skip = fmt.Sprintf("RabbitMQ could not be started from %s (%v): its column is left empty", script, err)
		fmt.Fprintln(log, "NOTE: "+side.skip)
		return side
	}
	side.srv, side.onDisk = node, true
	url, pid := node.addr()
	if v, err := serverVersion(url); err == nil {
		side.label = "RabbitMQ " + v
	}
	fmt.Fprintf(log, "started %s (beam.smp pid %d) at %s, mnesia %s\n", side.label, pid, redact(url), node.mnesia)
	return side
}

func closeSide(side *durableSide, log io.Writer) {
	if side.srv == nil {
		return
	}
	if err := side.srv.close(); err != nil {
		fmt.Fprintf(log, "warren-bench durable: stopping %s: %v\n", side.label, err)
	}
}

// publishCase is one persistent publish setting.
type publishCase struct {
	name     string
	messages int
	window   int
	disk     bool // measure the data directory's growth
	// transient publishes transient messages into a non-durable queue:
	// the round trips of the persistent case without its disk, so that
	// the difference is what keeping a message costs.
	transient bool
}

// durableRuns runs the publish cases --reps times, interleaved like
// compare (both brokers back to back, the order alternating, both idle
// before each run), then one recovery run per broker whose state is on
// disk.
func durableRuns(ctx context.Context, cfg durableConfig, warren, rabbit *durableSide, log io.Writer) []runResult {
	cases := []publishCase{
		{name: fmt.Sprintf("persistent, window %d", cfg.window), messages: cfg.messages, window: cfg.window, disk: true},
		{name: "persistent, window 1", messages: cfg.syncMsgs, window: 1},
		{name: "transient, window 1", messages: cfg.syncMsgs, window: 1, transient: true},
	}
	var out []runResult
	record := func(rep int, side *durableSide, res Result, err error) {
		r := runResult{Broker: side.label, Rep: rep, Result: res}
		if err != nil {
			r.Err = err.Error()
			fmt.Fprintf(log, "rep %d %-26s %-16s ERROR %v\n", rep, res.Workload, side.label, err)
			if gone := side.srv.running(); gone != nil {
				side.skip = fmt.Sprintf("%s stopped in rep %d %s: %v", side.label, rep, res.Workload, gone)
				fmt.Fprintln(log, "NOTE: "+side.skip)
			}
		} else {
			fmt.Fprintf(log, "rep %d %-26s %-16s %s\n", rep, res.Workload, side.label, summary(res))
		}
		out = append(out, r)
	}
	pids := func() []int {
		var ps []int
		for _, s := range []*durableSide{warren, rabbit} {
			if s.srv != nil && s.skip == "" {
				_, pid := s.srv.addr()
				ps = append(ps, pid)
			}
		}
		return ps
	}
	started := time.Now()
	var longest time.Duration
	for rep := 1; rep <= cfg.reps; rep++ {
		if rep > 1 && time.Since(started)+longest > cfg.budget {
			fmt.Fprintf(log, "NOTE: stopping after %d repetitions: another would overrun the %s budget\n", rep-1, cfg.budget)
			break
		}
		repStart := time.Now()
		pair := []*durableSide{warren, rabbit}
		if rep%2 == 0 {
			pair = []*durableSide{rabbit, warren}
		}
		for _, c := range cases {
			for _, side := range pair {
				if ctx.Err() != nil {
					return out
				}
				if side.srv == nil || side.skip != "" {
					continue
				}
				waited, quiet, qerr := waitQuiet(ctx, pids()...)
				rctx, cancel := context.WithTimeout(ctx, cfg.timeout)
				res, err := runConfirms(rctx, side.srv, c, cfg.size)
				cancel()
				if qerr != nil || !quiet {
					res.Notes = append(res.Notes, fmt.Sprintf("brokers not quiet before the run after %s (%v)", waited.Round(time.Millisecond), qerr))
				}
				res.Workload, res.Server, res.Messages, res.SizeBytes = c.name, side.label, c.messages, cfg.size
				record(rep, side, res, err)
			}
		}
		longest = max(longest, time.Since(repStart))
	}
	if cfg.recoveryN == 0 {
		return out
	}
	name := fmt.Sprintf("recovery of %s", thousands(int64(cfg.recoveryN)))
	for _, side := range []*durableSide{warren, rabbit} {
		if ctx.Err() != nil {
			return out
		}
		if side.srv == nil || side.skip != "" || !side.onDisk {
			continue
		}
		waitQuiet(ctx, pids()...)
		rctx, cancel := context.WithTimeout(ctx, cfg.recoveryMax)
		res, err := runRecovery(rctx, side.srv, cfg.recoveryN, cfg.window, cfg.size)
		cancel()
		res.Workload, res.Server, res.Messages, res.SizeBytes = name, side.label, cfg.recoveryN, cfg.size
		record(1, side, res, err)
	}
	return out
}

// printDurable prints where and when, then one Markdown row per workload
// metric with each broker's median and range and Warren's median as a
// multiple of RabbitMQ's, then every run's notes.
func printDurable(out io.Writer, cfg durableConfig, runs []runResult, warren, rabbit *durableSide) {
	host, _ := os.Hostname()
	fmt.Fprintf(out, "\nwarren-bench durable, %s, on %s: %d CPUs, %s\n",
		time.Now().UTC().Format(time.UnixDate), host, runtime.NumCPU(), runtime.Version())
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(out, "load average at the end: %s\n", strings.Join(strings.Fields(string(b))[:3], " "))
	}
	fmt.Fprintf(out, "persistent (delivery-mode 2) %d-byte messages, durable classic queues, confirms; medians of up to %d repetitions, range in brackets\n\n", cfg.size, cfg.reps)
	for _, s := range []*durableSide{warren, rabbit} {
		if s.skip != "" {
			fmt.Fprintf(out, "NOTE: %s\n\n", s.skip)
		}
	}
	fmt.Fprintf(out, "| workload | metric | %s | %s | Warren ÷ RabbitMQ |\n", warren.label, rabbit.label)
	fmt.Fprintln(out, "|---|---|---|---|---|")
	var order []string
	for _, r := range runs {
		if !slices.Contains(order, r.Result.Workload) {
			order = append(order, r.Result.Workload)
		}
	}
	for _, w := range order {
		wr := metricSeries(runs, w, warren.label)
		rr := metricSeries(runs, w, rabbit.label)
		for _, name := range metricNames(runs, w) {
			m := metricSeriesMeta(runs, w, name)
			wv, rv := wr[name], rr[name]
			ratio := ""
			if len(wv) > 0 && len(rv) > 0 && median(rv) != 0 {
				ratio = fmt.Sprintf("%.2f×", median(wv)/median(rv))
			}
			fmt.Fprintf(out, "| %s | %s (%s) | %s | %s | %s |\n", w, name, m.Unit, cell(wv), cell(rv), ratio)
		}
	}
	fmt.Fprintln(out)
	for _, r := range runs {
		if r.Err != "" {
			fmt.Fprintf(out, "FAILED rep %d %s on %s: %s\n", r.Rep, r.Result.Workload, r.Broker, r.Err)
		}
		for _, n := range r.Result.Notes {
			fmt.Fprintf(out, "rep %d %s on %s: %s\n", r.Rep, r.Result.Workload, r.Broker, n)
		}
	}
}
