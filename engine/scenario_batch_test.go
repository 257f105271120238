package engine_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"warren/engine"
	"warren/engine/script"
)

// TestScenariosInBatches runs every testdata/*.txt script with a batch of
// one message (engine/backlog.go), so that every delivery and expiry after
// the first in a call is a continuation that the script runner settles.
// The trace must be the expected one, except that work on different queues,
// and a batch's expiry and its dead-lettering, may interleave: within each
// "@time" block the same lines (delivery tags aside, which follow the
// interleaving), and each queue's lines of each kind in the same order.
func TestScenariosInBatches(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := script.ParseCases(string(data))
		if err != nil {
			t.Fatal(err)
		}
		outs := script.RunCases(cases, engine.Config{Seed: 1, MaxBatch: 1})
		for i, c := range cases {
			if !sameUpToInterleaving(outs[i], c.Expected) {
				t.Errorf("%s:%d: output in batches of one differs\n--- got\n%s--- want\n%s", f, c.Line, outs[i], c.Expected)
			}
		}
	}
}

var deliveryTag = regexp.MustCompile(` tag=\d+`)

func sameUpToInterleaving(got, want string) bool {
	if got == want {
		return true
	}
	g, w := timeBlocks(got), timeBlocks(want)
	if len(g) != len(w) {
		return false
	}
	for i := range g {
		if !slices.Equal(slices.Sorted(slices.Values(g[i])), slices.Sorted(slices.Values(w[i]))) {
			return false
		}
		for key, lines := range streams(g[i]) {
			if !slices.Equal(lines, streams(w[i])[key]) {
				return false
			}
		}
	}
	return true
}

// timeBlocks splits a trace at its "@time" lines, with delivery tags blanked.
func timeBlocks(out string) [][]string {
	blocks := [][]string{nil}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(line, "@") {
			blocks = append(blocks, []string{line})
			continue
		}
		blocks[len(blocks)-1] = append(blocks[len(blocks)-1], deliveryTag.ReplaceAllString(line, " tag=_"))
	}
	return blocks
}

// streams groups a block's lines by event kind and queue, in order.
func streams(lines []string) map[string][]string {
	m := map[string][]string{}
	for _, line := range lines {
		kind, _, _ := strings.Cut(line, " ")
		queue := ""
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "q=") {
				queue = f
			}
		}
		m[kind+" "+queue] = append(m[kind+" "+queue], line)
	}
	return m
}
