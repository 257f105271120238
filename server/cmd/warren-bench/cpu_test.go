package main

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// echoProcess starts cat(1) as a stand-in broker: a process of its own
// that makes one read and one write per line it is sent (echo), and
// whose /proc/PID/io this process may read. stop ends it.
func echoProcess(t *testing.T) (pid int, echo func(), stop func()) {
	t.Helper()
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip("no cat to stand in for a broker:", err)
	}
	out := bufio.NewReader(outPipe)
	echo = func() {
		if _, err := io.WriteString(in, "x\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := out.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	stop = func() {
		in.Close()
		cmd.Wait()
	}
	return cmd.Process.Pid, echo, stop
}

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
	pid, echo, stop := echoProcess(t)
	defer stop()
	if _, err := readSysCalls(pid); err != nil {
		t.Skip("a child's /proc/PID/io is not readable here:", err)
	}
	echo() // cat has started and waits in its copy loop
	// Another process: its CPU and this one's, and its system calls: cat
	// read and wrote once per line.
	span := startCPU(pid)
	for range 3 {
		echo()
	}
	m, notes := span.metrics(3, "msg")
	if got := strings.Join(names(m), ", "); got != "broker CPU µs/msg, client CPU µs/msg, broker reads /msg, broker writes /msg" || len(notes) != 0 {
		t.Errorf("broker elsewhere: %s %v", got, notes)
	}
	for _, name := range []string{metricBrokerReads, metricBrokerWrites} {
		for _, x := range m {
			if x.Name == name && x.Value != 1 {
				t.Errorf("%s = %v /msg, want 1 (one per line cat echoed)", name, x.Value)
			}
		}
	}
	// Its /proc/PID/io unreadable (another user's broker): the CPU still,
	// and a note why the system calls are missing.
	span = startCPU(pid)
	span.callsErr = fs.ErrPermission
	m, notes = span.metrics(10, "msg")
	if got := strings.Join(names(m), ", "); got != "broker CPU µs/msg, client CPU µs/msg" || len(notes) != 1 || notes[0] != "system calls not measured: permission denied" {
		t.Errorf("io unreadable: %s %v", got, notes)
	}
	// The broker in this process: one figure for both, and no calls.
	m, notes = startCPU(os.Getpid()).metrics(10, "delivery")
	if got := strings.Join(names(m), ", "); got != "process CPU µs/delivery" || len(notes) != 0 {
		t.Errorf("broker in process: %s %v", got, notes)
	}
	// No broker pid: the client alone.
	m, _ = startCPU(0).metrics(10, "declare")
	if got := strings.Join(names(m), ", "); got != "client CPU µs/declare" {
		t.Errorf("no broker pid: %s", got)
	}
	// A broker that is gone: notes, no metric, no failure.
	m, notes = startCPU(1<<30).metrics(10, "msg")
	if len(m) != 0 || len(notes) != 2 || !strings.HasPrefix(notes[0], "CPU not measured") || !strings.HasPrefix(notes[1], "system calls not measured") {
		t.Errorf("gone broker: %v %v", m, notes)
	}
}

func TestCPUTable(t *testing.T) {
	run := func(b string, rep int, rate, broker, client, reads, writes float64) runResult {
		return runResult{Broker: b, Rep: rep, Result: Result{Workload: "publish-consume", Metrics: []Metric{
			{Name: "throughput", Unit: "msgs/s", Value: rate, HigherIsBetter: true},
			{Name: "latency p99", Unit: "ms", Value: 1},
			{Name: metricBrokerCPU, Unit: "µs/msg", Value: broker},
			{Name: metricClientCPU, Unit: "µs/msg", Value: client},
			{Name: metricBrokerReads, Unit: "/msg", Value: reads},
			{Name: metricBrokerWrites, Unit: "/msg", Value: writes},
		}}}
	}
	warren, rabbit := &broker{label: "Warren"}, &broker{label: "RabbitMQ 3.10.8"}
	w, _ := findWorkload("publish-consume")
	var out bytes.Buffer
	printTable(&out, []workload{w}, []runResult{
		run("Warren", 1, 90_000, 4, 10, 0.2, 0.5), run("RabbitMQ 3.10.8", 1, 40_000, 16, 11, 0.3, 1.5),
		run("Warren", 2, 100_000, 6, 12, 0.3, 0.7), run("RabbitMQ 3.10.8", 2, 30_000, 20, 13, 0.5, 2.5),
	}, warren, rabbit, nil)
	s := out.String()
	for _, want := range []string{
		"| publish-consume | throughput (msgs/s) | 95,000 [90,000–100,000] | 35,000 [30,000–40,000] | 2.71× | ≥ 5× | **no** |",
		// RabbitMQ's 18 µs ÷ Warren's 5 µs.
		"| publish-consume | 95,000 msgs/s | 35,000 msgs/s | 5.00 [4.00–6.00] µs/msg | 18.0 [16.0–20.0] µs/msg | 3.60× | ≥ 5× | **no** | 11.0 [10.0–12.0] µs/msg / 12.0 [11.0–13.0] µs/msg |",
		"| workload | Warren reads | RabbitMQ 3.10.8 reads | Warren writes | RabbitMQ 3.10.8 writes |",
		"| publish-consume | 0.25 [0.20–0.30] /msg | 0.40 [0.30–0.50] /msg | 0.60 [0.50–0.70] /msg | 2.0 [1.5–2.5] /msg |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks\n%s\nin\n%s", want, s)
		}
	}
	if strings.Contains(s, "| publish-consume | broker CPU") || strings.Contains(s, "| publish-consume | broker reads") {
		t.Errorf("CPU and system call rows belong in their own tables only:\n%s", s)
	}
}

