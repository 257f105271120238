package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Metric is one number a workload reports. HigherIsBetter says which way a
// ratio against another broker counts as a win.
type Metric struct {
	Name           string  `json:"name"`
	Unit           string  `json:"unit"`
	Value          float64 `json:"value"`
	HigherIsBetter bool    `json:"higher_is_better"`
}

// Result is what one run of one workload against one broker measured.
type Result struct {
	Workload  string   `json:"workload"`
	Server    string   `json:"server,omitempty"`
	Messages  int      `json:"messages"`
	SizeBytes int      `json:"size_bytes"`
	ElapsedMs float64  `json:"elapsed_ms"`
	Metrics   []Metric `json:"metrics"`
	// Notes are details worth keeping next to the numbers (memory samples,
	// how the clock was started).
	Notes []string `json:"notes,omitempty"`
}

// Metric returns the named metric, or false.
func (r Result) Metric(name string) (Metric, bool) {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// env is everything a workload needs to run once.
type env struct {
	url         string
	messages    int
	sizeBytes   int
	serverPID   int // 0: no memory measurement possible
	prefix      string
	inflightMax int           // publish-consume: how far the publisher may run ahead
	window      int           // publish-confirms and friends: unconfirmed publishes allowed
	settleMax   time.Duration // memory: longest wait for the RSS to settle
	pipe        pipeConfig    // the pipelining client's connections and batches
	scale       scaleConfig   // the scale workloads' points and spans
	// atPeak, when set, is called by workloads that have a moment of
	// greatest load (the memory workload, with every message queued), so
	// that an in-process run can write a heap profile there.
	atPeak func()
}

// name returns a broker object name unique to this run.
func (e *env) name(kind string) string { return e.prefix + "." + kind }

// workload is one load pattern. run must stop when ctx ends and must delete
// every queue and exchange it declared, also when it fails.
type workload struct {
	name     string
	messages int    // default --messages
	counts   string // what --messages counts, when not messages
	minSize  int    // smallest --size that makes sense
	settles  int    // waits up to env.settleMax this many times on top of its timeout
	durable  bool   // wants a broker that keeps its state on disk (Warren with --data)
	// fresh says the workload measures the broker's memory: compare runs
	// it first in each repetition, on a broker it has just (re)started.
	fresh bool
	// byName leaves the workload out of compare's default set: it runs
	// only when --workloads names it.
	byName bool
	// manyConns says the workload opens hundreds of connections: compare
	// raises the open-file limit before it starts the brokers.
	manyConns bool
	// scale says compare --floor runs the workload on the floor too: a
	// load at a steady rate whose latency is the point (floor.go).
	scale       bool
	description string
	run         func(ctx context.Context, e *env) (Result, error)
	// table, when set, prints compare's table of this workload's runs in
	// place of a row per metric in the common one.
	table func(out io.Writer, w workload, runs []runResult, warren, rabbit *broker)
}

// workloads lists every workload in the order compare runs them.
var workloads = []workload{
	{name: "publish-only", messages: 200_000, description: "one publisher, no confirms, into one queue; msgs/s until the queue holds them all", run: runPublishOnly},
	{name: "publish-confirms", messages: 100_000, description: "one publisher with confirms (a window of unconfirmed publishes) into one queue; msgs/s until the last ack", run: runPublishConfirms},
	{name: "publish-consume", messages: 100_000, minSize: 8, description: "one publisher, one consumer (manual acks, prefetch 500) on another connection; msgs/s and latency from a timestamp in the body", run: runPublishConsume},
	{name: "fanout-10", messages: 20_000, description: "a fanout exchange bound to 10 queues, a no-ack consumer on each; deliveries/s", run: runFanout10},
	{name: "expire-dlx", messages: 100_000, description: "messages queued behind a blocker all expire at once into a DLX; time until the DLX queue holds them all", run: runExpireDLX},
	{name: "declare-bind-10k", messages: 10_000, counts: "queues", description: "declare a queue and bind it, one after another, for 10,000 queues; ops/s (a declare and a bind are two ops)", run: runDeclareBind},
	{name: "persistent-confirms", messages: 100_000, durable: true, description: "one publisher with confirms of persistent messages into a durable queue, on a Warren with a data directory; msgs/s until the last ack", run: runPersistent},
	{name: "memory", messages: 200_000, settles: 2, fresh: true, description: "queue N messages and compare the server's RSS before and after; bytes per message (needs --pid)", run: runMemory},
	scaleQueuesWorkload(newAMQP091Scale, "", printScaleTable),
	scaleConnsWorkload(newAMQP091Scale, "", printScaleTable),
	{name: "idle-memory", messages: 1_000, counts: "idle connections, then as many idle queues", settles: 3, fresh: true, byName: true, manyConns: true, table: printIdleMemoryTable,
		description: "the broker's RSS after a warm-up, with N idle connections (one channel each), then with N idle queues too; MB per 1,000 of each beside LavinMQ's 70 and 35 (needs --pid)", run: runIdleMemory},
}

func findWorkload(name string) (workload, error) { return findIn(workloads, name) }

// findIn returns the workload called name from list.
func findIn(list []workload, name string) (workload, error) {
	for _, w := range list {
		if w.name == name {
			return w, nil
		}
	}
	names := make([]string, len(list))
	for i, w := range list {
		names[i] = w.name
	}
	sort.Strings(names)
	return workload{}, fmt.Errorf("unknown workload %q (have %s)", name, strings.Join(names, ", "))
}

// rate returns count per second over elapsed.
func rate(count int, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(count) / elapsed.Seconds()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
