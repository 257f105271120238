package engine_test

import (
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// allowedImports is the engine's dependency policy, written down as data
// (like Go's own go/build/deps_test.go). The engine is a pure state machine:
// standard library only, and within it nothing that does I/O, reads the
// clock, starts goroutines' worth of machinery or draws unseeded random
// numbers. Test files may import more ("testing", "math/rand" with a seed,
// "os" to read testdata).
var allowedImports = map[string][]string{
	"warren/engine":          {"encoding/binary", "fmt", "math", "regexp", "sort", "strconv", "strings", "unicode/utf8", "warren/engine/deadline", "warren/engine/topic"},
	"warren/engine/deadline": {},
	// cmdgen writes command_gen.go at go generate time; nothing links it.
	"warren/engine/internal/cmdgen": {"bytes", "fmt", "go/ast", "go/format", "go/parser", "go/token", "os", "path/filepath", "sort", "strconv", "strings"},
	"warren/engine/topic":           {"strings"},
	"warren/engine/amqp":            {"encoding/binary", "fmt", "math", "slices", "strconv", "strings", "unicode/utf8"},
	"warren/engine/amqpconn":        {"bytes", "encoding/binary", "fmt", "strconv", "unicode/utf8", "warren/engine", "warren/engine/amqp"},
	"warren/engine/hub": {"crypto/subtle", "encoding/base64", "encoding/json", "errors", "fmt", "hash/fnv", "slices", "sort", "strconv",
		"strings", "unicode", "unicode/utf8", "warren/engine", "warren/engine/script"},
	"warren/engine/script": {"bufio", "bytes", "encoding/base64", "encoding/json", "errors", "fmt", "hash/fnv", "slices", "sort", "strconv", "strings", "warren/engine"},
}

func TestImportPolicy(t *testing.T) {
	for pkg, allowed := range allowedImports {
		dir := filepath.Join(".", strings.TrimPrefix(strings.TrimPrefix(pkg, "warren/engine"), "/"))
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		ok := map[string]bool{}
		for _, a := range allowed {
			ok[a] = true
		}
		var bad []string
		for _, imp := range p.Imports {
			if !ok[imp] {
				bad = append(bad, imp)
			}
		}
		sort.Strings(bad)
		if len(bad) > 0 {
			t.Errorf("%s imports %v, outside its allowed list %v", pkg, bad, allowed)
		}
	}
	// Every engine package must be listed, so that a new package states its
	// policy.
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "testdata" {
			continue
		}
		if _, err := build.ImportDir(e.Name(), 0); err != nil {
			continue
		}
		checked++
		if _, ok := allowedImports["warren/engine/"+e.Name()]; !ok {
			t.Errorf("package warren/engine/%s has no entry in allowedImports", e.Name())
		}
	}
	if checked == 0 {
		t.Error("found no engine subpackages; the policy check is not looking where it should")
	}
}
