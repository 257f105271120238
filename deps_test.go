// Package warren_test holds the module's import policy: what each of its
// packages may import, written down as data (depsRules, testGroups,
// linkRules) and checked against every package of the tree by
// TestImportPolicy and TestWasmLinks. It lives at the module's root, the
// one place that is about the whole tree and part of no package, as Go's
// own policy lives in go/build/deps_test.go beside the code that reads
// imports; a rule kept in the package it governs could not see the
// packages that import it, nor a new package that has no rule yet.
package warren_test

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// depsRules is the policy for the non-test files of every package of the
// module (named without "warren/"), the language of Go's deps_test
// (depsrules_test.go says it exactly): "a, b < c" lets c import a, b and
// what they may. A package with no rule fails TestImportPolicy, so a new
// package states its place when it is added.
const depsRules = `
# The standard library and the modules we use, in groups by what they
# do. A group is only what it lists; a rule names the groups it needs.

# PURE computes and nothing else: no I/O, clock, goroutines, locks or
# randomness. It is what a deterministic state machine may use and what
# costs the browser's and the worker's wasm little. (fmt can print and
# reflect can do much; the engine formats and compares with them.)
NONE
< bufio, bytes, cmp, compress/gzip, crypto/md5, crypto/sha256,
  crypto/sha512, crypto/subtle, encoding/base64, encoding/binary,
  encoding/hex, encoding/json, errors, fmt, hash, hash/crc32, hash/fnv,
  html, io, iter, maps, math, math/big, math/bits, path, reflect, regexp,
  slices, sort, strconv, strings, unicode, unicode/utf8
< PURE;

# EMBED reads files compiled into the binary: no I/O when it runs.
NONE < embed, io/fs < EMBED;

# RUNTIME is the machine: the clock, goroutines, locks, randomness.
NONE
< context, crypto/rand, math/rand, math/rand/v2, runtime, runtime/debug,
  runtime/pprof, runtime/trace, sync, sync/atomic, time
< RUNTIME;

# OS is the operating system: files, processes, signals, flags, logs and
# raw system calls.
NONE
< flag, log, os, os/exec, os/signal, path/filepath, syscall, unsafe,
  golang.org/x/sys/unix
< OS;

# NET is the network and HTTP.
NONE < mime, net, net/http, net/netip, net/url < NET;

# TEMPLATES render pages: hundreds of kilobytes of wasm each.
NONE
< html/template, text/template, github.com/a-h/templ,
  github.com/a-h/templ/runtime
< TEMPLATES;

# WEBSOCKET is the WebSocket library of the server and the edge.
NONE < github.com/coder/websocket < WEBSOCKET;

# JS is the JavaScript host of the browser's and the worker's wasm.
NONE
< syscall/js, github.com/syumai/workers,
  github.com/syumai/workers/cloudflare,
  github.com/syumai/workers/cloudflare/fetch
< JS;

# CLIENT is an AMQP client, for tools and tests: the broker never links
# it (see the rule under server/cmd/warren).
NONE < github.com/rabbitmq/amqp091-go < CLIENT;

# GOTOOLS read and write Go source: generators and this test.
NONE < go/ast, go/build/constraint, go/format, go/parser, go/token < GOTOOLS;

# TESTING is for _test.go files (see testGroups).
NONE
< testing, testing/synctest, net/http/httptest, golang.org/x/net/html
< TESTING;

# The engine, inward only: a pure, deterministic state machine that the
# server, the browser and the edge all drive. Its packages import PURE
# and each other, never a driver.
PURE < engine/deadline, engine/duration, engine/topic;
engine/deadline, engine/topic < engine;
engine, engine/duration < engine/script;

# The hub, a shared session's order and membership, does no I/O (no
# time, net, os, sync, math/rand, crypto/rand), so the same hub runs in
# the native server and in a Cloudflare Durable Object.
engine/script < engine/hub;

# The AMQP 0-9-1 codec: frames to values and back, sans-I/O.
PURE < engine/amqp;

# The AMQP connection's protocol machine: frames in, engine commands and
# frames out, with no I/O, so a script drives it as it drives the engine.
engine, engine/amqp < engine/amqpconn;

# The command generator writes engine/command_gen.go from the Cmd structs
# at go generate time; it is linked by nothing.
PURE, OS, GOTOOLS < server/cmd/cmdgen;

# The codec's generator runs at development time, reading the spec and
# writing Go; it is linked by nothing.
PURE, OS, GOTOOLS < server/cmd/amqpgen;

# Everything under engine/ stays pure (the generators that write its
# code live in server/cmd), and nothing in it reaches out: not to a
# driver, not to a transport.
RUNTIME, OS, NET, EMBED, JS, WEBSOCKET, TEMPLATES !< engine/...;
server/..., wasm/..., web/..., lessons !< engine/...;

# The pages and their two languages. Catalogs and lessons are compiled in.
PURE, NET < web/i18n/locale;
EMBED, web/i18n/locale < web/i18n;
EMBED, RUNTIME, engine/script < lessons;
TEMPLATES, OS, RUNTIME, lessons, web/i18n < web;

# The server drives the engine; web renders pages and never reaches into
# the server (the server imports web, not the other way round).
server/... !< web, web/...;

# The store keeps opaque records, and must not learn what they mean.
PURE, RUNTIME, OS < server/store;
engine/... !< server/store;

# The drivers both homes run, natively and at the edge, live in driver/:
# they may use goroutines, locks, the clock and HTTP values, but no
# operating system and nothing of the server's, so the worker links none
# of server/ (linkRules).
engine < driver/sink;
PURE, RUNTIME, engine, engine/duration < driver/clockapi;
PURE, RUNTIME, NET < driver/addrlimit;

# netwatch keeps a thread watching the network while a goroutine works
# without parking (a streaming connection, a long reply's encoder).
PURE, RUNTIME < server/netwatch;

RUNTIME, OS, engine, server/store, driver/sink < server/broker;
server/broker < server/auth;
NET, engine/script, driver/clockapi, server/auth, server/netwatch
< server/mgmt;
NET, engine/hub < server/httpguard;
RUNTIME, OS, engine/script < server/console;
NET, OS, RUNTIME, engine < server/ctl;

# The connections. A transport owns one socket's bytes and nothing of the
# protocol: TCP with raw system calls and read pacing, the server's
# WebSocket, and the edge's, whose socket a Durable Object holds.
# driver/conn runs the protocol machine for one connection over any of
# them; neither it nor the machine imports a transport (the server and
# the edge's session role plug them in).
PURE, RUNTIME, OS, NET, server/netwatch < server/tcp;
RUNTIME, OS, NET, WEBSOCKET, engine/amqpconn < server/ws;
RUNTIME, OS, NET, engine/amqpconn < wasm/worker/amqpsocket;
# (os for the deadline error a transport's read ends with, and the
# switch that turns the ownership checks on.)
RUNTIME, NET, os, engine/amqpconn, driver/sink < driver/conn;
server/tcp, server/ws, wasm/worker/amqpsocket
!< driver/conn, engine/amqpconn;

# Shared sessions: the hub driven over WebSockets, natively and at the
# edge.
log, WEBSOCKET, engine/hub, driver/addrlimit, driver/clockapi,
driver/conn
< driver/sessions;

flag, os/exec, os/signal, path/filepath, syscall, unsafe,
golang.org/x/sys/unix
!< driver/...;
server/..., wasm/..., web/... !< driver/...;

# The browser's wasm: the bridge is the page's engine and hub, and runs
# under go test on the host (no syscall/js); main binds it to JavaScript.
engine/hub < wasm/playground/bridge;
JS, wasm/playground/bridge < wasm/playground;

# The edge worker (linkRules bounds what it links in all).
RUNTIME, NET, web/i18n/locale < wasm/worker/site;
JS, NET, WEBSOCKET, driver/conn, wasm/worker/amqpsocket < wasm/dobridge;
JS, WEBSOCKET, driver/sessions, wasm/worker/amqpsocket, wasm/dobridge
< wasm/worker/sessionrole;
JS, wasm/worker/sessionrole, wasm/worker/site < wasm/worker;

# The edge's broker (its own worker, so that each fits the free plan):
# a vhost's object runs warren serve's broker, users, management API and
# connections.
JS, NET, engine, driver/conn, server/auth, server/broker, server/mgmt,
server/store, wasm/dobridge, wasm/worker/amqpsocket
< wasm/broker/vhostrole;
JS, wasm/broker/vhostrole < wasm/broker;

# The server and its commands.
server/tcp, server/ws, server/httpguard, server/mgmt, driver/sessions,
web
< server;
server, server/console, server/ctl < server/cmd/warren;
CLIENT, server < server/conformance, server/cmd/warren-bench;
PURE, EMBED, RUNTIME, OS, NET < server/cmd/warren-suites;
# benchgate reads benchstat's CSV comparison for make bench.
PURE < encoding/csv;
PURE, OS, encoding/csv < server/cmd/benchgate;
CLIENT !< server/cmd/warren;

# No package imports a testing package: harnesses stay in _test.go files
# (the script language is a package of its own for that).
TESTING !< engine/..., lessons, server/..., wasm/..., web/...;

# Tests, by testGroups. The engine's are held to the engine and the
# standard library: the engine is tested on its own, and under GOOS=js,
# never through a driver.
PURE, RUNTIME, OS, TESTING, engine/hub, engine/amqp < ENGINE_TEST;
ENGINE_TEST, GOTOOLS, server/cmd/warren, server/cmd/warren-suites,
server/conformance, server/cmd/warren-bench, server/cmd/benchgate,
wasm/playground, wasm/worker
< TEST;
`

