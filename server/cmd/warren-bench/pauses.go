package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// `warren-bench pauses` (make bench-pauses, issue 28 item 4): no client
// waits more than 10 ms behind another's work. For each scenario a fresh
// Warren and a fresh RabbitMQ node of this tool's own are started, the
// scenario's load runs against one and then the other, and a healthy
// client (pauses_probe.go) times its round trips meanwhile; the table
// gives that client's p99 and longest round trip per scenario, Warren
// beside RabbitMQ.

// pausesConfig holds the pauses subcommand's flags.
type pausesConfig struct {
	scenarios   []string
	queues      int   // listings: queues declared, each bound once
	listingReps int   // listings: GETs of each endpoint
	burst       int   // burst: messages to the stalled consumer
	burstSize   int   // burst and flood: body bytes
	watermark   int64 // flood: bytes of messages (Warren) or beyond the node's RSS at start (RabbitMQ)
	floodSpan   time.Duration
	backlog     int // backlog: messages published into one queue
	persistent  int // persistent: persistent messages published into one durable queue
	recovery    int // recovery: persistent messages recovered at start
	interval    time.Duration
	quietSpan   time.Duration // idle and busy: how long the healthy client is timed
	timeout     time.Duration // per scenario and broker
	jsonPath    string
}

// pauseScenarioNames are the scenarios in the order they run.
var pauseScenarioNames = []string{"idle", "busy", "listings", "burst", "flood", "backlog", "persistent", "recovery"}

// pauseBroker is one broker started for one scenario.
type pauseBroker struct {
	label string
	srv   durableServer
	mgmt  string // base URL of the management API, "http://host:port"
	// watermark sets the memory alarm's limit to bytes of messages, on a
	// running broker (RabbitMQ) or at start (Warren: nil here, given as
	// a flag).
	watermark func(ctx context.Context, bytes int64) error
	onDisk    bool
	cleanup   func() error
}

func (b *pauseBroker) url() string { u, _ := b.srv.addr(); return u }

// pausesSides says how to start each broker for a scenario.
type pausesSides struct {
	warrenBin  string
	mode       warrenMode
	rabbit     string // RabbitMQ's start script; "" leaves it out
	work       string // where the brokers' directories go
	started    int
	rabbitNote string // why RabbitMQ is left out, once it failed to start
}

// startWarrenFor starts a fresh Warren for scenario sc.
func (s *pausesSides) startWarrenFor(ctx context.Context, sc string, cfg pausesConfig) (*pauseBroker, error) {
	s.started++
	w := &warrenNode{bin: s.warrenBin}
	if s.mode == warrenDefault {
		w.data = filepath.Join(s.work, fmt.Sprintf("warren-%d-%s", s.started, sc))
		if err := os.Mkdir(w.data, 0o755); err != nil {
			return nil, err
		}
	} else {
		w.extra = append(w.extra, "--data", "")
	}
	if sc == "flood" {
		w.extra = append(w.extra, "--memory-high-watermark", strconv.FormatInt(cfg.watermark, 10))
	}
	if err := w.start(ctx); err != nil {
		return nil, err
	}
	b := &pauseBroker{label: "Warren", srv: w, mgmt: "http://" + w.httpAddr, onDisk: w.data != ""}
	b.cleanup = func() error {
		err := w.stop()
		if w.data != "" {
			err = errors.Join(err, os.RemoveAll(w.data))
		}
		return err
	}
	return b, nil
}

// startRabbitFor starts a fresh RabbitMQ node, with its management plugin,
// for scenario sc.
func (s *pausesSides) startRabbitFor(ctx context.Context, sc string) (*pauseBroker, error) {
	s.started++
	dir := filepath.Join(s.work, fmt.Sprintf("rabbitmq-%d-%s", s.started, sc))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	n, err := newRabbitNodeWith(s.rabbit, dir, true)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := n.start(ctx); err != nil {
		n.close()
		os.RemoveAll(dir)
		return nil, err
	}
	label := "RabbitMQ"
	if v, err := serverVersion(n.url); err == nil {
		label += " " + v
	}
	b := &pauseBroker{label: label, srv: n, mgmt: "http://" + n.mgmt, onDisk: true}
	b.watermark = func(ctx context.Context, bytes int64) error {
		rss, err := rssBytes(n.pid)
		if err != nil {
			return err
		}
		// RabbitMQ's watermark is on the node's whole memory: the node's
		// own at start, plus the messages' allowance.
		return n.ctl(ctx, "set_vm_memory_high_watermark", "absolute", strconv.FormatInt(rss+bytes, 10))
	}
	b.cleanup = func() error { return errors.Join(n.close(), os.RemoveAll(dir)) }
	return b, nil
}

