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
// command and load it in Node. What the build may link is the module's
// import policy (linkRules in the root's deps_test.go).

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