// testGroups says what a package's _test.go files may import: what the
// package may, the package itself, and what the group of depsRules of the
// first pattern matching its name may. A package with test files only
// (the root's, server/e2e) needs nothing more than this.
var testGroups = []struct{ pattern, group string }{
	{"engine/...", "ENGINE_TEST"},
	{"...", "TEST"},
}

// linkRules bound what each wasm program links, directly or not, in its
// own build (GOOS=js GOARCH=wasm, as go list -deps sees it): depsRules
// bounds one import at a time, but a program's size is a property of all
// it links, other modules' packages included. links is exactly the
// module's packages it links, so that growing or shrinking shows here;
// never are groups, packages or patterns ("server/...") it must not
// link.
var linkRules = []struct{ main, links, never string }{
	// The edge worker: Cloudflare's free plan deploys 3 MB gzipped
	// (TestWorkerSize in wasm/worker), and each request starts a fresh Go
	// instance, so the pages come rendered from the static assets and the
	// catalogs and lessons stay out.
	{
		main: "wasm/worker",
		links: `driver/addrlimit, driver/clockapi, driver/conn,
			driver/sessions, driver/sink, engine, engine/amqp,
			engine/amqpconn, engine/deadline, engine/duration, engine/hub,
			engine/script, engine/topic, wasm/dobridge,
			wasm/worker/amqpsocket, wasm/worker/sessionrole,
			wasm/worker/site, web/i18n/locale`,
		never: "TEMPLATES, server/...",
	},
	// The edge's broker: a worker of its own, so that it too fits the
	// free plan's 3 MB (TestBrokerWorkerSize in wasm/worker); no
	// sessions, pages or templates.
	{
		main: "wasm/broker",
		links: `driver/clockapi, driver/conn, driver/sink, engine,
			engine/amqp, engine/amqpconn, engine/deadline, engine/duration,
			engine/topic, server/auth, server/broker,
			server/mgmt, server/netwatch, server/store, wasm/broker/vhostrole,
			wasm/dobridge, wasm/worker/amqpsocket`,
		never: "TEMPLATES, driver/sessions, engine/hub, engine/script, web/...",
	},
	// The playground's wasm: 3 MB gzipped as well (TestSmokeInNode in
	// wasm/playground); a page needs no HTTP, templates or sockets.
	{
		main:  "wasm/playground",
		links: "engine, engine/deadline, engine/duration, engine/hub, engine/script, engine/topic, wasm/playground/bridge",
		never: "NET, TEMPLATES, TESTING, WEBSOCKET, os/exec",
	},
}

