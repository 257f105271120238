package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// metricLagMax is a scale point's latest send after a message fell due,
// over the measured span: how far the load client fell behind its
// schedule.
const metricLagMax = "client behind schedule"

// printScaleTable prints a scale workload's runs as one row per point
// (queue or connection count): each broker's delivered msgs/s, broker CPU
// per message (median, range in brackets) and RabbitMQ's ÷ Warren's,
// p50 and p99 publish->deliver latency and Warren's p99 ÷ RabbitMQ's,
// then, when compare --floor ran the floor (floor.go), its p50 and p99
// and its p99 ÷ RabbitMQ's, then the client's CPU per message, how far
// the client fell behind its schedule, and each broker's reads and
// writes per message (/proc/PID/io, syscalls.go): how many wake-ups a
// message cost it, which is most of what its CPU tracks.
func printScaleTable(out io.Writer, w workload, runs []runResult, warren, rabbit *broker) {
	printScaleTableWith(out, w, runs, warren, rabbit, "")
}

// pipeScaleTableNote says, under a scale table of the pipelining client,
// how it carried the load.
const pipeScaleTableNote = "Load client: the pipelining client (the project's codec) on the same connections and channels as amqp091-go's run: " +
	"each publisher writes the messages that have fallen due in one write (one at a time at an even pace, several together when it is late, at most --batch); " +
	"each consuming connection reads many frames a read and acks with basic.ack multiple=true once a channel has a quarter of its prefetch unacknowledged " +
	"(with the default prefetch of 100, every 25 deliveries), and the rest at the end; a latency ends when the read that brought the delivery returned."

// floorTableNote says, under a scale table with the floor's columns,
// what the floor is.
const floorTableNote = "The floor (warren-bench floor, run between the two brokers in every repetition) is a relay that does no broker work: " +
	"each publish goes straight out as a delivery to its queue's consumer, with no queue, prefetch or acknowledgements, " +
	"written by the goroutine that read the publish, with Warren's own socket handling (Go's netpoller, raw reads and writes). Its latency is the wake-ups and system calls alone: Warren's with the broker taken out."

// printPipeScaleTable is printScaleTable for the pipelining client, with
// pipeScaleTableNote under its header.
func printPipeScaleTable(out io.Writer, w workload, runs []runResult, warren, rabbit *broker) {
	printScaleTableWith(out, w, runs, warren, rabbit, pipeScaleTableNote)
}

