//go:build !js

package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run natively against the worker `make edge` built
// (wasm/worker/build, dist/edge) with the wrangler `make edge-deps`
// installed from package-lock.json; `make test` does both first.

// root is the repository's root, where wrangler.toml is.
const root = "../.."

// depsHint says how to get what the tests need.
const depsHint = "run `make edge edge-deps web-deps` (or `make test`, which does)"

// wranglerJS returns the pinned wrangler's entry script, run with node
// directly so that stopping its process stops wrangler itself (npx would
// stand between), after checking the build outputs are there.
func wranglerJS(t *testing.T) string {
	t.Helper()
	for _, f := range []string{"wasm/worker/build/app.wasm", "wasm/worker/build/worker.mjs", "dist/edge/_pages/en/index.html", "dist/edge/static/warren.wasm"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Fatalf("%s is missing (a build output): %s", f, depsHint)
		}
	}
	checkPinned(t, root, "wrangler")
	js, err := filepath.Abs(filepath.Join(root, "node_modules/wrangler/bin/wrangler.js"))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// checkPinned fails the test unless the npm package name installed in
// dir/node_modules is the version dir/package.json pins (in its
// dependencies or devDependencies).
func checkPinned(t *testing.T, dir, name string) {
	t.Helper()
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	var installed struct {
		Version string `json:"version"`
	}
	readJSON(t, filepath.Join(dir, "package.json"), &pkg)
	readJSON(t, filepath.Join(dir, "node_modules", name, "package.json"), &installed)
	want := pkg.Dependencies[name]
	if want == "" {
		want = pkg.DevDependencies[name]
	}
	if installed.Version != want {
		t.Fatalf("%s is %q in %s, package.json pins %q: %s", name, installed.Version, filepath.Join(dir, "node_modules"), want, depsHint)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: %s", err, depsHint)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// wranglerEnv is the environment wrangler runs in here: no metrics sent,
// no interactive prompts.
func wranglerEnv() []string {
	return append(os.Environ(), "WRANGLER_SEND_METRICS=false", "CI=1")
}

// node returns the node binary.
func node(t *testing.T) string {
	t.Helper()
	n, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %s", depsHint)
	}
	return n
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// devReadyTimeout bounds wrangler dev's start (a few seconds here).
const devReadyTimeout = time.Minute

// startDev runs `wrangler dev --local` on a free loopback port with its
// state in a temporary directory, waits until it says it is ready, and
// returns its base URL; the test's cleanup stops it by its process id
// (and the process group it leads, in case a child outlived it).
func startDev(t *testing.T) string {
	t.Helper()
	return startDevAt(t, t.TempDir()).base
}

// dev is a running wrangler dev: its base URL, a stop that ends it then
// and there (the test's cleanup does otherwise), and its output so far.
type dev struct {
	base string
	stop func()
	log  func() string
}

// startDevAt is startDev with its state in persist, which outlives it (a
// restart finds its Durable Objects' storage and alarms there).
func startDevAt(t *testing.T, persist string) dev {
	t.Helper()
	return startDevOn(t, persist, freePort(t))
}

// startDevOn is startDevAt on a given port: a restart on the same port is
// the same server to a page that joins again.
func startDevOn(t *testing.T, persist, port string) dev {
	t.Helper()
	return startDevWith(t, persist, port)
}

// startDevWith is startDevOn with more of wrangler dev's arguments: the
// broker worker's config (-c) and its variables (--var), say.
func startDevWith(t *testing.T, persist, port string, more ...string) dev {
	t.Helper()
	args := append([]string{wranglerJS(t), "dev", "--local", "--ip", "127.0.0.1", "--port", port,
		"--inspector-ip", "127.0.0.1", "--inspector-port", freePort(t),
		"--persist-to", persist, "--show-interactive-dev-session=false"}, more...)
	cmd := exec.Command(node(t), args...)
	cmd.Dir = root
	cmd.Env = wranglerEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log strings.Builder
	ready := make(chan struct{})
	go func() {
		s := bufio.NewScanner(out)
		once := sync.Once{}
		for s.Scan() {
			mu.Lock()
			log.WriteString(s.Text() + "\n")
			mu.Unlock()
			if strings.Contains(s.Text(), "Ready on http://127.0.0.1:"+port) {
				once.Do(func() { close(ready) })
			}
		}
	}()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		w.Close()
		close(exited)
	}()
	logged := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	var stopOnce sync.Once
	stop := func() {
		stopOnce.Do(func() {
			syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
			}
			// workerd, wrangler's child, ends with it; anything of the
			// group that did not is ended here.
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			if t.Failed() {
				t.Logf("wrangler dev's output:\n%s", logged())
			}
		})
	}
	t.Cleanup(stop)
	select {
	case <-ready:
	case <-exited:
		t.Fatalf("wrangler dev exited before it was ready (%v):\n%s", waitErr, logged())
	case <-time.After(devReadyTimeout):
		t.Fatalf("wrangler dev was not ready within %v:\n%s", devReadyTimeout, logged())
	}
	return dev{base: "http://127.0.0.1:" + port, stop: stop, log: logged}
}