// runPauses is `warren-bench pauses`.
func runPauses(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren-bench pauses", flag.ContinueOnError)
	fs.SetOutput(stderr)
	warrenBin := fs.String("warren-bin", "", "a built `warren` binary; '' leaves Warren out")
	var mode warrenMode = warrenDefault
	fs.Var(&mode, "warren-mode", "how Warren keeps its state: default (--data in a fresh temporary directory, as `make run`) or memory (--data '')")
	rabbitScript := fs.String("rabbit-server", "/usr/lib/rabbitmq/bin/rabbitmq-server", "RabbitMQ's start script, run as a node of this tool's own with its management plugin; '' leaves RabbitMQ out")
	scenarios := fs.String("scenarios", strings.Join(pauseScenarioNames, ","), "scenarios to run: "+strings.Join(pauseScenarioNames, ", "))
	var cfg pausesConfig
	fs.IntVar(&cfg.queues, "queues", 100_000, "listings: queues declared, each also bound to a direct exchange")
	fs.IntVar(&cfg.listingReps, "listing-reps", 10, "listings: GETs of each endpoint, back to back under one healthy client")
	fs.IntVar(&cfg.burst, "burst", 100_000, "burst: messages published to a consumer that stopped reading")
	fs.IntVar(&cfg.burstSize, "size", 1024, "burst and flood: message body size in bytes")
	fs.Int64Var(&cfg.watermark, "watermark", 50<<20, "flood: Warren's --memory-high-watermark; RabbitMQ's is its RSS at start plus this")
	fs.DurationVar(&cfg.floodSpan, "flood-span", 10*time.Second, "flood: how long the publishers flood")
	fs.IntVar(&cfg.backlog, "backlog", 400_000, "backlog: 16-byte messages published into one queue nobody consumes")
	fs.IntVar(&cfg.persistent, "persistent", 300_000, "persistent: persistent messages of --size bytes published into one durable queue nobody consumes (Warren's log passes --snapshot-after several times)")
	fs.IntVar(&cfg.recovery, "recovery-messages", 1_000_000, "recovery: persistent messages in a durable queue when the broker is killed and restarted")
	fs.DurationVar(&cfg.interval, "interval", time.Millisecond, "the healthy client's pause between round trips")
	fs.DurationVar(&cfg.quietSpan, "quiet-span", 2*time.Second, "idle and busy: how long the healthy client is timed")
	fs.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "limit per scenario and broker")
	fs.StringVar(&cfg.jsonPath, "json", "", "also write every run's result to this file as JSON")
	work := fs.String("work", "", "directory for the brokers' data (default: a new temporary one, removed at the end)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	for _, s := range strings.Split(*scenarios, ",") {
		if !slices.Contains(pauseScenarioNames, s) {
			fmt.Fprintf(stderr, "warren-bench pauses: unknown scenario %q: want some of %s\n", s, strings.Join(pauseScenarioNames, ", "))
			return 2
		}
		cfg.scenarios = append(cfg.scenarios, s)
	}
	switch {
	case *warrenBin == "" && *rabbitScript == "":
		fmt.Fprintln(stderr, "warren-bench pauses: nothing to measure: give --warren-bin or --rabbit-server")
		return 2
	case min(cfg.queues, cfg.listingReps, cfg.burst, cfg.backlog, cfg.persistent, cfg.recovery) < 1 || max(cfg.queues, cfg.burst, cfg.backlog, cfg.persistent, cfg.recovery) > 10_000_000 || cfg.listingReps > 1000:
		fmt.Fprintln(stderr, "warren-bench pauses: counts must be 1..10000000, --listing-reps 1..1000")
		return 2
	case cfg.burstSize < 0 || cfg.burstSize > 1<<20 || cfg.watermark < 1<<20:
		fmt.Fprintln(stderr, "warren-bench pauses: --size must be 0..1048576 and --watermark at least 1 MB")
		return 2
	case cfg.interval < 0 || cfg.interval > time.Second:
		fmt.Fprintln(stderr, "warren-bench pauses: --interval must be 0..1s")
		return 2
	case cfg.quietSpan < 10*time.Millisecond || cfg.quietSpan > time.Minute:
		fmt.Fprintln(stderr, "warren-bench pauses: --quiet-span must be 10ms..1m")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	dir := *work
	if dir == "" {
		d, err := os.MkdirTemp("", "warren-bench-pauses-")
		if err != nil {
			fmt.Fprintf(stderr, "warren-bench pauses: %v\n", err)
			return 1
		}
		defer os.RemoveAll(d)
		dir = d
	}
	sides := &pausesSides{warrenBin: *warrenBin, mode: mode, rabbit: *rabbitScript, work: dir}
	runs := pausesRuns(ctx, cfg, sides, stderr)
	printPauses(stdout, cfg, sides, runs)
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, runs); err != nil {
			fmt.Fprintf(stderr, "warren-bench pauses: %v\n", err)
			return 1
		}
	}
	if ctx.Err() != nil {
		return 1
	}
	for _, r := range runs {
		if r.Err != "" {
			return 1
		}
	}
	return 0
}

