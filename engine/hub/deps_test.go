package hub

import (
	"go/build"
	"slices"
	"testing"
)

// allowedImports is the hub's dependency policy, written down as data
// (like engine/deps_test.go): the standard library's pure parts and the
// engine (crypto/subtle compares a password in constant time), nothing that does I/O, reads the wall clock, starts goroutines'
// worth of machinery or draws random numbers. That is what lets the same
// hub run in the native server's goroutine and in a Cloudflare Durable
// Object compiled to wasm. Test files may import more.
var allowedImports = []string{
	"crypto/subtle", "encoding/base64", "encoding/json", "errors", "fmt", "hash/fnv", "slices", "sort", "strconv", "strings",
	"unicode", "unicode/utf8",
	"warren/engine", "warren/engine/script",
}

func TestImportPolicy(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if !slices.Contains(allowedImports, imp) {
			t.Errorf("engine/hub imports %s, outside its allowed list %v", imp, allowedImports)
		}
	}
	for _, f := range []string{"time", "net", "os", "sync", "math/rand", "math/rand/v2", "crypto/rand"} {
		if slices.Contains(allowedImports, f) {
			t.Errorf("the policy allows %s, which the hub must never import", f)
		}
	}
}
