package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

// The scale workloads (issue 13, item 4: "scale with work") show how the
// broker's CPU per message and the publish->deliver latency change as the
// same load is spread over more queues (scale-queues) or more connections
// (scale-conns), and how much memory idle connections and idle queues
// take (idle-memory, scale_memory.go). They run only when named
// (`compare --workloads scale-queues,scale-conns,idle-memory`, what `make
// bench-scale` runs) and print tables of their own (scale_table.go).
// scale-queues and scale-conns run with either client: amqp091-go by
// default (scale_amqp091.go), or with --client pipelined the project's
// own codec (scale_pipe.go), which costs less CPU per message than
// amqp091-go, so that more of the latency measured is the broker's. The
// plan, the schedule and the tally are the same for both
// (scale_plan.go, scale_schedule.go, scale_load.go).

// Defaults of the scale workloads' settings.
const (
	defaultScaleWarmup   = time.Second
	defaultScaleSpan     = 3 * time.Second
	defaultScaleGroups   = 4
	defaultScalePrefetch = 100
	// scaleRateMsgs is the offered rate: the same for every point and
	// both brokers, well under what either sustains on one queue.
	scaleRateMsgs = 10_000
	// scalePointsMax bounds the points of one workload, and scaleNMax
	// the queues or connections of one point.
	scalePointsMax = 10
	scaleNMax      = 5_000
)

// scaleConfig holds the scale workloads' settings (flags of the single
// run and of compare).
type scaleConfig struct {
	queues   intList       // scale-queues: queue counts, one point each
	conns    intList       // scale-conns: connection counts, one point each
	warmup   time.Duration // each point: load before the measured span
	span     time.Duration // each point: the measured span
	groups   int           // scale-queues: publishing connections, and consuming ones, at most
	prefetch int           // basic.qos of every consumer
}

// defaultScaleConfig is the configuration the flags start from.
func defaultScaleConfig() scaleConfig {
	return scaleConfig{
		queues: intList{1, 10, 100, 1000}, conns: intList{1, 10, 100, 500},
		warmup: defaultScaleWarmup, span: defaultScaleSpan,
		groups: defaultScaleGroups, prefetch: defaultScalePrefetch,
	}
}

// scaleFlags defines the scale workloads' flags on fs, starting from the
// defaults.
func scaleFlags(fs *flag.FlagSet, c *scaleConfig) {
	*c = defaultScaleConfig()
	fs.Var(&c.queues, "scale-queues", "scale-queues: queue counts to measure at, comma-separated")
	fs.Var(&c.conns, "scale-conns", "scale-conns: connection counts to measure at, comma-separated")
	fs.DurationVar(&c.warmup, "scale-warmup", defaultScaleWarmup, "scale-queues, scale-conns: load before each point's measured span")
	fs.DurationVar(&c.span, "scale-span", defaultScaleSpan, "scale-queues, scale-conns: each point's measured span")
	fs.IntVar(&c.groups, "scale-groups", defaultScaleGroups, "scale-queues: publishing connections, and as many consuming ones, at most")
	fs.IntVar(&c.prefetch, "scale-prefetch", defaultScalePrefetch, "scale-queues, scale-conns: basic.qos prefetch of every consumer")
}

// check rejects settings that would make a run unbounded.
func (c scaleConfig) check() error {
	for _, l := range []struct {
		name string
		ns   intList
	}{{"--scale-queues", c.queues}, {"--scale-conns", c.conns}} {
		if len(l.ns) == 0 || len(l.ns) > scalePointsMax {
			return fmt.Errorf("%s: want 1..%d points", l.name, scalePointsMax)
		}
		for _, n := range l.ns {
			if n < 1 || n > scaleNMax {
				return fmt.Errorf("%s %d: want 1..%d", l.name, n, scaleNMax)
			}
		}
	}
	switch {
	case c.warmup < 0 || c.warmup > time.Minute:
		return fmt.Errorf("--scale-warmup %s: want 0..1m", c.warmup)
	case c.span < 100*time.Millisecond || c.span > time.Minute:
		return fmt.Errorf("--scale-span %s: want 100ms..1m", c.span)
	case c.groups < 1 || c.groups > maxPipeConns:
		return fmt.Errorf("--scale-groups %d: want 1..%d", c.groups, maxPipeConns)
	case c.prefetch < 1 || c.prefetch > 65535:
		return fmt.Errorf("--scale-prefetch %d: want 1..65535", c.prefetch)
	}
	return nil
}