// TestBesideMemory: with a Warren in memory beside the default mode's,
// the common and CPU tables name its median only where the two differ by
// more than 10%, and say "same" elsewhere.
func TestBesideMemory(t *testing.T) {
	run := func(b string, rep int, rate, broker float64) runResult {
		return runResult{Broker: b, Rep: rep, Result: Result{Workload: "publish-only", Metrics: []Metric{
			{Name: "throughput", Unit: "msgs/s", Value: rate, HigherIsBetter: true},
			{Name: metricBrokerCPU, Unit: "µs/msg", Value: broker},
		}}}
	}
	warren, rabbit, memory := &broker{label: "Warren"}, &broker{label: "RabbitMQ 3.10.8"}, &broker{label: memoryLabel}
	w, _ := findWorkload("publish-only")
	var out bytes.Buffer
	printTable(&out, []workload{w}, []runResult{
		run("Warren", 1, 100_000, 6), run(memoryLabel, 1, 105_000, 2), run("RabbitMQ 3.10.8", 1, 50_000, 18),
	}, warren, rabbit, memory)
	s := out.String()
	for _, want := range []string{
		"| workload | metric | Warren | RabbitMQ 3.10.8 | Warren ÷ RabbitMQ | target | met | Warren in memory |",
		"| publish-only | throughput (msgs/s) | 100,000 | 50,000 | 2.00× | ≥ 5× | **no** | same |",
		"| publish-only | 100,000 msgs/s | 50,000 msgs/s | 6.00 µs/msg | 18.0 µs/msg | 3.00× | ≥ 5× | **no** | — / — | 2.00 µs/msg |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks\n%s\nin\n%s", want, s)
		}
	}
	if got := besideCell(nil, []float64{1}, cell); got != "—" {
		t.Errorf("not run beside: %q", got)
	}
}

// TestSysCallTableSaysWhyNotMeasured: a broker whose /proc/PID/io could
// not be read gets empty cells and, once, the reason under the table.
func TestSysCallTableSaysWhyNotMeasured(t *testing.T) {
	warren, rabbit := &broker{label: "Warren"}, &broker{label: "RabbitMQ 3.10.8"}
	w, _ := findWorkload("publish-only")
	why := noteSysCallsNotMeasured + ": open /proc/42/io: permission denied"
	var runs []runResult
	for rep := 1; rep <= 2; rep++ {
		runs = append(runs,
			runResult{Broker: "Warren", Rep: rep, Result: Result{Workload: "publish-only", Metrics: []Metric{
				{Name: metricBrokerReads, Unit: "/msg", Value: 0.25},
				{Name: metricBrokerWrites, Unit: "/msg", Value: 0},
			}}},
			runResult{Broker: "RabbitMQ 3.10.8", Rep: rep, Result: Result{Workload: "publish-only", Notes: []string{why}}})
	}
	var out bytes.Buffer
	printSysCallTable(&out, []workload{w}, runs, warren, rabbit)
	s := out.String()
	if !strings.Contains(s, "| publish-only | 0.25 [0.25–0.25] /msg | — | 0.00 [0.00–0.00] /msg | — |") {
		t.Errorf("row:\n%s", s)
	}
	if strings.Count(s, why) != 1 || !strings.Contains(s, "RabbitMQ 3.10.8: "+why) {
		t.Errorf("the reason once, with its broker:\n%s", s)
	}
	out.Reset()
	printSysCallTable(&out, []workload{w}, []runResult{{Broker: "Warren", Rep: 1, Result: Result{Workload: "publish-only"}}}, warren, rabbit)
	if out.Len() != 0 {
		t.Errorf("nothing measured and nothing to say, yet:\n%s", out.String())
	}
}