// TestImportPolicy checks every package of the tree against depsRules
// and testGroups, and depsRules against itself: no rule for what is not
// a package, and every "!<" holds.
func TestImportPolicy(t *testing.T) {
	module, err := modulePath()
	if err != nil {
		t.Fatal(err)
	}
	p, err := parsePolicy(depsRules)
	if err != nil {
		t.Fatalf("depsRules: %v", err)
	}
	tree, err := readTree(module)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree) < 10 || tree["engine"] == nil {
		t.Fatalf("found %d packages; is the test running at the module's root?", len(tree))
	}

	top := map[string]bool{} // the module's top-level folders
	for name := range tree {
		top[strings.Split(name, "/")[0]] = true
	}
	for _, name := range p.order {
		if !isGroup(name) && top[strings.Split(name, "/")[0]] && (tree[name] == nil || !tree[name].code) {
			t.Errorf("depsRules has a rule for %s, which is not a package of the module", name)
		}
	}

	names := map[string]bool{}
	for name := range tree {
		names[name] = true
	}
	for _, name := range sortedKeys(names) {
		pkg := tree[name]
		if pkg.code {
			if p.allowed[name] == nil {
				t.Errorf("package %s has no rule in depsRules", name)
				continue
			}
			for _, imp := range sortedKeys(pkg.imports) {
				switch {
				case p.allowed[imp] == nil:
					t.Errorf("%s imports %s, which depsRules does not name", name, imp)
				case !p.may(name, imp):
					t.Errorf("%s imports %s, which its rule does not allow", name, imp)
				}
			}
		}
		group := ""
		for _, g := range testGroups {
			if matchPattern(g.pattern, name) {
				group = g.group
				break
			}
		}
		if group == "" || p.allowed[group] == nil {
			t.Errorf("%s's tests have no group in testGroups that depsRules defines", name)
			continue
		}
		for _, imp := range sortedKeys(pkg.testImports) {
			if imp != name && !p.may(name, imp) && !p.may(group, imp) {
				t.Errorf("%s's tests import %s, which neither its rule nor %s allows", name, imp, group)
			}
		}
	}

	for _, err := range p.checkNever() {
		t.Errorf("depsRules: %v", err)
	}
}

