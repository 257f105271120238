package main

import "testing"

func TestStolenPercent(t *testing.T) {
	a, err := parseCPULine("cpu  503540 4259 97938 8623962 12362 0 11058 25802 0 0")
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseCPULine("cpu  504006 4259 98122 8625093 12363 0 11102 26215 0 0")
	if err != nil {
		t.Fatal(err)
	}
	// 466 user + 184 system + 1131 idle + 1 iowait + 44 softirq + 413 steal.
	if got, ok := stolenPercent(a, b); !ok || got < 18.44 || got > 18.45 {
		t.Errorf("stolenPercent = %v, %v; want 413/2239 = 18.446%%", got, ok)
	}
	if _, ok := stolenPercent(b, a); ok {
		t.Error("a span running backwards gave a share")
	}
	for _, bad := range []string{"cpu0 1 2 3 4 5 6 7 8", "cpu 1 2 3", "cpu 1 2 3 4 5 6 7 x"} {
		if _, err := parseCPULine(bad); err == nil {
			t.Errorf("parseCPULine(%q) took it", bad)
		}
	}
}
