package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// benchSamples is a benchmark file's ns/op samples by benchmark name, the
// names in the order they first appear.
type benchSamples struct {
	order   []string
	nsPerOp map[string][]float64
}

// parseBench reads Go's benchmark format (go test -bench output): a result
// line is "Benchmark<name> <iterations> <value> <unit> ...", the value and
// unit pairs including ns/op; every other line (goos:, cpu:, PASS, ok,
// comments) is not a result. A line that starts like a result but is not
// one is an error, so that a damaged baseline is refused rather than read
// as fewer samples.
func parseBench(r io.Reader) (benchSamples, error) {
	s := benchSamples{nsPerOp: map[string][]float64{}}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || !strings.HasPrefix(f[0], "Benchmark") || len(f[0]) == len("Benchmark") {
			continue
		}
		if len(f) < 4 || len(f)%2 != 0 {
			return s, fmt.Errorf("line %d: not a benchmark result: %q", line, sc.Text())
		}
		if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
			return s, fmt.Errorf("line %d: iterations %q: %v", line, f[1], err)
		}
		ns := -1.0
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return s, fmt.Errorf("line %d: value %q: %v", line, f[i], err)
			}
			if f[i+1] == "ns/op" {
				ns = v
			}
		}
		if ns < 0 {
			return s, fmt.Errorf("line %d: no ns/op: %q", line, sc.Text())
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if _, seen := s.nsPerOp[name]; !seen {
			s.order = append(s.order, name)
		}
		s.nsPerOp[name] = append(s.nsPerOp[name], ns)
	}
	return s, sc.Err()
}
