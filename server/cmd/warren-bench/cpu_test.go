package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestCPUSpanNamesWhatItMeasured(t *testing.T) {
	if _, err := cpuTicks(os.Getpid()); err != nil {
		t.Skip("no /proc here:", err)
	}
	names := func(ms []Metric) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name+" "+m.Unit)
		}
		return out
	}
	// Another process (pid 1 stands in for the broker): both, per unit.
	m, notes := startCPU(1).metrics(10, "msg")
	if got := strings.Join(names(m), ", "); got != "broker CPU µs/msg, client CPU µs/msg" || len(notes) != 0 {
		t.Errorf("broker elsewhere: %s %v", got, notes)
	}
	// The broker in this process: one figure for both.
	m, _ = startCPU(os.Getpid()).metrics(10, "delivery")
	if got := strings.Join(names(m), ", "); got != "process CPU µs/delivery" {
		t.Errorf("broker in process: %s", got)
	}
	// No broker pid: the client alone.
	m, _ = startCPU(0).metrics(10, "declare")
	if got := strings.Join(names(m), ", "); got != "client CPU µs/declare" {
		t.Errorf("no broker pid: %s", got)
	}
	// A broker that is gone: a note, no metric, no failure.
	m, notes = startCPU(1<<30).metrics(10, "msg")
	if len(m) != 0 || len(notes) != 1 || !strings.HasPrefix(notes[0], "CPU not measured") {
		t.Errorf("gone broker: %v %v", m, notes)
	}
}

func TestCPUTable(t *testing.T) {
	run := func(b string, rep int, rate, broker, client float64) runResult {
		return runResult{Broker: b, Rep: rep, Result: Result{Workload: "publish-consume", Metrics: []Metric{
			{Name: "throughput", Unit: "msgs/s", Value: rate, HigherIsBetter: true},
			{Name: "latency p99", Unit: "ms", Value: 1},
			{Name: metricBrokerCPU, Unit: "µs/msg", Value: broker},
			{Name: metricClientCPU, Unit: "µs/msg", Value: client},
		}}}
	}
	warren, rabbit := &broker{label: "Warren"}, &broker{label: "RabbitMQ 3.10.8"}
	w, _ := findWorkload("publish-consume")
	var out bytes.Buffer
	printTable(&out, []workload{w}, []runResult{
		run("Warren", 1, 90_000, 4, 10), run("RabbitMQ 3.10.8", 1, 40_000, 16, 11),
		run("Warren", 2, 100_000, 6, 12), run("RabbitMQ 3.10.8", 2, 30_000, 20, 13),
	}, warren, rabbit)
	s := out.String()
	for _, want := range []string{
		"| publish-consume | throughput (msgs/s) | 95,000 [90,000–100,000] | 35,000 [30,000–40,000] | 2.71× | ≥ 5× | **no** |",
		// RabbitMQ's 18 µs ÷ Warren's 5 µs.
		"| publish-consume | 95,000 msgs/s | 35,000 msgs/s | 5.00 [4.00–6.00] µs/msg | 18.0 [16.0–20.0] µs/msg | 3.60× | ≥ 5× | **no** | 11.0 [10.0–12.0] µs/msg / 12.0 [11.0–13.0] µs/msg |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks\n%s\nin\n%s", want, s)
		}
	}
	if strings.Contains(s, "| publish-consume | broker CPU") {
		t.Errorf("CPU rows belong in the CPU table only:\n%s", s)
	}
}