// pausesRuns runs every scenario on a fresh Warren and then a fresh
// RabbitMQ (the order alternating from one scenario to the next).
func pausesRuns(ctx context.Context, cfg pausesConfig, sides *pausesSides, log io.Writer) []runResult {
	var out []runResult
	for i, sc := range cfg.scenarios {
		order := []string{"warren", "rabbit"}
		if i%2 == 1 {
			order = []string{"rabbit", "warren"}
		}
		for _, which := range order {
			if ctx.Err() != nil {
				return out
			}
			var b *pauseBroker
			var err error
			switch {
			case which == "warren" && sc == "recovery" && sides.mode != warrenDefault:
				fmt.Fprintln(log, "NOTE: recovery: Warren in memory has nothing to recover (--warren-mode default measures it)")
				continue
			case which == "warren" && sides.warrenBin != "":
				b, err = sides.startWarrenFor(ctx, sc, cfg)
			case which == "rabbit" && sides.rabbit != "" && sides.rabbitNote == "":
				b, err = sides.startRabbitFor(ctx, sc)
				if err != nil {
					sides.rabbitNote = fmt.Sprintf("RabbitMQ could not be started from %s (%v): its column is left empty", sides.rabbit, err)
					fmt.Fprintln(log, "NOTE: "+sides.rabbitNote)
					continue
				}
			default:
				continue
			}
			if err != nil {
				out = append(out, runResult{Broker: "Warren", Rep: 1, Result: Result{Workload: sc}, Err: err.Error()})
				fmt.Fprintf(log, "%-10s %-10s ERROR starting: %v\n", sc, which, err)
				continue
			}
			url, pid := b.srv.addr()
			fmt.Fprintf(log, "%-10s started %s (pid %d) at %s\n", sc, b.label, pid, redact(url))
			sctx, cancel := context.WithTimeout(ctx, cfg.timeout)
			results, err := runPauseScenario(sctx, sc, cfg, b, log)
			cancel()
			for _, res := range results {
				res.Server = b.label
				out = append(out, runResult{Broker: pauseColumn(b.label), Rep: 1, Result: res})
				fmt.Fprintf(log, "%-10s %-24s %s\n", sc, b.label, summary(res))
			}
			if err != nil {
				out = append(out, runResult{Broker: pauseColumn(b.label), Rep: 1, Result: Result{Workload: sc, Server: b.label}, Err: err.Error()})
				fmt.Fprintf(log, "%-10s %-24s ERROR %v\n", sc, b.label, err)
			}
			if err := b.cleanup(); err != nil {
				fmt.Fprintf(log, "%-10s stopping %s: %v\n", sc, b.label, err)
			}
		}
	}
	return out
}

// pauseColumn is the column a broker's results go to.
func pauseColumn(label string) string {
	if strings.HasPrefix(label, "RabbitMQ") {
		return "RabbitMQ"
	}
	return "Warren"
}