// scaleQueuesWorkload is scale-queues carried by the client newClient
// makes: how, when set, ends its description with the client's way of
// publishing and acking, and table prints its table.
func scaleQueuesWorkload(newClient func(*env) scaleClient, how string, table func(out io.Writer, w workload, runs []runResult, warren, rabbit *broker)) workload {
	return workload{name: "scale-queues", messages: scaleRateMsgs, counts: "msgs/s offered at each point", minSize: scaleBodyMin, byName: true, scale: true, table: table,
		description: "the same offered rate spread over 1, 10, 100 and 1,000 queues (--scale-queues), a few publishing and consuming connections, manual acks" + how + "; per point msgs/s, broker CPU per message, p50/p99 latency",
		run: func(ctx context.Context, e *env) (Result, error) {
			return runScalePoints(ctx, e, e.scale.queues, "queues", func(n int) scalePlan { return queuesPlan(n, e.scale.groups) }, newClient)
		}}
}

// scaleConnsWorkload is scale-conns carried by the client newClient makes
// (see scaleQueuesWorkload).
func scaleConnsWorkload(newClient func(*env) scaleClient, how string, table func(out io.Writer, w workload, runs []runResult, warren, rabbit *broker)) workload {
	return workload{name: "scale-conns", messages: scaleRateMsgs, counts: "msgs/s offered at each point", minSize: scaleBodyMin, byName: true, manyConns: true, scale: true, table: table,
		description: "the same offered rate spread over 1, 10, 100 and 500 connections (--scale-conns), each publishing into and consuming from a queue of its own" + how + "; per point msgs/s, broker CPU per message, p50/p99 latency",
		run: func(ctx context.Context, e *env) (Result, error) {
			return runScalePoints(ctx, e, e.scale.conns, "conns", connsPlan, newClient)
		}}
}

// runScalePoints runs one point per n, in order, each carried by a new
// client from newClient after a broker in another process has gone quiet
// again (it may still be deleting the last point's queues), and reports
// each point's figures as scaleMetric names.
func runScalePoints(ctx context.Context, e *env, ns []int, what string, plan func(n int) scalePlan, newClient func(*env) scaleClient) (Result, error) {
	var res Result
	start := time.Now()
	for _, n := range ns {
		if e.serverPID != 0 && e.serverPID != os.Getpid() { // in this process, the client's own work would count
			if waited, quiet, err := waitQuiet(ctx, e.serverPID); err != nil || !quiet {
				res.Notes = append(res.Notes, fmt.Sprintf("%d %s: broker not quiet before the point after %s (%v)", n, what, waited.Round(time.Millisecond), err))
			}
		}
		pt, err := runScalePoint(ctx, e, plan(n), fmt.Sprintf("%s%d", what, n), newClient(e))
		if err != nil {
			return res, fmt.Errorf("%d %s: %w", n, what, err)
		}
		res.Metrics = append(res.Metrics,
			Metric{Name: scaleMetric("throughput", n), Unit: "msgs/s", Value: pt.deliveredPerSec, HigherIsBetter: true},
			Metric{Name: scaleMetric("latency p50", n), Unit: "ms", Value: ms(pt.p50)},
			Metric{Name: scaleMetric("latency p99", n), Unit: "ms", Value: ms(pt.p99)},
			Metric{Name: scaleMetric(metricLagMax, n), Unit: "ms", Value: ms(pt.lagMax)})
		for _, m := range pt.cpu {
			m.Name = scaleMetric(m.Name, n)
			res.Metrics = append(res.Metrics, m)
		}
		for _, note := range pt.notes {
			res.Notes = append(res.Notes, fmt.Sprintf("%d %s: %s", n, what, note))
		}
	}
	res.ElapsedMs = ms(time.Since(start))
	return res, nil
}
