package amqp

import (
	"go/build"
	"slices"
	"testing"
)

// allowedImports is the codec's dependency policy, written down as data
// (like Go's go/build/deps_test.go and the engine's): standard library
// only, and nothing that does I/O, locks, reads the clock or starts
// goroutines, so that the codec stays sans-I/O and builds for the browser
// and the edge worker. The generator runs at development time and may read
// and write files.
var allowedImports = map[string][]string{
	".":            {"encoding/binary", "fmt", "math", "slices", "strconv", "strings", "unicode/utf8"},
	"internal/gen": {"bytes", "encoding/json", "flag", "fmt", "go/format", "log", "os", "strings"},
}

func TestImportPolicy(t *testing.T) {
	for dir, allowed := range allowedImports {
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, imp := range p.Imports {
			if !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s, outside its allowed list %v", p.ImportPath, imp, allowed)
			}
		}
	}
}