// runPauseScenario runs one scenario on b; a scenario may report several
// results (the listings, one per endpoint).
func runPauseScenario(ctx context.Context, sc string, cfg pausesConfig, b *pauseBroker, log io.Writer) ([]Result, error) {
	switch sc {
	case "idle":
		res, err := probed(b.url(), cfg.interval, func() (Result, error) {
			time.Sleep(cfg.quietSpan)
			return Result{Workload: fmt.Sprintf("idle, %s", cfg.quietSpan)}, nil
		})
		return []Result{res}, err
	case "busy":
		res, err := probed(b.url(), cfg.interval, func() (Result, error) {
			loops := spinFor(cfg.quietSpan)
			return Result{Workload: fmt.Sprintf("idle, %s, %d loops spinning (a CPU each) outside the broker", cfg.quietSpan, loops)}, nil
		})
		return []Result{res}, err
	case "listings":
		return runListings(ctx, cfg, b, log)
	case "burst":
		res, err := runBurst(ctx, cfg, b)
		return []Result{res}, err
	case "flood":
		res, err := runFlood(ctx, cfg, b)
		return []Result{res}, err
	case "backlog":
		res, err := runBacklog(ctx, cfg, b)
		return []Result{res}, err
	case "persistent":
		res, err := runPersistentBacklog(ctx, cfg, b)
		return []Result{res}, err
	case "recovery":
		if !b.onDisk {
			return nil, errors.New("in memory: nothing to recover (--warren-mode default runs it)")
		}
		res, err := runRecoveryPauses(ctx, cfg, b, log)
		return []Result{res}, err
	}
	return nil, fmt.Errorf("unknown scenario %q", sc)
}

// printPauses prints where and when, then one Markdown row per scenario
// with the healthy client's p99 and longest round trip on each broker,
// then the other metrics and every run's notes.
func printPauses(out io.Writer, cfg pausesConfig, sides *pausesSides, runs []runResult) {
	host, _ := os.Hostname()
	fmt.Fprintf(out, "\nwarren-bench pauses, %s, on %s: %d CPUs, %s\n",
		time.Now().UTC().Format(time.UnixDate), host, runtime.NumCPU(), runtime.Version())
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(out, "load average at the end: %s\n", strings.Join(strings.Fields(string(b))[:3], " "))
	}
	fmt.Fprintf(out, "Warren: %s; a healthy client does a passive queue.declare every %s and times it\n\n", sides.mode.describe(), cfg.interval)
	if sides.rabbitNote != "" {
		fmt.Fprintf(out, "NOTE: %s\n\n", sides.rabbitNote)
	}
	fmt.Fprintln(out, "| scenario | healthy client | Warren | RabbitMQ | Warren ÷ RabbitMQ |")
	fmt.Fprintln(out, "|---|---|---|---|---|")
	var order []string
	for _, r := range runs {
		if !slices.Contains(order, r.Result.Workload) && r.Err == "" {
			order = append(order, r.Result.Workload)
		}
	}
	for _, w := range order {
		wr := metricSeries(runs, w, "Warren")
		rr := metricSeries(runs, w, "RabbitMQ")
		for _, name := range metricNames(runs, w) {
			m := metricSeriesMeta(runs, w, name)
			wv, rv := wr[name], rr[name]
			ratio := ""
			if len(wv) > 0 && len(rv) > 0 && median(rv) != 0 {
				ratio = fmt.Sprintf("%.2f×", median(wv)/median(rv))
			}
			unit := ""
			if m.Unit != "" {
				unit = " (" + m.Unit + ")"
			}
			fmt.Fprintf(out, "| %s | %s%s | %s | %s | %s |\n", w, name, unit, cell(wv), cell(rv), ratio)
		}
	}
	fmt.Fprintln(out)
	for _, r := range runs {
		if r.Err != "" {
			fmt.Fprintf(out, "FAILED %s on %s: %s\n", r.Result.Workload, r.Broker, r.Err)
		}
		for _, n := range r.Result.Notes {
			fmt.Fprintf(out, "%s on %s: %s\n", r.Result.Workload, r.Result.Server, n)
		}
	}
}
