package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// scaleRun is one run of a scale workload with the given figures per
// point: rate, broker CPU, p50, p99.
func scaleRun(brokerLabel string, rep int, points map[int][4]float64) runResult {
	r := runResult{Broker: brokerLabel, Rep: rep, Result: Result{Workload: "scale-queues", Messages: 10_000}}
	for n, f := range points {
		r.Result.Metrics = append(r.Result.Metrics,
			Metric{Name: scaleMetric("throughput", n), Unit: "msgs/s", Value: f[0], HigherIsBetter: true},
			Metric{Name: scaleMetric(metricBrokerCPU, n), Unit: "µs/msg", Value: f[1]},
			Metric{Name: scaleMetric("latency p50", n), Unit: "ms", Value: f[2]},
			Metric{Name: scaleMetric("latency p99", n), Unit: "ms", Value: f[3]})
	}
	return r
}

func TestPrintScaleTableRowPerPoint(t *testing.T) {
	warren, rabbit := &broker{label: "Warren"}, &broker{label: "RabbitMQ 3.10.8"}
	runs := []runResult{
		scaleRun("Warren", 1, map[int][4]float64{1: {10_000, 20, 0.1, 0.5}, 1000: {9_990, 30, 0.2, 1.5}}),
		scaleRun("Warren", 2, map[int][4]float64{1: {10_000, 22, 0.1, 0.7}, 1000: {9_995, 34, 0.2, 1.7}}),
		scaleRun("RabbitMQ 3.10.8", 1, map[int][4]float64{1: {10_000, 40, 0.1, 0.6}, 1000: {10_000, 100, 0.3, 2.5}}),
		{Broker: "RabbitMQ 3.10.8", Rep: 2, Result: Result{Workload: "scale-queues"}, Err: "boom"},
	}
	for i, calls := range [][2]float64{{1.5, 0.75}, {2.5, 1.25}} { // Warren's reads and writes at 1 queue, reps 1 and 2
		runs[i].Result.Metrics = append(runs[i].Result.Metrics,
			Metric{Name: scaleMetric(metricBrokerReads, 1), Unit: "/msg", Value: calls[0]},
			Metric{Name: scaleMetric(metricBrokerWrites, 1), Unit: "/msg", Value: calls[1]})
	}
	w, err := findWorkload("scale-queues")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printScaleTable(&out, w, runs, warren, rabbit)
	lines := strings.Split(out.String(), "\n")
	var rows []string
	for _, l := range lines {
		if strings.HasPrefix(l, "| 1 ") || strings.HasPrefix(l, "| 1,000 ") {
			rows = append(rows, l)
		}
	}
	want := []string{
		"| 1 | 10,000 [10,000–10,000] | 10,000 | 21.0 [20.0–22.0] | 40.0 | 1.90× | 0.10 / 0.60 [0.50–0.70] | 0.10 / 0.60 | 1.00× |",
		"| 1,000 | 9,993 [9,990–9,995] | 10,000 | 32.0 [30.0–34.0] | 100 | 3.12× | 0.20 / 1.60 [1.50–1.70] | 0.30 / 2.50 | 0.64× |",
	}
	if len(rows) != 2 {
		t.Fatalf("rows %q in\n%s", rows, out.String())
	}
	for i, r := range rows {
		if !strings.HasPrefix(r, want[i]) {
			t.Errorf("row %d\n got %s\nwant %s...", i, r, want[i])
		}
	}
	// Reads and writes a message, the last two cells: medians, and a dash
	// where a broker's runs have none.
	for i, want := range []string{"| 2.00 / 1.00 | — / — |", "| — / — | — / — |"} {
		if !strings.HasSuffix(rows[i], want) {
			t.Errorf("row %d ends %q, want %q", i, rows[i], want)
		}
	}
	if !strings.Contains(out.String(), "| queues |") || !strings.Contains(out.String(), "10,000 msgs/s offered") {
		t.Errorf("header:\n%s", out.String())
	}
	if strings.Contains(out.String(), "floor") {
		t.Errorf("floor columns without floor runs:\n%s", out.String())
	}
}

