// Command benchgate says whether the engine's hot path got slower: it reads
// benchstat's comparison of two sets of benchmark runs (go tool benchstat
// -format csv OLD NEW, on standard input) and fails when a benchmark's
// time per operation rose by more than -max percent with benchstat's
// confidence (its Mann-Whitney U test's p below its alpha, 0.05: benchstat
// prints "~" otherwise), or its allocations rose at all. `make bench` runs
// it after printing benchstat's table; docs/benchmarks.md says why
// benchstat, and how the baseline is kept.
//
// It also reads the two files that were compared, to say when they were
// measured on different processors (a committed baseline from another
// machine compares the machines, not the change) and when a run has fewer
// samples than -count, too few for the test to see a change of a few
// percent.
//
// Every line it prints is in English and then in Simplified Chinese.
package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	maxPct := flag.Float64("max", 5, "the largest rise in sec/op, in percent, that passes")
	count := flag.Int("count", 10, "the samples per benchmark each run should have")
	oldFile := flag.String("old", "", "the baseline benchmark file benchstat compared (for its cpu line and samples)")
	newFile := flag.String("new", "", "the new benchmark file benchstat compared")
	flag.Parse()
	var notes []string
	for _, f := range []string{*oldFile, *newFile} {
		if f == "" {
			continue
		}
		n, err := readNotes(f, *count)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchgate:", err)
			os.Exit(2)
		}
		notes = append(notes, n...)
	}
	if *oldFile != "" && *newFile != "" {
		a, errA := cpuOf(*oldFile)
		b, errB := cpuOf(*newFile)
		if errA == nil && errB == nil && a != b {
			notes = append(notes, fmt.Sprintf("note: the baseline was measured on %q, this run on %q: the figures compare the machines too; compare commits on one machine with make bench BENCH_AGAINST=<commit>, or refresh the baseline with make bench-baseline\n注意：基线测于 %q，本次测于 %q，比较中也含两台机器之差；请用 make bench BENCH_AGAINST=<提交> 在同一台机器上比较两个提交，或用 make bench-baseline 重新生成基线", a, b, a, b))
		}
	}
	v, err := judge(os.Stdin, *maxPct)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchgate:", err)
		os.Exit(2)
	}
	for _, n := range notes {
		fmt.Println(n)
	}
	for _, l := range v.lines {
		fmt.Println(l)
	}
	if v.compared == 0 {
		fmt.Println("benchgate: benchstat compared no benchmark (different names or settings in the two files?)\nbenchgate：benchstat 没有比较任何基准（两个文件中的名称或设置不同？）")
		os.Exit(2)
	}
	if len(v.worse) > 0 {
		fmt.Printf("SLOWER: %d of %d comparisons got worse beyond the allowance (sec/op +%g%%, allocations +0)\n变慢：%d / %d 项比较超出允许范围（sec/op +%g%%，分配 +0）\n",
			len(v.worse), v.compared, *maxPct, len(v.worse), v.compared, *maxPct)
		os.Exit(1)
	}
	fmt.Printf("ok: %d comparisons, none slower than +%g%% in sec/op nor with more allocations, with benchstat's confidence\n通过：%d 项比较，sec/op 没有超过 +%g%% 的变慢，分配也没有增加（以 benchstat 的置信度）\n",
		v.compared, *maxPct, v.compared, *maxPct)
}

// verdict is judge's finding: the lines to print, the comparisons that
// failed, and how many rows were compared.
type verdict struct {
	lines    []string
	worse    []string
	compared int
}

// judge reads benchstat's CSV: a table per unit, each with a header row
// naming the unit, "vs base" and "P", then a row per benchmark and a
// geomean row.
func judge(r io.Reader, maxPct float64) (verdict, error) {
	var v verdict
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	unit, deltaCol, pCol := "", -1, -1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return v, nil
		}
		if err != nil {
			return v, err
		}
		if len(rec) < 2 {
			continue // configuration lines ("cpu: ..."), warnings
		}
		if rec[0] == "" {
			// A header: the files' names, or the unit, "vs base" and "P".
			if i := indexOf(rec, "vs base"); i > 0 {
				unit, deltaCol, pCol = rec[1], i, indexOf(rec, "P")
			}
			continue
		}
		if rec[0] == "geomean" || deltaCol < 0 || len(rec) <= deltaCol {
			continue
		}
		name, delta := rec[0], rec[deltaCol]
		p := ""
		if pCol > 0 && pCol < len(rec) {
			p = rec[pCol]
		}
		v.compared++
		if delta == "~" || delta == "" {
			continue
		}
		pct, err := strconv.ParseFloat(strings.TrimSuffix(delta, "%"), 64)
		if err != nil {
			return v, fmt.Errorf("row %s: %q is not a percentage", name, delta)
		}
		var bad bool
		switch unit {
		case "sec/op":
			bad = pct > maxPct
		case "B/op", "allocs/op":
			bad = pct > 0
		default:
			continue // custom metrics (msgs/s, routes/s) restate sec/op
		}
		line := fmt.Sprintf("%s %s %+.2f%% (%s)", name, unit, pct, p)
		switch {
		case bad:
			v.worse = append(v.worse, name)
			v.lines = append(v.lines, "SLOWER "+line+"\n变慢 "+line)
		case pct < 0:
			v.lines = append(v.lines, "better "+line+"\n变好 "+line)
		default:
			v.lines = append(v.lines, "within the allowance "+line+"\n在允许范围内 "+line)
		}
	}
}

func indexOf(rec []string, s string) int {
	for i, f := range rec {
		if f == s {
			return i
		}
	}
	return -1
}

// cpuOf returns the cpu line of a benchmark file.
func cpuOf(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "cpu: "); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("%s: no cpu line", path)
}

// readNotes parses a benchmark file and returns a note for each benchmark
// with fewer than count samples.
func readNotes(path string, count int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	samples, err := parseBench(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(samples.order) == 0 {
		return nil, fmt.Errorf("%s: no benchmark results", path)
	}
	var notes []string
	for _, name := range samples.order {
		if n := len(samples.nsPerOp[name]); n < count {
			notes = append(notes, fmt.Sprintf("note: %s has %d samples of %s, fewer than %d\n注意：%s 中 %s 只有 %d 个样本，少于 %d", path, n, name, count, path, name, n, count))
		}
	}
	return notes, nil
}