// printScaleTableWith prints printScaleTable's table with note, when set,
// under its header.
func printScaleTableWith(out io.Writer, w workload, runs []runResult, warren, rabbit *broker, note string) {
	wr := metricSeries(runs, w.name, warren.label)
	rr := metricSeries(runs, w.name, rabbit.label)
	fr := metricSeries(runs, w.name, floorLabel)
	points := scalePoints(metricNames(runs, w.name))
	if len(points) == 0 {
		return
	}
	axis := map[string]string{"scale-queues": "queues", "scale-conns": "connections"}[w.name]
	offered := 0
	for _, r := range runs {
		if r.Result.Workload == w.name && r.Err == "" {
			offered = r.Result.Messages
		}
	}
	fmt.Fprintf(out, "%s: %s msgs/s offered at every point, measured over each point's span; medians, range in brackets:\n\n", w.name, thousands(int64(offered)))
	if note != "" {
		fmt.Fprintf(out, "%s\n\n", note)
	}
	floorCols, floorDashes := "", ""
	if len(fr) > 0 {
		fmt.Fprintf(out, "%s\n\n", floorTableNote)
		floorCols, floorDashes = " floor p50 / p99 ms | floor p99 ÷ RabbitMQ's |", "---|---|"
	}
	fmt.Fprintf(out, "| %s | Warren msgs/s | %s msgs/s | Warren broker CPU µs/msg | %s broker CPU µs/msg | RabbitMQ ÷ Warren (CPU) | Warren p50 / p99 ms | %s p50 / p99 ms | Warren p99 ÷ RabbitMQ's |%s client CPU µs/msg vs Warren / vs RabbitMQ | client behind schedule, ms, max (vs Warren / vs RabbitMQ) | Warren reads / writes a msg | %s reads / writes a msg |\n",
		axis, rabbit.label, rabbit.label, rabbit.label, floorCols, rabbit.label)
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|"+floorDashes+"---|---|---|---|")
	for _, n := range points {
		get := func(s map[string][]float64, base string) []float64 { return s[scaleMetric(base, n)] }
		ratio := "—"
		if wv, rv := get(wr, metricBrokerCPU), get(rr, metricBrokerCPU); len(wv) > 0 && len(rv) > 0 && median(wv) > 0 {
			ratio = fmt.Sprintf("%.2f×", median(rv)/median(wv))
		}
		latency := func(s map[string][]float64) string {
			p50, p99 := get(s, "latency p50"), get(s, "latency p99")
			if len(p50) == 0 {
				return "—"
			}
			return formatValue(median(p50)) + " / " + cell(p99)
		}
		p99Ratio := func(s map[string][]float64) string {
			sv, rv := get(s, "latency p99"), get(rr, "latency p99")
			if len(sv) == 0 || len(rv) == 0 || median(rv) == 0 {
				return "—"
			}
			return fmt.Sprintf("%.2f×", median(sv)/median(rv))
		}
		maxOf := func(vs []float64) string {
			if len(vs) == 0 {
				return "—"
			}
			return formatValue(slices.Max(vs))
		}
		row := []string{
			thousands(int64(n)),
			cell(get(wr, "throughput")), cell(get(rr, "throughput")),
			cell(get(wr, metricBrokerCPU)), cell(get(rr, metricBrokerCPU)), ratio,
			latency(wr), latency(rr), p99Ratio(wr),
		}
		if len(fr) > 0 {
			row = append(row, latency(fr), p99Ratio(fr))
		}
		row = append(row,
			cellMedian(get(wr, metricClientCPU))+" / "+cellMedian(get(rr, metricClientCPU)),
			maxOf(get(wr, metricLagMax))+" / "+maxOf(get(rr, metricLagMax)),
			cellMedian(get(wr, metricBrokerReads))+" / "+cellMedian(get(wr, metricBrokerWrites)),
			cellMedian(get(rr, metricBrokerReads))+" / "+cellMedian(get(rr, metricBrokerWrites)),
		)
		fmt.Fprintf(out, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(out)
}

// scalePoints returns the point counts that metric names made by
// scaleMetric mention, ascending.
func scalePoints(names []string) []int {
	var ns []int
	for _, name := range names {
		if _, n, ok := parseScaleMetric(name); ok && !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns
}

// printIdleMemoryTable prints idle-memory's runs: each broker's RSS after
// the warm-up and its growth per 1,000 idle connections and per 1,000 idle
// queues (median, range in brackets), against LavinMQ's published 70 MB
// and 35 MB.
func printIdleMemoryTable(out io.Writer, w workload, runs []runResult, warren, rabbit *broker) {
	wr := metricSeries(runs, w.name, warren.label)
	rr := metricSeries(runs, w.name, rabbit.label)
	if len(wr) == 0 && len(rr) == 0 {
		return
	}
	fmt.Fprintln(out, "idle-memory: the broker's RSS (VmRSS, MB = 10^6 bytes) once settled; medians, range in brackets:")
	fmt.Fprintln(out)
	fmt.Fprintf(out, "| | Warren | %s | LavinMQ's figure | Warren within it | RabbitMQ within it |\n", rabbit.label)
	fmt.Fprintln(out, "|---|---|---|---|---|---|")
	for _, row := range []struct {
		metric, label string
		targetMB      float64
	}{
		{metricRSSWarm, "RSS after the warm-up, MB", 0},
		{metricIdleConns, "per 1,000 idle connections (one channel each), MB", lavinConnsMB},
		{metricIdleQueues, "per 1,000 idle queues, MB", lavinQueuesMB},
	} {
		cells := []string{row.label, cell(wr[row.metric]), cell(rr[row.metric]), "—", "", ""}
		if row.targetMB > 0 {
			cells[3] = formatValue(row.targetMB)
			cells[4], cells[5] = withinTarget(wr[row.metric], row.targetMB), withinTarget(rr[row.metric], row.targetMB)
		}
		fmt.Fprintf(out, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(out)
}

// withinTarget says whether the median of vs is at most target.
func withinTarget(vs []float64, target float64) string {
	if len(vs) == 0 {
		return "—"
	}
	if median(vs) <= target {
		return "yes"
	}
	return "**no**"
}

// cellMedian formats the median of a series alone, "—" for none.
func cellMedian(vs []float64) string {
	if len(vs) == 0 {
		return "—"
	}
	return formatValue(median(vs))
}
