package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// target is a goal for Warren's median as a multiple of RabbitMQ's.
type target struct {
	ratio   float64 // Warren ÷ RabbitMQ
	atLeast bool    // the ratio must be ≥ (else ≤) this
	text    string
}

// targetFor returns the goal for a metric, if it has one: at least 5×
// RabbitMQ's rate on every throughput metric, at most half its p99 latency
// in publish-consume, at most a third of its memory per queued message.
func targetFor(m Metric) (target, bool) {
	switch {
	case m.HigherIsBetter:
		return target{ratio: 5, atLeast: true, text: "≥ 5×"}, true
	case m.Name == "latency p99":
		return target{ratio: 0.5, text: "≤ 0.5×"}, true
	case m.Name == "server memory":
		return target{ratio: 1.0 / 3, text: "≤ 0.33×"}, true
	}
	return target{}, false
}

// printHeader says where and when the numbers were taken.
func printHeader(out io.Writer, cfg compareConfig, repsDone int, warren, rabbit, memory *broker) {
	host, _ := os.Hostname()
	fmt.Fprintf(out, "\nwarren-bench compare, %s, on %s: %d CPUs (GOMAXPROCS %d), %s\n",
		time.Now().UTC().Format(time.UnixDate), host, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(out, "load average at the end: %s\n", strings.Join(strings.Fields(string(b))[:3], " "))
	}
	mode := "as it was started (--warren-url)"
	if warren.proc != nil {
		mode = warren.proc.mode.describe()
	}
	fmt.Fprintf(out, "Warren at %s, %s; %s at %s\n", redact(warren.url), mode, rabbit.label, redact(rabbit.url))
	if memory != nil {
		fmt.Fprintf(out, "%s at %s beside it, %s: its column gives its median where it differs from the default mode's by more than %.0f%%, else \"same\"\n",
			memory.label, redact(memory.url), warrenInMemory.describe(), besideMemoryDiffers*100)
	}
	fmt.Fprintf(out, "%d of %d repetitions, interleaved; medians, with the range in brackets; %d-byte bodies\n", repsDone, cfg.reps, cfg.size)
	fmt.Fprintf(out, "load client: %s\n\n", cfg.pipe.describe(cfg.client))
	if rabbit.skip != "" {
		fmt.Fprintf(out, "NOTE: %s\n\n", rabbit.skip)
	}
	if rabbit.busyWait != "" {
		fmt.Fprintf(out, "RabbitMQ's %s\n\n", rabbit.busyWait)
	}
}

// printTable prints the common table of the workloads that have no table
// of their own (printCommonTable) and their CPU per unit of work
// (printCPUTable); then each other workload's own table (workload.table);
// then the failed runs and the notes worth keeping.
func printTable(out io.Writer, order []workload, runs []runResult, warren, rabbit, memory *broker) {
	var common, own []workload // own: those with a table of their own
	for _, w := range order {
		if w.table != nil {
			own = append(own, w)
		} else {
			common = append(common, w)
		}
	}
	if len(common) > 0 {
		printCommonTable(out, common, runs, warren, rabbit, memory)
		printCPUTable(out, common, runs, warren, rabbit, memory)
	}
	for _, w := range own {
		w.table(out, w, runs, warren, rabbit)
	}
	var failures []string
	for _, r := range runs {
		if r.Err != "" {
			failures = append(failures, fmt.Sprintf("rep %d %s on %s: %s", r.Rep, r.Result.Workload, r.Broker, r.Err))
		}
	}
	if len(failures) > 0 {
		fmt.Fprintf(out, "\nFailed runs (left out of the medians):\n")
		for _, f := range failures {
			fmt.Fprintf(out, "  %s\n", f)
		}
	}
	fmt.Fprintln(out)
	for _, r := range runs {
		for _, n := range r.Result.Notes {
			if strings.HasPrefix(n, "RSS") || strings.Contains(n, "not quiet") {
				fmt.Fprintf(out, "rep %d %s on %s: %s\n", r.Rep, r.Result.Workload, r.Broker, n)
			}
		}
	}
}

// printCommonTable prints one Markdown row per workload metric: each
// broker's median and range, Warren's median as a multiple of RabbitMQ's,
// and the target.
func printCommonTable(out io.Writer, order []workload, runs []runResult, warren, rabbit, memory *broker) {
	fmt.Fprintf(out, "| workload | metric | Warren | %s | Warren ÷ RabbitMQ | target | met |%s\n", rabbit.label, besideHeader(memory))
	fmt.Fprintf(out, "|---|---|---|---|---|---|---|%s\n", besideRule(memory))
	for _, w := range order {
		wr := metricSeries(runs, w.name, warren.label)
		rr := metricSeries(runs, w.name, rabbit.label)
		mr := besideSeries(runs, w.name, memory)
		for _, name := range metricNames(runs, w.name) {
			if inCPUTable(name) {
				continue // in printCPUTable
			}
			m := metricSeriesMeta(runs, w.name, name)
			wv, rv := wr[name], rr[name]
			row := []string{w.name, fmt.Sprintf("%s (%s)", name, m.Unit), cell(wv), cell(rv), "", "", ""}
			if len(wv) > 0 && len(rv) > 0 && median(rv) != 0 {
				ratio := median(wv) / median(rv)
				row[4] = fmt.Sprintf("%.2f×", ratio)
				if t, ok := targetFor(m); ok {
					row[5] = t.text
					met := ratio <= t.ratio
					if t.atLeast {
						met = ratio >= t.ratio
					}
					row[6] = map[bool]string{true: "yes", false: "**no**"}[met]
				}
			}
			if memory != nil {
				row = append(row, besideCell(mr[name], wv, cell))
			}
			fmt.Fprintf(out, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintln(out)
}

// metricSeries collects, per metric name, the values the successful runs
// of one workload on one broker measured, in repetition order.
func metricSeries(runs []runResult, workload, brokerLabel string) map[string][]float64 {
	out := map[string][]float64{}
	for _, r := range runs {
		if r.Err != "" || r.Broker != brokerLabel || r.Result.Workload != workload {
			continue
		}
		for _, m := range r.Result.Metrics {
			out[m.Name] = append(out[m.Name], m.Value)
		}
	}
	return out
}

// metricNames lists a workload's metric names in the order it reports them.
func metricNames(runs []runResult, workload string) []string {
	var names []string
	for _, r := range runs {
		if r.Result.Workload != workload {
			continue
		}
		for _, m := range r.Result.Metrics {
			if !slices.Contains(names, m.Name) {
				names = append(names, m.Name)
			}
		}
	}
	return names
}

func metricSeriesMeta(runs []runResult, workload, name string) Metric {
	for _, r := range runs {
		if r.Result.Workload != workload {
			continue
		}
		if m, ok := r.Result.Metric(name); ok {
			return m
		}
	}
	return Metric{Name: name}
}

// cell formats a median and the range of a series.
func cell(vs []float64) string {
	return cellFormat(vs, formatValue)
}

// cellFormat formats a median and the range of a series with format.
func cellFormat(vs []float64, format func(float64) string) string {
	switch len(vs) {
	case 0:
		return "—"
	case 1:
		return format(vs[0])
	}
	return fmt.Sprintf("%s [%s–%s]", format(median(vs)), format(slices.Min(vs)), format(slices.Max(vs)))
}

// median returns the middle value (the mean of the two middle ones for an
// even count).
func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// formatValue prints large numbers with thousands separators and small ones
// with a few significant digits.
func formatValue(v float64) string {
	switch r := math.Round(v); {
	case r >= 1000 || r <= -1000:
		return thousands(int64(r))
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func thousands(n int64) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
