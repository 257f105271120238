//go:build !js

package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// These tests run natively: they build the browser wasm with the go
// command and load it in Node, and check what the build links.

// goEnv runs "go env NAME".
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

func jsEnv() []string { return append(os.Environ(), "GOOS=js", "GOARCH=wasm") }

// gzipBudgetBytes is the budget for the browser download: 3 MB
// gzipped.
const gzipBudgetBytes = 3_000_000

// TestSmokeInNode builds warren.wasm as `make wasm-playground` does, holds
// it to gzipBudgetBytes, and runs smoke.mjs on it: the global warren
// object answers exec, next, step, snapshot, log, replay and reset from
// JavaScript.
func TestSmokeInNode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wasm (about 20 s cold)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (make node installs it)")
	}
	dir := t.TempDir()
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "warren.wasm"), ".")
	build.Env = jsEnv()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the wasm: %v\n%s", err, out)
	}
	wasm, err := os.ReadFile(filepath.Join(dir, "warren.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wasm)
	zw.Close()
	t.Logf("warren.wasm: %d bytes, %d gzipped (budget %d)", len(wasm), gz.Len(), gzipBudgetBytes)
	if gz.Len() > gzipBudgetBytes {
		t.Errorf("warren.wasm is %d bytes gzipped, over the budget of %d", gz.Len(), gzipBudgetBytes)
	}
	js, err := os.ReadFile(filepath.Join(goEnv(t, "GOROOT"), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, "smoke.mjs", dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("node smoke.mjs: %v\n%s", err, out)
	}
}

// forbiddenInBrowser are packages the browser build must not link: each
// costs hundreds of kilobytes of wasm (see RECIPES.md) or does not belong
// in a page.
var forbiddenInBrowser = []string{"net/http", "html/template", "text/template", "testing", "os/exec", "github.com/a-h/templ", "github.com/coder/websocket"}

// TestBrowserBuildDependencies states the dependency policy of the
// browser build and checks it with go list: the wasm main links the engine,
// the script language and the bridge, and none of forbiddenInBrowser; the
// bridge itself imports only what its logic needs, never syscall/js.
func TestBrowserBuildDependencies(t *testing.T) {
	list := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".")
	list.Env = jsEnv()
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	for _, want := range []string{"syscall/js", "warren/wasm/playground/bridge", "warren/engine/script"} {
		if !deps[want] {
			t.Errorf("the browser build does not link %s; is go list looking at the right package?", want)
		}
	}
	for _, p := range forbiddenInBrowser {
		if deps[p] {
			t.Errorf("the browser build links %s", p)
		}
	}

	allowed := map[string]bool{"encoding/json": true, "fmt": true, "math": true, "strconv": true, "strings": true,
		"unicode/utf8": true, "warren/engine": true, "warren/engine/script": true,
		// A page in a shared session is the hub's replica; the hub's own
		// import policy (engine/hub/deps_test.go) keeps it pure.
		"warren/engine/hub": true}
	list = exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "./bridge")
	list.Env = jsEnv()
	out, err = list.Output()
	if err != nil {
		t.Fatalf("go list ./bridge: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if !allowed[p] {
			t.Errorf("package bridge imports %s, outside its allowed list", p)
		}
	}
}
