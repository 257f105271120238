package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

// broker is one side of a comparison.
type broker struct {
	label string
	url   string
	pid   int
	proc  *ownedWarren // Warren started by this tool; nil otherwise
	bin   string       // to restart proc
	node  *rabbitNode  // RabbitMQ started by this tool; nil otherwise
	skip  string       // why this broker is left out, if it is
	// busyWait says how RabbitMQ's schedulers wait, from its command line.
	busyWait string
}

// startRabbitNode starts a RabbitMQ node of this tool's own in a new
// temporary directory (rabbitproc.go); close it, then remove its dir.
func startRabbitNode(ctx context.Context, script string) (*rabbitNode, error) {
	dir, err := os.MkdirTemp("", "warren-bench-rabbitmq-")
	if err != nil {
		return nil, err
	}
	node, err := newRabbitNode(script, dir)
	if err == nil {
		if err = node.start(ctx); err != nil {
			node.close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return node, nil
}

// compareConfig holds the compare subcommand's flags.
type compareConfig struct {
	reps      int
	timeout   time.Duration
	budget    time.Duration
	settleMax time.Duration
	window    int
	inflight  int
	size      int
	messages  int        // 0: each workload's own count
	mode      warrenMode // how a Warren this tool starts keeps its state
	// besideMemory also runs a second Warren in memory, whose figures the
	// tables show beside the default mode's where they differ.
	besideMemory bool
	only         []workload
	jsonPath     string
	client       string
	floor        bool // also run the scale workloads on the floor (floor.go)
	pipe         pipeConfig
	scale        scaleConfig
}

// runCompare is `warren-bench compare`: every workload against Warren and
// RabbitMQ, interleaved, --reps times, then a table of medians.
//
// Within a repetition each workload runs on both brokers back to back, and
// which goes first alternates between repetitions, so that a slow spell of
// the machine does not favour one side; before every run both brokers must
// be idle (waitQuiet). No repetition starts that would, judging by the
// longest so far, end after --budget. The workloads that measure memory
// (memory, idle-memory) run first in each repetition, each on a freshly
// started Warren (a Go process keeps freed
// heap for a while, so a reused process would reuse the memory of earlier
// workloads and look smaller than it is), and on a freshly started
// RabbitMQ when this tool runs the node (--rabbit-server; the Erlang
// allocators keep freed memory too: measured, a node that had held the
// previous repetition's 200,000 messages took 228 B/msg more for the next
// 200,000, a fresh one 2,475); a RabbitMQ given by --rabbit-url cannot be
// restarted, so its workload waits for its RSS to settle first.
func runCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren-bench compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	warrenBin := fs.String("warren-bin", "", "a built `warren` binary to start (and restart) on free loopback ports")
	warrenURL := fs.String("warren-url", "", "use an already running Warren instead of --warren-bin")
	warrenPID := fs.Int("warren-pid", 0, "with --warren-url: its pid, for the memory workload")
	rabbitURL := fs.String("rabbit-url", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ's AMQP URL; skipped with a note if unreachable")
	rabbitScript := fs.String("rabbit-server", "", "start a RabbitMQ node of this tool's own from this script (/usr/lib/rabbitmq/bin/rabbitmq-server) in a temporary directory, on loopback, instead of using --rabbit-url")
	rabbitPID := fs.Int("rabbit-pid", 0, "pid of RabbitMQ's beam.smp, for the memory workload (0: find it)")
	var cfg compareConfig
	fs.IntVar(&cfg.reps, "reps", 3, "repetitions of every workload on every broker")
	fs.DurationVar(&cfg.timeout, "timeout", 2*time.Minute, "limit per workload run")
	fs.DurationVar(&cfg.budget, "budget", 14*time.Minute, "start no repetition that would end after this much time")
	fs.DurationVar(&cfg.settleMax, "settle", 90*time.Second, "memory: wait at most this long for a server's RSS to settle")
	fs.IntVar(&cfg.window, "window", 1000, "publishes left unconfirmed at most")
	fs.IntVar(&cfg.inflight, "inflight", 1000, "publish-consume: how far the publisher may run ahead")
	fs.IntVar(&cfg.size, "size", 16, "message body size in bytes")
	fs.IntVar(&cfg.messages, "messages", 0, "messages (or what each workload counts) per run; 0: each workload's own count")
	cfg.mode = warrenDefault
	fs.Var(&cfg.mode, "warren-mode", "with --warren-bin: how Warren keeps its state, default (--data in a fresh temporary directory per process, as make run keeps it on disk) or memory (--data '')")
	fs.BoolVar(&cfg.besideMemory, "beside-memory", false, "with --warren-bin in the default mode: also run a second Warren in memory (--data ''), interleaved, and show its figure beside the default mode's where the two differ by more than "+fmt.Sprintf("%.0f%%", besideMemoryDiffers*100))
	names := fs.String("workloads", "", "comma-separated workloads (default: all but scale-queues, scale-conns and idle-memory, which run only when named)")
	fs.StringVar(&cfg.jsonPath, "json", "", "also write every run's result to this file as JSON")
	fs.BoolVar(&cfg.floor, "floor", false, "also run scale-queues and scale-conns on the floor (this binary's floor subcommand: a relay that does no broker work, with Warren's socket handling), for what is left of the latency with the broker taken out")
	fs.StringVar(&cfg.client, "client", clientAMQP091, "load client: amqp091 (every workload) or pipelined (its "+workloadNames(pipelinedWorkloads)+")")
	pipeFlags(fs, &cfg.pipe)
	scaleFlags(fs, &cfg.scale)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if (*warrenBin == "") == (*warrenURL == "") {
		fmt.Fprintln(stderr, "warren-bench compare: give exactly one of --warren-bin and --warren-url")
		return 2
	}
	modeSet := false
	fs.Visit(func(f *flag.Flag) { modeSet = modeSet || f.Name == "warren-mode" })
	if modeSet && *warrenURL != "" {
		fmt.Fprintln(stderr, "warren-bench compare: --warren-mode is for a Warren this tool starts (--warren-bin); one at --warren-url runs as it was started")
		return 2
	}
	if cfg.besideMemory && (*warrenBin == "" || cfg.mode != warrenDefault) {
		fmt.Fprintln(stderr, "warren-bench compare: --beside-memory runs a second Warren beside one this tool starts in the default mode (--warren-bin, --warren-mode default)")
		return 2
	}
	if cfg.reps < 1 || cfg.reps > 50 {
		fmt.Fprintln(stderr, "warren-bench compare: --reps must be 1..50")
		return 2
	}
	list, err := workloadsFor(cfg.client)
	if err == nil && cfg.client == clientPipelined {
		err = cfg.pipe.check()
	}
	if err == nil {
		err = cfg.scale.check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "warren-bench compare: %v\n", err)
		return 2
	}
	cfg.only = nil
	for _, w := range list {
		if !w.byName {
			cfg.only = append(cfg.only, w)
		}
	}
	if *names != "" {
		cfg.only = nil
		for _, n := range strings.Split(*names, ",") {
			w, err := findIn(list, strings.TrimSpace(n))
			if err != nil {
				fmt.Fprintf(stderr, "warren-bench compare: %v\n", err)
				return 2
			}
			cfg.only = append(cfg.only, w)
		}
	}
	if cfg.floor && !slices.ContainsFunc(cfg.only, func(w workload) bool { return w.scale }) {
		fmt.Fprintln(stderr, "warren-bench compare: --floor runs only scale-queues and scale-conns; name one of them in --workloads")
		return 2
	}
	if slices.ContainsFunc(cfg.only, func(w workload) bool { return w.manyConns }) {
		limit, err := raiseOpenFiles()
		if err != nil {
			fmt.Fprintf(stderr, "warren-bench compare: raising the open files limit: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "open files limit %d, for this process and the brokers it starts\n", limit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	warren := &broker{label: "Warren", url: *warrenURL, pid: *warrenPID, bin: *warrenBin}
	if warren.bin != "" {
		p, err := startWarrenIn(ctx, warren.bin, cfg.mode)
		if err != nil {
			fmt.Fprintf(stderr, "warren-bench compare: %v\n", err)
			return 1
		}
		warren.proc, warren.url, warren.pid = p, p.url, p.pid
		defer func() {
			if err := warren.proc.stop(); err != nil {
				fmt.Fprintf(stderr, "warren-bench compare: %v\n", err)
			}
		}()
		fmt.Fprintf(stderr, "started warren (pid %d) at %s, %s\n", warren.pid, warren.url, cfg.mode.describe())
	}
	var memory *broker
	if cfg.besideMemory {
		p, err := startWarrenIn(ctx, *warrenBin, warrenInMemory)
		if err != nil {
			fmt.Fprintf(stderr, "warren-bench compare: %v\n", err)
			return 1
		}
		memory = &broker{label: memoryLabel, url: p.url, pid: p.pid, bin: *warrenBin, proc: p}
		defer func() {
			if err := memory.proc.stop(); err != nil {
				fmt.Fprintf(stderr, "warren-bench compare: %v\n", err)
			}
		}()
		fmt.Fprintf(stderr, "started warren (pid %d) at %s, %s\n", memory.pid, memory.url, warrenInMemory.describe())
	}
	rabbit := &broker{label: "RabbitMQ", url: *rabbitURL, pid: *rabbitPID}
	if *rabbitScript != "" {
		node, err := startRabbitNode(ctx, *rabbitScript)
		if err != nil {
			fmt.Fprintf(stderr, "warren-bench compare: RabbitMQ from %s: %v\n", *rabbitScript, err)
			return 1
		}
		defer func() {
			if err := node.close(); err != nil {
				fmt.Fprintf(stderr, "warren-bench compare: stopping RabbitMQ: %v\n", err)
			}
			os.RemoveAll(node.dir)
		}()
		rabbit.url, rabbit.pid, rabbit.node = node.url, node.pid, node
		fmt.Fprintf(stderr, "started RabbitMQ (beam.smp pid %d) at %s in %s\n", node.pid, redact(node.url), node.dir)
	}
	version, err := serverVersion(rabbit.url)
	if err != nil {
		rabbit.skip = fmt.Sprintf("RabbitMQ at %s is unreachable (%v): its column is left empty", redact(rabbit.url), err)
		fmt.Fprintln(stderr, "NOTE: "+rabbit.skip)
	} else {
		rabbit.label = "RabbitMQ " + version
		if rabbit.pid == 0 {
			if rabbit.pid, err = findProcess("beam.smp"); err != nil || rabbit.pid == 0 {
				fmt.Fprintf(stderr, "NOTE: no single beam.smp process found (%v): RabbitMQ's memory and CPU are not measured; pass --rabbit-pid\n", err)
			}
		}
		if rabbit.pid != 0 {
			flags, none, err := busyWaitSettings(rabbit.pid)
			switch {
			case err != nil:
				rabbit.busyWait = fmt.Sprintf("its scheduler busy-wait flags could not be read: %v", err)
			case !none:
				rabbit.busyWait = "beam.smp runs with " + flags + ": its schedulers spin while they wait, which counts as CPU; restart it with RABBITMQ_SCHEDULER_BUSY_WAIT_THRESHOLD=none"
			default:
				rabbit.busyWait = "beam.smp runs with " + flags
			}
			fmt.Fprintln(stderr, "RabbitMQ's "+rabbit.busyWait)
		}
	}

	var floor *broker
	if cfg.floor {
		p, err := startFloor(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "warren-bench compare: %v\n", err)
			return 1
		}
		defer func() {
			if err := p.stop(); err != nil {
				fmt.Fprintf(stderr, "warren-bench compare: %v\n", err)
			}
		}()
		floor = &broker{label: floorLabel, url: p.url, pid: p.pid}
		fmt.Fprintf(stderr, "started the floor (pid %d) at %s\n", p.pid, p.url)
	}

	results := compareRuns(ctx, cfg, warren, rabbit, floor, memory, stderr)
	done := 0
	for _, r := range results {
		done = max(done, r.Rep)
	}
	printHeader(stdout, cfg, done, warren, rabbit, memory)
	printTable(stdout, cfg.only, results, warren, rabbit, memory)
	if cfg.jsonPath != "" {
		if err := writeJSON(cfg.jsonPath, results); err != nil {
			fmt.Fprintf(stderr, "warren-bench compare: %v\n", err)
			return 1
		}
	}
	if ctx.Err() != nil {
		return 1
	}
	return 0
}

// run is one workload on one broker in one repetition.
type runResult struct {
	Broker string `json:"broker"`
	Rep    int    `json:"rep"`
	Result Result `json:"result"`
	Err    string `json:"error,omitempty"`
}

// compareRuns runs the repetitions and returns every run, failed ones
// included. floor, when set, runs the scale workloads too, between the
// two brokers; memory, when set, runs every workload but those that need
// a data directory right after Warren in the default mode.
func compareRuns(ctx context.Context, cfg compareConfig, warren, rabbit, floor, memory *broker, log io.Writer) []runResult {
	var out []runResult
	started := time.Now()
	order := freshFirst(cfg.only)
	var longestRep time.Duration
	for rep := 1; rep <= cfg.reps; rep++ {
		if rep > 1 && time.Since(started)+longestRep > cfg.budget {
			fmt.Fprintf(log, "NOTE: stopping after %d repetitions: another would overrun the %s budget\n", rep-1, cfg.budget)
			break
		}
		repStart := time.Now()
		pair := []*broker{warren, memory, floor, rabbit}
		if rep%2 == 0 {
			pair = []*broker{rabbit, floor, memory, warren}
		}
		for _, w := range order {
			for _, b := range pair {
				if ctx.Err() != nil {
					return out
				}
				if b == nil || b.skip != "" || (b == floor && !w.scale) || (b == memory && w.durable) {
					continue
				}
				r := runResult{Broker: b.label, Rep: rep}
				pids := []int{warren.pid, rabbit.pid}
				for _, o := range []*broker{floor, memory} {
					if o != nil {
						pids = append(pids, o.pid)
					}
				}
				waited, quiet, qerr := waitQuiet(ctx, pids...)
				res, err := runOn(ctx, cfg, w, b)
				if qerr != nil || !quiet {
					res.Notes = append(res.Notes, fmt.Sprintf("brokers not quiet before the run after %s (%v)", waited.Round(time.Millisecond), qerr))
				}
				r.Result = res
				if err != nil {
					r.Err = err.Error()
					fmt.Fprintf(log, "rep %d %-17s %-15s ERROR %v\n", rep, w.name, b.label, err)
				} else {
					fmt.Fprintf(log, "rep %d %-17s %-15s %s\n", rep, w.name, b.label, summary(res))
				}
				out = append(out, r)
			}
		}
		longestRep = max(longestRep, time.Since(repStart))
	}
	return out
}

// freshFirst returns the workloads with those that measure memory on a
// fresh broker (workload.fresh) first, each group in its given order; see
// runCompare.
func freshFirst(ws []workload) []workload {
	order := make([]workload, 0, len(ws))
	for _, fresh := range []bool{true, false} {
		for _, w := range ws {
			if w.fresh == fresh {
				order = append(order, w)
			}
		}
	}
	return order
}

// runOn runs w once on b, restarting a Warren this tool owns first when w
// measures memory (and the RabbitMQ node, when this tool runs it), in its
// mode and on a fresh data directory. A workload that wants a broker with
// its state on disk runs, when Warren is in memory, on a second Warren
// this tool starts for it with --data in a new directory, and stops again
// after it: the other workloads keep running on the in-memory one, since
// with --data every command the broker applies goes to its log, persistent
// or not. In the default mode it runs on Warren itself.
func runOn(ctx context.Context, cfg compareConfig, w workload, b *broker) (res Result, err error) {
	if w.fresh {
		switch {
		case b.proc != nil:
			if err := b.proc.stop(); err != nil {
				return Result{}, err
			}
			p, err := startWarrenIn(ctx, b.bin, b.proc.mode)
			if err != nil {
				return Result{}, err
			}
			b.proc, b.url, b.pid = p, p.url, p.pid
		case b.node != nil:
			if err := b.node.stop(); err != nil {
				return Result{}, err
			}
			if err := b.node.start(ctx); err != nil {
				return Result{}, err
			}
			b.pid = b.node.pid
		}
		if b.pid == 0 {
			return Result{}, errors.New("no pid to read the RSS of")
		}
	}
	url, pid := b.url, b.pid
	if w.durable && b.proc != nil && b.proc.mode == warrenInMemory {
		p, serr := startWarrenIn(ctx, b.bin, warrenDefault)
		if serr != nil {
			return Result{}, serr
		}
		defer func() { err = errors.Join(err, p.stop()) }()
		url, pid = p.url, p.pid
	}
	e := &env{url: url, messages: cfg.messages, sizeBytes: cfg.size, serverPID: pid, window: cfg.window, inflightMax: cfg.inflight, settleMax: cfg.settleMax, pipe: cfg.pipe, scale: cfg.scale}
	if err := checkEnv(w, e); err != nil {
		return Result{}, err
	}
	res, err = runOnce(ctx, w, e, cfg.timeout)
	res.Server = b.label
	return res, err
}

func summary(r Result) string {
	parts := make([]string, 0, len(r.Metrics))
	for _, m := range r.Metrics {
		parts = append(parts, fmt.Sprintf("%s %s %s", m.Name, formatValue(m.Value), m.Unit))
	}
	return strings.Join(parts, ", ")
}

// serverVersion connects once and returns the server's version property.
func serverVersion(url string) (string, error) {
	c, err := dial(url)
	if err != nil {
		return "", err
	}
	defer c.Close()
	v, _ := c.Properties["version"].(string)
	p, _ := c.Properties["product"].(string)
	if p != "RabbitMQ" && p != "" {
		return p + " " + v, nil
	}
	return v, nil
}

// redact hides the password in an AMQP URL.
func redact(url string) string {
	at := strings.LastIndex(url, "@")
	scheme := strings.Index(url, "://")
	if at < 0 || scheme < 0 {
		return url
	}
	userinfo := url[scheme+3 : at]
	if i := strings.Index(userinfo, ":"); i >= 0 {
		userinfo = userinfo[:i] + ":***"
	}
	return url[:scheme+3] + userinfo + url[at:]
}

func writeJSON(path string, results []runResult) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(results); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
