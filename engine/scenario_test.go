package engine_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"warren/engine"
	"warren/engine/script"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata expectations with the actual output")

// TestScenarios runs every testdata/*.txt script. Each case's expected output
// is the engine's own event trace; run with -rewrite to regenerate and review
// the diff.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases, err := script.ParseCases(string(data))
			if err != nil {
				t.Fatal(err)
			}
			total += len(cases)
			outs := script.RunCases(cases, engine.Config{Seed: 1})
			if *rewrite {
				if err := os.WriteFile(f, []byte(script.FormatCases(cases, outs)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for i, c := range cases {
				if outs[i] != c.Expected {
					t.Errorf("%s:%d: output differs\n--- got\n%s--- want\n%s", f, c.Line, outs[i], c.Expected)
				}
			}
		})
	}
	t.Logf("%d scenario cases", total)
}
