package main

import (
	"os"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestPercentileNearestRank(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	if got := percentile(d, 0.50); got != 50 {
		t.Errorf("p50 = %d, want 50", got)
	}
	if got := percentile(d, 0.99); got != 99 {
		t.Errorf("p99 = %d, want 99", got)
	}
	if got := percentile(d[:1], 0.99); got != 1 {
		t.Errorf("p99 of one = %d, want 1", got)
	}
}

func TestFormatValue(t *testing.T) {
	for v, want := range map[float64]string{1234567.4: "1,234,567", 999.6: "1,000", 123.4: "123", 12.34: "12.3", 1.234: "1.23", -1244.1: "-1,244"} {
		if got := formatValue(v); got != want {
			t.Errorf("formatValue(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	if got := redact("amqp://guest:guest@127.0.0.1:5672/"); got != "amqp://guest:***@127.0.0.1:5672/" {
		t.Errorf("redact = %q", got)
	}
	if got := redact("amqp://127.0.0.1/"); got != "amqp://127.0.0.1/" {
		t.Errorf("redact without userinfo = %q", got)
	}
}

func TestTargets(t *testing.T) {
	for _, c := range []struct {
		m       Metric
		ratio   float64
		atLeast bool
		ok      bool
	}{
		{Metric{Name: "throughput", HigherIsBetter: true}, 5, true, true},
		{Metric{Name: "latency p99"}, 0.5, false, true},
		{Metric{Name: "server memory"}, 1.0 / 3, false, true},
		{Metric{Name: "latency p50"}, 0, false, false},
	} {
		tg, ok := targetFor(c.m)
		if ok != c.ok || tg.ratio != c.ratio || tg.atLeast != c.atLeast {
			t.Errorf("targetFor(%q) = %+v, %v", c.m.Name, tg, ok)
		}
	}
}

func TestCPUTicksOfSelf(t *testing.T) {
	if _, err := cpuTicks(1); err != nil {
		t.Skip("no /proc here:", err)
	}
	a, err := cpuTicks(os.Getpid())
	if err != nil || a < 0 {
		t.Fatalf("cpuTicks(self) = %d, %v", a, err)
	}
}
