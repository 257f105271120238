package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJudge reads benchstat's CSV for two runs, the second a third
// slower (0449fec against 5fdb86a's hot path): both time rows fail, the
// equal allocation rows pass, and a rise within the allowance or one
// benchstat calls noise ("~") passes too.
func TestJudge(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "slower.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := judge(f, 5)
	if err != nil {
		t.Fatal(err)
	}
	if v.compared != 6 || len(v.worse) != 2 {
		t.Fatalf("compared %d, worse %v; want 6 and the two sec/op rows", v.compared, v.worse)
	}
	for _, tc := range []struct {
		row  string
		max  float64
		fail bool
	}{
		{"X,1e-07,1%,1.04e-07,1%,+4.00%,p=0.000 n=10", 5, false},
		{"X,1e-07,1%,1.06e-07,1%,+6.00%,p=0.000 n=10", 5, true},
		{"X,1e-07,9%,1.2e-07,30%,~,p=0.190 n=10", 5, false},
		{"X,1e-07,1%,0.8e-07,1%,-20.00%,p=0.000 n=10", 5, false},
	} {
		csv := ",old,,new\n,sec/op,CI,sec/op,CI,vs base,P\n" + tc.row + "\n"
		v, err := judge(strings.NewReader(csv), tc.max)
		if err != nil || v.compared != 1 || (len(v.worse) == 1) != tc.fail {
			t.Errorf("%s: worse %v, err %v; want failing %v", tc.row, v.worse, err, tc.fail)
		}
	}
	// One allocation more is worse whatever the allowance.
	v, err = judge(strings.NewReader(",old,,new\n,allocs/op,CI,allocs/op,CI,vs base,P\nX,1,0%,2,0%,+100.00%,p=0.000 n=10\n"), 50)
	if err != nil || len(v.worse) != 1 {
		t.Errorf("an added allocation: worse %v, err %v", v.worse, err)
	}
}

// TestBaselineParses reads the committed baseline make bench compares
// with: every hot-path benchmark is there, with the samples make bench
// takes (BENCH_COUNT, 10), on one line each the way go test writes them.
func TestBaselineParses(t *testing.T) {
	path := filepath.Join("..", "..", "..", "engine", "testdata", "bench", "baseline.txt")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := parseBench(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"PublishDeliverAck/exchange=direct", "PublishDeliverAck/exchange=default",
		"ApplyPublishDeliverAck/exchange=direct", "ApplyPublishDeliverAck/exchange=default",
		"PublishDeliverAckRecorded/record=off", "PublishDeliverAckRecorded/record=on",
		"TopicRoute", "TopicPublish", "FanoutPublish",
	} {
		if n := len(s.nsPerOp[name]); n < 10 {
			t.Errorf("%s: %d samples of %s, want 10 (make bench-baseline)", path, n, name)
		}
	}
	if _, err := cpuOf(path); err != nil {
		t.Error(err)
	}
}

// TestParseRefusesDamage checks that a cut result line is an error, not a
// sample fewer.
func TestParseRefusesDamage(t *testing.T) {
	for _, in := range []string{
		"BenchmarkX 100 12.5\n",
		"BenchmarkX 100 12.5 ns/op 80 B/op 1\n",
		"BenchmarkX many 12.5 ns/op\n",
		"BenchmarkX 100 12.5 B/op\n",
	} {
		if _, err := parseBench(strings.NewReader(in)); err == nil {
			t.Errorf("%q was read", in)
		}
	}
	s, err := parseBench(strings.NewReader("goos: linux\nBenchmarkX-2 100 12.5 ns/op 80 B/op 1 allocs/op\nPASS\n"))
	if err != nil || len(s.nsPerOp["X-2"]) != 1 {
		t.Errorf("got %v, %v", s, err)
	}
}