// TestWasmLinks checks linkRules on the real builds, with go list -deps.
func TestWasmLinks(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("runs the go command")
	}
	module, err := modulePath()
	if err != nil {
		t.Fatal(err)
	}
	p, err := parsePolicy(depsRules)
	if err != nil {
		t.Fatalf("depsRules: %v", err)
	}
	for _, rule := range linkRules {
		cmd := exec.Command("go", "list", "-deps", "./"+rule.main)
		cmd.Env = append(cmd.Environ(), "GOOS=js", "GOARCH=wasm")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", rule.main, err)
		}
		linked := map[string]bool{} // every package, by policy name
		ours := map[string]bool{}   // the module's
		for _, path := range strings.Fields(string(out)) {
			name := policyName(module, path)
			linked[name] = true
			if name != path {
				ours[name] = true
			}
		}
		if !ours[rule.main] || !linked["syscall/js"] {
			t.Fatalf("go list -deps ./%s does not list the program and syscall/js:\n%s", rule.main, out)
		}
		links, err := parseList(rule.links)
		if err != nil {
			t.Fatalf("linkRules %s: %v", rule.main, err)
		}
		want := map[string]bool{rule.main: true}
		for _, n := range links {
			want[n] = true
		}
		for _, n := range sortedKeys(ours) {
			if !want[n] {
				t.Errorf("%s links %s, which linkRules does not list for it", rule.main, n)
			}
		}
		for _, n := range sortedKeys(want) {
			if !ours[n] {
				t.Errorf("%s no longer links %s: take it out of its linkRules", rule.main, n)
			}
		}
		never, err := parseList(rule.never)
		if err != nil {
			t.Fatalf("linkRules %s: %v", rule.main, err)
		}
		names, err := p.expand(never)
		if err != nil {
			t.Errorf("linkRules %s: never: %v", rule.main, err)
		}
		for _, g := range names {
			for _, x := range p.packages(g) {
				if linked[x] {
					t.Errorf("%s links %s (%s), which linkRules forbids it", rule.main, x, g)
				}
			}
		}
	}
}
