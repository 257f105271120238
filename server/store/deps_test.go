package store

import (
	"go/build"
	"slices"
	"testing"
)

// allowedImports is the store's dependency policy, written down as data
// (like the engine's and the codec's): the standard library only, and no
// engine package, because the store keeps opaque records and must not
// learn what they mean.
var allowedImports = []string{
	"bufio", "encoding/binary", "errors", "fmt", "hash/crc32", "io", "os",
	"path/filepath", "slices", "strconv", "strings", "sync", "sync/atomic",
	"syscall", "time",
}

func TestImportPolicy(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if !slices.Contains(allowedImports, imp) {
			t.Errorf("store imports %s, outside its allowed list", imp)
		}
	}
}
