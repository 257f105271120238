// Command warren-bench puts an AMQP 0-9-1 broker under load and reports
// what it measured. It runs against any AMQP URL, so the same workloads
// measure Warren and RabbitMQ. Its load client is amqp091-go (one write
// system call per publish) unless --client pipelined picks its own
// pipelining client (pipe_*.go: several connections, many frames per
// system call), which on a machine with few cores costs far less than the
// broker it measures.
//
//	warren-bench --url URL --workload NAME [--messages N] [--size 16] [--pid PID] [--json] [--client pipelined]
//	warren-bench --inproc --workload NAME [--cpuprofile FILE] [--memprofile FILE]
//	warren-bench compare --warren-bin PATH [--warren-mode default|memory] [--beside-memory] [--rabbit-server SCRIPT | --rabbit-url URL] [--reps 3] [--client pipelined]
//	warren-bench serve [--amqp ADDR] [--for 1m] [--cpuprofile FILE] [--memprofile FILE]
//	warren-bench durable --warren-bin PATH [--rabbit-server PATH] [--reps 3]
//	warren-bench sessions --warren-bin PATH [--sessions 100] [--participants 5] [--commands 20] [--rate 5] [--amqp=false]
//	warren-bench floor [--amqp 127.0.0.1:5674]
//	warren-bench pauses --warren-bin PATH [--warren-mode default|memory] [--rabbit-server PATH] [--scenarios idle,listings,...] [--queues 100000]
//	warren-bench probe --url URL [--interval 1ms]
//
// The first form runs one workload once. The second starts a Warren server
// inside this process on loopback ports and runs the workload against it,
// with the server's goroutines labelled side=server and the client's
// side=client in the CPU profile, so `go tool pprof -tagfocus side=server`
// shows where the server spends its time. The third is what `make
// bench-amqp` runs: every workload against a Warren it starts (on a
// fresh data directory, as `make run` keeps its state; in memory with
// --warren-mode memory, or both with --beside-memory) and against
// RabbitMQ, interleaved, several times, and a side-by-side table of
// medians.
// The fourth runs only a Warren server in this process, under the CPU
// profiler, for workloads driven from another process: a profile of the
// server alone, in the same setting as the comparison. The fifth is what
// `make bench-durable` runs: persistent publishing with confirms, recovery
// after SIGKILL and bytes on disk, against a Warren started with --data
// and a RabbitMQ node of its own, both in a temporary directory. The
// sixth is what `make bench-sessions` runs: shared sessions under load over
// the browser protocol and from one real AMQP client per session, with
// fan-out latency, publish->confirm latency and memory per idle session
// (see sessions.go and sessions_amqp.go). The seventh is the floor
// (floor.go), a relay that does no broker work, which compare --floor
// starts and runs the scale workloads on beside the two brokers. The
// eighth is what `make bench-pauses` runs (pauses.go): a healthy client's
// round trips while another client loads the broker, Warren beside
// RabbitMQ. The ninth is that healthy client, which pauses runs as a
// process of its own (pauses_probe.go): it prints each round trip's
// nanoseconds, one a line, until its stdin closes.
//
// compare's default set leaves out scale-queues, scale-conns and
// idle-memory (scale.go), which run only when --workloads names them, as
// `make bench-scale` does: the same offered rate over more queues or
// connections, and memory per idle connection and queue.
//
// Every workload declares its own uniquely named queues and exchanges and
// deletes them when it ends, also on failure; every wait is bounded by
// --timeout. Given the broker's pid (--pid; compare knows it), every
// throughput workload also reports the broker's CPU time (user + system
// from /proc/PID/stat) over its timed span per message, delivery or
// declare, beside the client's own (cpu.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its outputs passed in. It returns the exit status: 0
// ok, 1 a failed workload, 2 a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "compare":
			return runCompare(args[1:], stdout, stderr)
		case "serve":
			return runServe(args[1:], stdout, stderr)
		case "durable":
			return runDurable(args[1:], stdout, stderr)
		case "sessions":
			return runSessions(args[1:], stdout, stderr)
		case "floor":
			return runFloor(args[1:], stdout, stderr)
		case "pauses":
			return runPauses(args[1:], stdout, stderr)
		case "probe":
			return runProbe(args[1:], os.Stdin, stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("warren-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("url", "amqp://guest:guest@127.0.0.1:5672/", "AMQP URL of the broker")
	name := fs.String("workload", "", "workload to run: "+workloadNames(workloads))
	messages := fs.Int("messages", 0, "messages (queues for declare-bind-10k); 0: the workload's default")
	size := fs.Int("size", 16, "message body size in bytes")
	pid := fs.Int("pid", 0, "the server's process id, for the memory workload's RSS and the broker's CPU per message")
	jsonOut := fs.Bool("json", false, "print the result as one JSON object")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up on the workload after this long")
	window := fs.Int("window", 1000, "publishes left unconfirmed at most, in the workloads that use confirms")
	inflight := fs.Int("inflight", 1000, "publish-consume: messages the publisher may be ahead of the consumer")
	settleMax := fs.Duration("settle", 90*time.Second, "memory: wait at most this long for the server's RSS to settle, before and after")
	repeat := fs.Int("repeat", 1, "run the workload this many times in a row (one result each)")
	inproc := fs.Bool("inproc", false, "start a Warren server in this process and run against it (ignores --url)")
	cpuProfile := fs.String("cpuprofile", "", "with --inproc: write a CPU profile of the workload to this file")
	memProfile := fs.String("memprofile", "", "with --inproc: write a heap profile at the workload's peak (memory) or end")
	client := fs.String("client", clientAMQP091, "load client: amqp091 (amqp091-go, a write per publish) or pipelined (many frames per system call; "+workloadNames(pipelinedWorkloads)+")")
	var pipe pipeConfig
	pipeFlags(fs, &pipe)
	var scale scaleConfig
	scaleFlags(fs, &scale)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "warren-bench: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	list, err := workloadsFor(*client)
	if err == nil && *client == clientPipelined {
		err = pipe.check()
	}
	if err == nil {
		err = scale.check()
	}
	if err != nil {
		fmt.Fprintf(stderr, "warren-bench: %v\n", err)
		return 2
	}
	w, err := findIn(list, *name)
	if err != nil {
		fmt.Fprintf(stderr, "warren-bench: %v\n", err)
		return 2
	}
	if (*cpuProfile != "" || *memProfile != "") && !*inproc {
		fmt.Fprintln(stderr, "warren-bench: --cpuprofile and --memprofile profile an in-process server: add --inproc")
		return 2
	}
	e := &env{url: *url, messages: *messages, sizeBytes: *size, serverPID: *pid, window: *window, inflightMax: *inflight, settleMax: *settleMax, pipe: pipe, scale: scale}
	if err := checkEnv(w, e); err != nil {
		fmt.Fprintf(stderr, "warren-bench: %v\n", err)
		return 2
	}
	if *repeat < 1 || *repeat > 100 {
		fmt.Fprintln(stderr, "warren-bench: --repeat must be 1..100")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	report := func(res Result) error {
		if *jsonOut {
			return json.NewEncoder(stdout).Encode(res)
		}
		printResult(stdout, res)
		return nil
	}
	if *inproc {
		err = runInProcess(ctx, w, e, *repeat, *timeout, profiles{cpu: *cpuProfile, heap: *memProfile}, report)
	} else {
		err = runRepeated(ctx, w, e, *repeat, *timeout, report)
	}
	if err != nil {
		fmt.Fprintf(stderr, "warren-bench: %s: %v\n", w.name, err)
		return 1
	}
	return 0
}

// runRepeated runs w n times, reporting each result, and stops at the
// first failure.
func runRepeated(ctx context.Context, w workload, e *env, n int, timeout time.Duration, report func(Result) error) error {
	for i := 0; i < n; i++ {
		res, err := runOnce(ctx, w, e, timeout)
		if err != nil {
			return err
		}
		if err := report(res); err != nil {
			return err
		}
	}
	return nil
}

// checkEnv fills defaults and rejects settings a workload cannot use.
func checkEnv(w workload, e *env) error {
	if e.messages == 0 {
		e.messages = w.messages
	}
	switch {
	case e.messages < 1 || e.messages > 10_000_000:
		return fmt.Errorf("--messages %d: want 1..10000000", e.messages)
	case e.sizeBytes < w.minSize || e.sizeBytes > 1<<20:
		return fmt.Errorf("--size %d: %s wants %d..%d", e.sizeBytes, w.name, w.minSize, 1<<20)
	case e.window < 1 || e.window > 1_000_000:
		return fmt.Errorf("--window %d: want 1..1000000", e.window)
	case e.inflightMax < 1 || e.inflightMax > 1_000_000:
		return fmt.Errorf("--inflight %d: want 1..1000000", e.inflightMax)
	}
	return nil
}

// runOnce runs w once against e.url with a fresh name prefix, bounded by
// timeout.
func runOnce(ctx context.Context, w workload, e *env, timeout time.Duration) (Result, error) {
	timeout += time.Duration(w.settles) * e.settleMax
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	e.prefix = fmt.Sprintf("warren-bench.%s.%08x", w.name, rand.Uint32())
	res, err := w.run(ctx, e)
	res.Workload, res.Messages, res.SizeBytes = w.name, e.messages, e.sizeBytes
	return res, err
}

func printResult(out io.Writer, r Result) {
	if w, err := findWorkload(r.Workload); err == nil && w.counts != "" {
		fmt.Fprintf(out, "%s: %d %s, %.0f ms", r.Workload, r.Messages, w.counts, r.ElapsedMs)
	} else {
		fmt.Fprintf(out, "%s: %d messages of %d bytes, %.0f ms", r.Workload, r.Messages, r.SizeBytes, r.ElapsedMs)
	}
	if r.Server != "" {
		fmt.Fprintf(out, " (%s)", r.Server)
	}
	fmt.Fprintln(out)
	for _, m := range r.Metrics {
		fmt.Fprintf(out, "  %-14s %12.1f %s\n", m.Name, m.Value, m.Unit)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(out, "  (%s)\n", n)
	}
}

// workloadNames lists the names of list's workloads, for a flag's help.
func workloadNames(list []workload) string {
	s := ""
	for i, w := range list {
		if i > 0 {
			s += ", "
		}
		s += w.name
	}
	return s
}
