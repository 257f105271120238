package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"warren/driver/sessions"
)

// The client scripts live next to this file; `make deps` installs what
// they need (Node's packages with `npm ci` from server/e2e/node's
// package-lock.json, and Debian's python3-pika).
const (
	nodeDir   = "node"
	pythonDir = "python"
	// scriptTimeout bounds one script run; each script also stops itself
	// (30 s) and normally takes about a second.
	scriptTimeout = 60 * time.Second
	depsHint      = "run `make deps` (it installs nodejs, npm, python3-pika, rabbitmq-server for rabbitmqadmin, and runs npm ci in server/e2e/node)"
)

// clientScript is one real client library run against a fresh server.
type clientScript struct {
	name string
	// command returns the argv for a server listening at amqpURL (TCP) and
	// httpAddr (host:port of the HTTP listener that serves AMQP over
	// WebSocket).
	command func(amqpURL, httpAddr string) []string
}

// TestClients runs each client script in server/e2e/node and
// server/e2e/python against its own Warren on ephemeral loopback ports and
// fails with the script's output when the script exits non-zero. Missing
// client dependencies fail the test rather than skip it: `make test`
// installs them first.
func TestClients(t *testing.T) {
	node := nodeCommand(t)
	python := pythonWithPika(t)
	ws := webSocketNode(node)
	scripts := []clientScript{
		{"amqplib_tcp", func(u, _ string) []string {
			return join(node, filepath.Join(nodeDir, "amqplib_tcp.mjs"), u)
		}},
		{"amqp_client_ws", func(_, h string) []string {
			return join(ws, filepath.Join(nodeDir, "amqp_client_ws.mjs"), "ws://"+h+"/amqp")
		}},
		{"amqp_client_ws_path_ws_amqp", func(_, h string) []string {
			return join(ws, filepath.Join(nodeDir, "amqp_client_ws.mjs"), "ws://"+h+"/ws/amqp")
		}},
		{"amqp_client_tcp", func(u, _ string) []string {
			return join(node, filepath.Join(nodeDir, "amqp_client_ws.mjs"), u)
		}},
		{"pika_tcp", func(u, _ string) []string {
			return join(python, filepath.Join(pythonDir, "pika_tcp.py"), u)
		}},
	}
	for _, s := range scripts {
		t.Run(s.name, func(t *testing.T) {
			srv := startServer(t)
			argv := s.command("amqp://guest:guest@"+srv.AMQPAddr()+"/", srv.HTTPAddr())
			runScript(t, argv)
		})
	}
	// The same WebSocket scenario inside a shared session's broker, with
	// the session's own login, as a page's program would join it: its
	// clock is live, so the scenario's TTLs run on the wall clock.
	t.Run("amqp_client_ws_in_a_session", func(t *testing.T) {
		srv := startServer(t)
		status, body := httpDo(t, "POST", "http://"+srv.HTTPAddr()+"/api/sessions", `{"clock":"live"}`, "")
		var c sessions.Created
		if status != http.StatusCreated || json.Unmarshal(body, &c) != nil || c.AMQP == nil {
			t.Fatalf("create a session: %d %s", status, body)
		}
		runScript(t, join(ws, filepath.Join(nodeDir, "amqp_client_ws.mjs"), "ws://"+c.AMQP.User+":"+c.AMQP.Password+"@"+srv.HTTPAddr()+c.AMQP.WebSocket))
	})
}

// join returns a new argv: prefix, then args.
func join(prefix []string, args ...string) []string {
	return append(append([]string{}, prefix...), args...)
}

// runScript runs argv, logs its output, and fails the test with that
// output if it exits non-zero or outlives scriptTimeout.
func runScript(t *testing.T, argv []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s: no result within %v\n%s", strings.Join(argv, " "), scriptTimeout, out.String())
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out.String())
	}
	t.Logf("%s\n%s", strings.Join(argv, " "), out.String())
}

// nodeCommand returns node's argv prefix after checking that the pinned
// packages are installed, at the versions package.json pins.
func nodeCommand(t *testing.T) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %s", depsHint)
	}
	checkNodeVersion(t, node)
	raw, err := os.ReadFile(filepath.Join(nodeDir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Dependencies map[string]string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatalf("%s/package.json: %v", nodeDir, err)
	}
	names := make([]string, 0, len(pkg.Dependencies))
	for name := range pkg.Dependencies {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		want := pkg.Dependencies[name]
		raw, err := os.ReadFile(filepath.Join(nodeDir, "node_modules", name, "package.json"))
		if err != nil {
			t.Fatalf("npm package %s is not installed in %s/node_modules: %s", name, nodeDir, depsHint)
		}
		var got struct{ Version string }
		if err := json.Unmarshal(raw, &got); err != nil || got.Version != want {
			t.Fatalf("npm package %s is %q in %s/node_modules, package.json pins %q: %s", name, got.Version, nodeDir, want, depsHint)
		}
	}
	return []string{node}
}

// checkNodeVersion fails unless node is 18 or later, as the pinned
// packages require.
func checkNodeVersion(t *testing.T, node string) {
	t.Helper()
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, err := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if err != nil || major < 18 {
		t.Fatalf("node %s: the client scripts need Node 18 or later", strings.TrimSpace(string(out)))
	}
}

// webSocketNode returns node's argv for the WebSocket script: with
// --experimental-websocket where that flag gives Node 20 and 21 their
// global WebSocket, else as it is (Node 22 has one; on older Node the
// script falls back to the pinned ws package).
func webSocketNode(node []string) []string {
	const probe = "process.exit(typeof WebSocket === 'function' ? 0 : 1)"
	if exec.Command(node[0], join(node[1:], "-e", probe)...).Run() == nil {
		return node
	}
	flagged := join(node, "--experimental-websocket")
	if exec.Command(flagged[0], join(flagged[1:], "-e", probe)...).Run() == nil {
		return flagged
	}
	return node
}

// pythonWithPika returns the first Python 3 that can import pika:
// $WARREN_PYTHON if set, then Debian's /usr/bin/python3 (where
// python3-pika installs, even when another python3 comes first on PATH),
// then python3 on PATH.
func pythonWithPika(t *testing.T) []string {
	t.Helper()
	candidates := []string{"/usr/bin/python3", "python3"}
	if p := os.Getenv("WARREN_PYTHON"); p != "" {
		candidates = []string{p}
	}
	for _, c := range candidates {
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import pika").Run() == nil {
			return []string{path}
		}
	}
	t.Fatalf("no python3 among %v can import pika: %s", candidates, depsHint)
	return nil
}