// TestPrintScaleTableWithFloor: the floor's runs add its latency and its
// p99 ÷ RabbitMQ's after Warren's, and the note that says what it is.
func TestPrintScaleTableWithFloor(t *testing.T) {
	warren, rabbit := &broker{label: "Warren"}, &broker{label: "RabbitMQ 3.10.8"}
	runs := []runResult{
		scaleRun("Warren", 1, map[int][4]float64{1: {10_000, 6, 0.07, 0.20}}),
		scaleRun(floorLabel, 1, map[int][4]float64{1: {10_000, 15, 0.06, 0.18}}),
		scaleRun("RabbitMQ 3.10.8", 1, map[int][4]float64{1: {10_000, 24, 0.18, 0.40}}),
	}
	w, err := findWorkload("scale-queues")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printScaleTable(&out, w, runs, warren, rabbit)
	s := out.String()
	for _, want := range []string{
		"| Warren p99 ÷ RabbitMQ's | floor p50 / p99 ms | floor p99 ÷ RabbitMQ's | client CPU",
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
		"| 1 | 10,000 | 10,000 | 6.00 | 24.0 | 4.00× | 0.07 / 0.20 | 0.18 / 0.40 | 0.50× | 0.06 / 0.18 | 0.45× | — / — |",
		floorTableNote,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in\n%s", want, s)
		}
	}
}

func TestPrintIdleMemoryTableAgainstLavinMQ(t *testing.T) {
	warren, rabbit := &broker{label: "Warren"}, &broker{label: "RabbitMQ 3.10.8"}
	run := func(label string, rss, conns, queues float64) runResult {
		return runResult{Broker: label, Rep: 1, Result: Result{Workload: "idle-memory", Metrics: []Metric{
			{Name: metricRSSWarm, Unit: "MB", Value: rss},
			{Name: metricIdleConns, Unit: "MB/1,000", Value: conns},
			{Name: metricIdleQueues, Unit: "MB/1,000", Value: queues},
		}}}
	}
	w, err := findWorkload("idle-memory")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printIdleMemoryTable(&out, w, []runResult{run("Warren", 17, 43, 1), run("RabbitMQ 3.10.8", 128, 116, 34)}, warren, rabbit)
	for _, want := range []string{
		"| RSS after the warm-up, MB | 17.0 | 128 | — |  |  |",
		"| per 1,000 idle connections (one channel each), MB | 43.0 | 116 | 70.0 | yes | **no** |",
		"| per 1,000 idle queues, MB | 1.00 | 34.0 | 35.0 | yes | yes |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

// TestScaleWorkloadsRunOnlyWhenNamed: compare's default set leaves them
// out, the memory workloads come first, and printTable gives the scale
// workloads their own tables and no rows in the common one.
func TestScaleWorkloadsRunOnlyWhenNamed(t *testing.T) {
	for _, w := range workloads {
		scale := strings.HasPrefix(w.name, "scale-") || w.name == "idle-memory"
		if w.byName != scale || (w.table != nil) != scale {
			t.Errorf("%s: byName %v, own table %v", w.name, w.byName, w.table != nil)
		}
	}
	var names []string
	for _, w := range freshFirst(workloads) {
		names = append(names, w.name)
	}
	if !slices.Equal(names[:2], []string{"memory", "idle-memory"}) || len(names) != len(workloads) {
		t.Errorf("order %v", names)
	}
	w, _ := findWorkload("scale-conns")
	var out bytes.Buffer
	run := scaleRun("Warren", 1, map[int][4]float64{10: {10_000, 20, 0.1, 0.5}})
	run.Result.Workload = "scale-conns"
	printTable(&out, []workload{w}, []runResult{run}, &broker{label: "Warren"}, &broker{label: "RabbitMQ"}, nil)
	if s := out.String(); strings.Contains(s, "| workload | metric |") || !strings.Contains(s, "| connections |") {
		t.Errorf("table:\n%s", s)
	}
}
