# Warren — see README.md and docs/. `make run` starts the server; `make test` proves it works.
GO ?= go
GOROOT := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/go_js_wasm_exec

.PHONY: run console test generate-check fmt-check vet unit wasm-test node node-test bench build

# The server: AMQP on AMQP (127.0.0.1:5672), HTTP (the playground, AMQP
# over WebSocket at /amqp, the management API at /api/) on HTTP
# (127.0.0.1:8080), state kept in ~/.local/state/warren (printed at start).
# Other ports, and any other flag of warren serve in ARGS:
#   make run AMQP=127.0.0.1:5673 HTTP=127.0.0.1:8081 ARGS="--data '' --clock manual"
AMQP ?= 127.0.0.1:5672
HTTP ?= 127.0.0.1:8080
ARGS ?=
run: web
	$(GO) run ./server/cmd/warren serve --amqp '$(AMQP)' --http '$(HTTP)' $(ARGS)

# The script console on an in-memory broker (stepped time).
console:
	$(GO) run ./server/cmd/warren console

build: web
	$(GO) build ./...
	GOOS=js GOARCH=wasm $(GO) build ./engine/... ./wasm/...

test: deps web-deps web edge-deps edge commit-check generate-check fmt-check vet unit wasm-test node-test

# Commit subjects say what changed in at most 72 characters, the why in the
# body after a blank line. Checked from 5fdb86a on (older subjects were
# longer); a clone without that commit checks what it has.
COMMITS_FROM := 5fdb86a
.PHONY: commit-check
commit-check:
	@if ! git rev-parse -q --verify HEAD >/dev/null 2>&1; then echo "commit-check: not a git checkout, skipped"; exit 0; fi; \
	range=HEAD; git cat-file -e $(COMMITS_FROM)^{commit} 2>/dev/null && range=$(COMMITS_FROM)..HEAD; \
	bad="$$(git log --no-merges --format='%h %s' $$range | awk 'length($$0) - 8 > 72')"; \
	nobody="$$(git log --no-merges --format='%h %B%x00' $$range | awk 'BEGIN{RS="\0"} NF { n=split($$0, l, "\n"); if (n > 1 && l[2] != "") print l[1] }')"; \
	if [ -n "$$bad$$nobody" ]; then \
		[ -z "$$bad" ] || { echo "commit subjects longer than 72 characters:"; echo "$$bad"; }; \
		[ -z "$$nobody" ] || { echo "commit messages whose body does not follow a blank line:"; echo "$$nobody"; }; \
		exit 1; fi

# Generated code must match its generator and spec: regenerate, then fail on
# any difference from the committed tree, new untracked files included.
generate-check:
	$(GO) generate ./engine ./engine/amqp/...
	$(GO) tool templ generate -path web
	git diff --exit-code -- engine/command_gen.go engine/wrappers_gen.go engine/amqp web
	@out="$$(git status --porcelain -- engine/command_gen.go engine/wrappers_gen.go engine/amqp 'web/*_templ.go')"; \
	if [ -n "$$out" ]; then echo "go generate left changed or untracked files:"; echo "$$out"; exit 1; fi

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The broker is vetted for macOS and Windows too, so that it keeps building
# there (the TCP transport's system calls differ by OS: server/tcp's
# rawsys_*.go); warren-bench reads Linux's /proc and is Linux's alone.
vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./engine/... ./wasm/...
	for os in darwin windows; do GOOS=$$os $(GO) vet ./engine/... ./server/cmd/warren ./driver/... ./server/tcp/... ./server/ws/... ./server/broker/... || exit 1; done

unit:
	$(GO) test -count=1 ./...

# The engine's and the session hub's tests again, compiled to WebAssembly and
# run under Node, so that anything breaking the browser build or its
# determinism fails here.
wasm-test: node
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" ./engine/... ./wasm/playground/bridge/...

# node runs the WebAssembly tests; install it from Debian if it is missing.
node:
	@command -v node >/dev/null || { apt-get update -qq && apt-get install -y -qq nodejs; }

# The browser modules' unit tests (web/jstest) under Node's own test
# runner: no import cycles, and the pure modules (layout, explain, store,
# definitions, history, i18n) fed what the engine web builds answers.
node-test: node web
	node --test web/jstest/*.test.mjs

# deps installs what the real-client tests (server/e2e/clients_test.go)
# need on a fresh Debian machine: nodejs, npm, python3-pika and
# rabbitmq-server (for the rabbitmqadmin it ships: a policy-rc.d keeps
# the install from starting its RabbitMQ) from Debian when missing, then
# the npm packages pinned in server/e2e/node's package-lock.json with npm ci when node_modules is absent or older than
# package.json or the lock file.
.PHONY: deps client-tools
E2E_NODE := server/e2e/node
deps: client-tools $(E2E_NODE)/node_modules/.package-lock.json

client-tools:
	@missing=""; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	{ /usr/bin/python3 -c 'import pika' || python3 -c 'import pika'; } >/dev/null 2>&1 || missing="$$missing python3-pika"; \
	command -v rabbitmqadmin >/dev/null 2>&1 || missing="$$missing rabbitmq-server"; \
	if [ -n "$$missing" ]; then \
		made=""; if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && made=1; fi; \
		apt-get update -qq && apt-get install -y -qq $$missing; rc=$$?; \
		if [ -n "$$made" ]; then rm -f /usr/sbin/policy-rc.d; fi; exit $$rc; \
	fi

$(E2E_NODE)/node_modules/.package-lock.json: $(E2E_NODE)/package.json $(E2E_NODE)/package-lock.json | client-tools
	cd $(E2E_NODE) && npm ci --no-audit --no-fund
	touch $@

# The engine's hot path against a baseline (not part of `make test`: a
# benchmark is not a timed test; see docs/benchmarks.md): builds the
# engine's test binary, runs the hot-path benchmarks (BENCH_HOT) on one
# core BENCH_COUNT times for BENCH_TIME each, then benchstat (a pinned Go
# tool) prints each benchmark's median with its 95% confidence interval,
# the change and its p-value, and benchgate fails when one is slower by
# more than BENCH_MAX percent (or allocates more) with benchstat's
# confidence. The baseline is $(BENCH_BASELINE), committed;
# BENCH_AGAINST=<commit> compares with that commit instead, built from
# git archive and run interleaved with this tree (old, new, old, new ...)
# so both see the same load: the way to judge a change on a shared
# machine. About 2 minutes (twice that with BENCH_AGAINST).
.PHONY: bench-baseline bench-all
BENCH_HOT ?= ^Benchmark(PublishDeliverAck|ApplyPublishDeliverAck|ApplyPublishDeliverAckByPointer|PublishDeliverAckRecorded|TopicRoute|TopicPublish|FanoutPublish)$$
BENCH_COUNT ?= 10
BENCH_TIME ?= 500ms
BENCH_MAX ?= 5
BENCH_AGAINST ?=
BENCH_BASELINE := engine/testdata/bench/baseline.txt
# The units compared: the custom metrics (msgs/s, ...) restate sec/op.
BENCHSTAT := $(GO) tool benchstat -ignore cpu -filter '.unit:(sec/op OR B/op OR allocs/op)'
bench:
	@d="$$(mktemp -d)" && trap 'rm -rf "$$d"' EXIT && \
	$(GO) test -c -o "$$d/new.test" ./engine && \
	old=$(BENCH_BASELINE) && \
	if [ -n "$(BENCH_AGAINST)" ]; then \
		mkdir "$$d/old" && git archive "$(BENCH_AGAINST)" | tar -x -C "$$d/old" && \
		(cd "$$d/old" && $(GO) test -c -o "$$d/old.test" ./engine) && old="$$d/old.txt" || exit 1; \
	fi && \
	for i in $$(seq $(BENCH_COUNT)); do \
		echo "round $$i of $(BENCH_COUNT)" >&2; \
		if [ -n "$(BENCH_AGAINST)" ]; then \
			(cd engine && "$$d/old.test" -test.run '^$$' -test.bench '$(BENCH_HOT)' -test.benchmem -test.cpu 1 -test.benchtime $(BENCH_TIME)) >> "$$d/old.txt" || exit 1; \
		fi; \
		(cd engine && "$$d/new.test" -test.run '^$$' -test.bench '$(BENCH_HOT)' -test.benchmem -test.cpu 1 -test.benchtime $(BENCH_TIME)) >> "$$d/new.txt" || exit 1; \
	done && \
	$(BENCHSTAT) "$$old" "$$d/new.txt" && \
	$(BENCHSTAT) -format csv "$$old" "$$d/new.txt" 2>/dev/null | \
		$(GO) run ./server/cmd/benchgate -max $(BENCH_MAX) -count $(BENCH_COUNT) -old "$$old" -new "$$d/new.txt"

# bench-baseline rewrites $(BENCH_BASELINE) from this tree, as `make
# bench` measures it: run it on a quiet machine, after a change that makes
# the hot path faster (or slower on purpose, saying why in the commit), and
# commit the file with the change.
bench-baseline:
	@d="$$(mktemp -d)" && trap 'rm -rf "$$d"' EXIT && \
	$(GO) test -c -o "$$d/new.test" ./engine && \
	{ echo "# The engine's hot-path benchmarks, as make bench runs them: the baseline it"; \
	  echo "# compares with (docs/benchmarks.md). Written by make bench-baseline at"; \
	  echo "# $$(git rev-parse --short HEAD)$$(git diff --quiet HEAD -- engine ':!engine/testdata' || echo ' with uncommitted engine changes'), load average $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)."; } > "$$d/base.txt" && \
	for i in $$(seq $(BENCH_COUNT)); do \
		echo "round $$i of $(BENCH_COUNT)" >&2; \
		(cd engine && "$$d/new.test" -test.run '^$$' -test.bench '$(BENCH_HOT)' -test.benchmem -test.cpu 1 -test.benchtime $(BENCH_TIME)) >> "$$d/base.txt" || exit 1; \
	done && \
	mv "$$d/base.txt" $(BENCH_BASELINE) && echo "wrote $(BENCH_BASELINE)"

# Every engine benchmark natively (one core and two) and the hot path under
# WebAssembly; see BENCHMARKS.md.
bench-all: node
	$(GO) test -run '^$$' -bench . -benchmem -cpu 1,2 ./engine/...
	GOOS=js GOARCH=wasm $(GO) test -exec="$(WASM_EXEC)" -run '^$$' -bench 'PublishDeliverAck|TopicRoute' -benchmem ./engine/

# AMQP server vs RabbitMQ (not part of `make test`; see BENCHMARKS.md):
# builds warren and warren-bench, then warren-bench starts warren on free
# loopback ports as `make run` does by default, with its state on disk in
# a fresh temporary data directory (BENCH_WARREN_MODE=memory: --data '',
# with a second one on disk for the persistent workload;
# BENCH_ARGS=--beside-memory: a second Warren in memory beside the
# default one, shown where it differs), and a RabbitMQ node of its own from RABBIT_SERVER in a
# temporary directory (loopback, own epmd, schedulers without
# busy-waiting), restarts both before each memory run, runs every
# workload against both, interleaved,
# BENCH_REPS times, stops what it started by pid and prints a table of
# medians with each broker's CPU per message. RABBIT_URL=amqp://... uses a
# running RabbitMQ instead (skipped with a note if unreachable).
# BENCH_ARGS='--client pipelined' runs the pipelining load client's
# workloads instead of amqp091-go's (about 2 minutes). About 7 minutes on a
# 2-vCPU machine; no repetition starts that would end after 14 minutes
# (--budget).
.PHONY: bench-amqp
RABBIT_URL ?=
RABBIT_SERVER ?= /usr/lib/rabbitmq/bin/rabbitmq-server
BENCH_REPS ?= 5
BENCH_WARREN_MODE ?= default
bench-amqp:
	@d="$$(mktemp -d)" && trap 'rm -rf "$$d"' EXIT && \
	$(GO) build -o "$$d/warren" ./server/cmd/warren && \
	$(GO) build -o "$$d/warren-bench" ./server/cmd/warren-bench && \
	"$$d/warren-bench" compare --warren-bin "$$d/warren" --warren-mode $(BENCH_WARREN_MODE) \
		$(if $(RABBIT_URL),--rabbit-url '$(RABBIT_URL)',--rabbit-server '$(RABBIT_SERVER)') --reps $(BENCH_REPS) $(BENCH_ARGS)

# Scale with work vs RabbitMQ (issue 13 item 4; not part of `make test`;
# see BENCHMARKS.md): builds warren and warren-bench; warren-bench starts
# warren (in BENCH_WARREN_MODE) and a RabbitMQ node of its own as
# bench-amqp does, raises the open-file limit for itself and both, and
# runs idle-memory (RSS per
# 1,000 idle connections and per 1,000 idle queues against LavinMQ's 70
# and 35 MB, each broker restarted first), scale-queues (10,000 msgs/s
# over 1, 10, 100, 1,000 queues) and scale-conns (the same over 1, 10,
# 100, 500 connections), interleaved, BENCH_SCALE_REPS times; per point
# msgs/s, broker CPU per message and p50/p99 latency. BENCH_ARGS adds
# flags (e.g. '--scale-queues 1,100 --scale-span 5s --json FILE'). About
# 2 minutes a repetition on a 2-vCPU machine; interrupted (and cleaned
# up) after 20 (BENCH_SCALE_MINUTES, below). The same load from the
# pipelining client, whose own cost is small enough for the latencies to
# be the brokers':
#   make bench-scale BENCH_SCALE_WORKLOADS=scale-queues,scale-conns BENCH_ARGS='--client pipelined'
# and with '--client pipelined --floor', each point also runs on the floor
# (warren-bench floor: a relay that does no broker work), whose latency is
# what is left when the broker's work is taken away. The p99 against half
# of RabbitMQ's is judged on 10-second spans (a 3-second span's p99 is its
# 300 slowest messages, which come in bursts of up to a dozen;
# BENCHMARKS.md, "Scale with queues and connections"), about 5 minutes a
# repetition with the floor, so with a larger budget:
#   make bench-scale BENCH_SCALE_WORKLOADS=scale-queues,scale-conns BENCH_SCALE_REPS=5 \
#     BENCH_SCALE_MINUTES=35 BENCH_ARGS='--client pipelined --floor --scale-span 10s'
# BENCH_SCALE_MINUTES: start no repetition that would end after that many
# minutes; the run is interrupted 5 minutes later.
.PHONY: bench-scale
BENCH_SCALE_REPS ?= 3
BENCH_SCALE_WORKLOADS ?= idle-memory,scale-queues,scale-conns
BENCH_SCALE_MINUTES ?= 15
bench-scale:
	@d="$$(mktemp -d)" && trap 'rm -rf "$$d"' EXIT && \
	$(GO) build -o "$$d/warren" ./server/cmd/warren && \
	$(GO) build -o "$$d/warren-bench" ./server/cmd/warren-bench && \
	timeout -s INT -k 1m $$(( $(BENCH_SCALE_MINUTES) + 5 ))m "$$d/warren-bench" compare --warren-bin "$$d/warren" --warren-mode $(BENCH_WARREN_MODE) \
		$(if $(RABBIT_URL),--rabbit-url '$(RABBIT_URL)',--rabbit-server '$(RABBIT_SERVER)') \
		--workloads $(BENCH_SCALE_WORKLOADS) --reps $(BENCH_SCALE_REPS) --budget $(BENCH_SCALE_MINUTES)m $(BENCH_ARGS)

# Durability vs RabbitMQ (not part of `make test`; see BENCHMARKS.md):
# builds warren and warren-bench; warren-bench starts warren with --data in
# a temporary directory, and a RabbitMQ node of its own beside it (own epmd,
# node name, loopback ports and mnesia directory: never the machine's own
# RabbitMQ, which is not ours to kill), then runs persistent publishing with
# confirms to a durable queue (window 256, and window 1), and transient
# publishing at window 1 into a non-durable queue (the same round trips
# with no disk: what a fsync adds is the difference), BENCH_DURABLE_REPS
# times interleaved, and on each broker fills a durable queue with 1,000,000
# persistent messages, kills it with SIGKILL, times the restart until the
# queue reports them all, and again after a graceful stop. Bytes on disk
# per message come from the data directories. Stops what it started by pid;
# RabbitMQ is left out with a note if it cannot be started. A warren without
# --data runs in memory, with a note and no disk or recovery figures.
# About 5 minutes; interrupted (and cleaned up) after 30.
.PHONY: bench-durable
BENCH_DURABLE_REPS ?= 3
bench-durable:
	@d="$$(mktemp -d)" && trap 'rm -rf "$$d"' EXIT && \
	$(GO) build -o "$$d/warren" ./server/cmd/warren && \
	$(GO) build -o "$$d/warren-bench" ./server/cmd/warren-bench && \
	mkdir "$$d/work" && \
	timeout -s INT -k 2m 30m "$$d/warren-bench" durable --warren-bin "$$d/warren" --rabbit-server '$(RABBIT_SERVER)' \
		--work "$$d/work" --reps $(BENCH_DURABLE_REPS) $(BENCH_ARGS)

# Pauses vs RabbitMQ (issue 28 item 4; not part of `make test`; see
# BENCHMARKS.md): builds warren and warren-bench; for each scenario
# warren-bench starts a fresh Warren (BENCH_PAUSES_MODE, the default mode
# unless told: a fresh data directory, as `make run` keeps its state) and a
# fresh RabbitMQ node of its own with its management plugin (loopback, own
# epmd), and a healthy client times a passive queue.declare every 1 ms
# while another client runs the scenario: nothing, and nothing while
# every CPU runs a busy loop outside the broker (the machine's own floor
# for a round trip); GET /api/queues, /api/bindings
# and /api/definitions at 100,000 queues, ten times each; a 100,000 x 1 KB burst to a
# consumer that stopped reading; a flood against a 50 MB memory
# watermark; publishing a 400,000-message backlog; 300,000 persistent
# 1 KB messages into a durable queue (snapshots); a million persistent
# messages recovered after SIGKILL (how long until a client is served,
# then its round trips until all are back). Prints the healthy client's
# p99 and longest round trip per scenario, Warren beside RabbitMQ.
# Smaller sizes for a quick run: BENCH_ARGS='--queues 10000 --burst 10000
# --backlog 40000 --persistent 30000 --recovery-messages 100000'; --scenarios picks some.
# Stops what it started by pid; interrupted (and cleaned up) after
# BENCH_PAUSES_MINUTES.
.PHONY: bench-pauses
BENCH_PAUSES_MODE ?= default
BENCH_PAUSES_MINUTES ?= 40
bench-pauses:
	@d="$$(mktemp -d)" && trap 'rm -rf "$$d"' EXIT && \
	$(GO) build -o "$$d/warren" ./server/cmd/warren && \
	$(GO) build -o "$$d/warren-bench" ./server/cmd/warren-bench && \
	mkdir "$$d/work" && \
	timeout -s INT -k 2m $(BENCH_PAUSES_MINUTES)m "$$d/warren-bench" pauses --warren-bin "$$d/warren" --warren-mode $(BENCH_PAUSES_MODE) \
		--rabbit-server '$(RABBIT_SERVER)' --work "$$d/work" $(BENCH_ARGS)

# Shared sessions under load (not part of `make test`; see BENCHMARKS.md):
# builds warren and warren-bench; warren-bench starts `warren serve` on a
# fresh data directory (the default mode) and free loopback ports, creates 100 sessions with 5 browser-protocol pages
# and 1 AMQP client each (POST /api/sessions, /ws/sessions/{id}, the
# session's AMQP login), measures the server's RSS with the sessions idle,
# then has every page send 20 lines at 5 a second and every client publish
# 20 messages at 5 a second with confirms and consume them, and reports
# fan-out latency p50/p99/max for the pages' lines and for the AMQP
# publishes, publish->confirm latency, messages a second and CPU per input
# (BENCH_ARGS='--amqp=false': pages only). Stops the server by its pid;
# about a minute, interrupted (and cleaned up) after 6.
.PHONY: bench-sessions
bench-sessions:
	@d="$$(mktemp -d)" && trap 'rm -rf "$$d"' EXIT && \
	$(GO) build -o "$$d/warren" ./server/cmd/warren && \
	$(GO) build -o "$$d/warren-bench" ./server/cmd/warren-bench && \
	timeout -s INT -k 1m 6m "$$d/warren-bench" sessions --warren-bin "$$d/warren" $(BENCH_ARGS)

# The edge broker's throughput (not part of `make test`; docs/edge.md,
# "How far one vhost goes", and BENCHMARKS.md): wasm/broker/bench-edge.sh
# runs it under wrangler dev --local on a fresh state directory and loads
# one vhost's object over WebSocket (publish with confirms, publish +
# consume), then 100 vhosts at once, with workerd's CPU a message beside
# msgs/s; RABBIT_URL=amqp://... adds RabbitMQ over TCP. A minute or two.
.PHONY: bench-edge
bench-edge: edge edge-deps $(E2E_NODE)/node_modules/.package-lock.json
	wasm/broker/bench-edge.sh

# Differential conformance, Warren vs RabbitMQ (not part of `make test`: CI
# has no RabbitMQ). Starts Warren in-process on free loopback ports, runs
# every scenario in server/conformance against it and against RabbitMQ,
# prints each difference with its verdict and a summary, and writes
# server/conformance/REPORT.md. Fails only on a difference that
# server/conformance/known.go does not explain. About 40 seconds.
.PHONY: conformance
CONFORMANCE_RABBIT_URL ?= $(or $(RABBIT_URL),amqp://guest:guest@127.0.0.1:5672/)
CONFORMANCE_RABBIT_API ?= http://127.0.0.1:15672
conformance:
	$(GO) run ./server/conformance -rabbit '$(CONFORMANCE_RABBIT_URL)' -rabbit-api '$(CONFORMANCE_RABBIT_API)' -report server/conformance/REPORT.md $(CONFORMANCE_ARGS)

# Real clients' own tests against a fresh Warren (not part of `make test`;
# docs/behaviour.md keeps the last result): amqp091-go's integration suite, from
# the Go module proxy, and the RabbitMQ tutorials amqplib ships (both APIs).
# warren-suites runs Warren inside a private network namespace (unshare -n,
# as root) on 127.0.0.1:5672 and :15672, the addresses the suites
# hard-code, so a RabbitMQ on this machine is untouched; SUITES_ARGS='--target
# rabbitmq' runs the same tests against that RabbitMQ instead. About 2
# minutes.
.PHONY: client-suites
client-suites: deps
	@d="$$(mktemp -d)" && trap 'rm -rf "$$d"' EXIT && \
	$(GO) build -o "$$d/warren" ./server/cmd/warren && \
	$(GO) build -o "$$d/warren-suites" ./server/cmd/warren-suites && \
	"$$d/warren-suites" --warren-bin "$$d/warren" --node-modules $(E2E_NODE)/node_modules $(SUITES_ARGS)

# The browser playground: warren.wasm and the wasm_exec.js of the same Go in
# wasm/playground/dist (gitignored), then smoke.mjs drives it in Node.
# Prints the gzipped size (gzip -9); the budget is 3 MB, which
# wasm/playground's TestSmokeInNode enforces in `make test`.
.PHONY: wasm-playground
PLAYGROUND_DIST := wasm/playground/dist
wasm-playground: node
	mkdir -p $(PLAYGROUND_DIST)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(PLAYGROUND_DIST)/warren.wasm ./wasm/playground
	cp "$(GOROOT)/lib/wasm/wasm_exec.js" $(PLAYGROUND_DIST)/
	node wasm/playground/smoke.mjs $(PLAYGROUND_DIST)
	@echo "$(PLAYGROUND_DIST)/warren.wasm: $$(wc -c < $(PLAYGROUND_DIST)/warren.wasm) bytes, $$(gzip -9 -c $(PLAYGROUND_DIST)/warren.wasm | wc -c) gzipped (budget 3 MB)"

# The web front (package web): the playground's engine, built from
# wasm/playground with this Go together with that Go's wasm_exec.js, into
# web/static, where web embeds them (both gitignored: build outputs, always
# rebuilt here; incremental builds take about a second). `run`, `build`
# and `test` depend on it.
.PHONY: web web-deps site

# The home page and playground as a static site in dist/site, for static
# hosting: the engine runs in the browser, so no server is needed.
site: web
	$(GO) run ./server/cmd/warren site dist/site
WEB_STATIC := web/static
web:
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(WEB_STATIC)/warren.wasm ./wasm/playground
	install -m 0644 "$(GOROOT)/lib/wasm/wasm_exec.js" $(WEB_STATIC)/wasm_exec.js

# web-deps installs what the browser tests (web/playground_test.go) need:
# Debian's chromium when /usr/bin/chromium is missing, a Chinese font
# (fonts-wqy-microhei) so that the Chinese pages' screenshots show their
# text rather than empty boxes, and playwright-core
# as pinned in web/e2e's package-lock.json (npm ci when node_modules is
# absent or older than package.json or the lock file).
E2E_WEB := web/e2e
web-deps: client-tools $(E2E_WEB)/node_modules/.package-lock.json
	@missing=""; \
	test -x /usr/bin/chromium || missing="$$missing chromium"; \
	test -e /usr/share/fonts/truetype/wqy/wqy-microhei.ttc || missing="$$missing fonts-wqy-microhei"; \
	if [ -n "$$missing" ]; then apt-get update -qq && apt-get install -y -qq $$missing; fi

$(E2E_WEB)/node_modules/.package-lock.json: $(E2E_WEB)/package.json $(E2E_WEB)/package-lock.json | client-tools
	cd $(E2E_WEB) && npm ci --no-audit --no-fund
	touch $@

# Warren at the edge: two Cloudflare workers, the site's (wasm/worker,
# configured by wrangler.toml) and the broker's (wasm/broker, configured by
# wasm/broker/wrangler.toml); see docs/edge.md. `edge` builds both: the JS glue of
# github.com/syumai/workers (workers-assets-gen, pinned in go.mod) and the Go
# handler into wasm/worker/build, and the static assets (`warren site
# --edge`: the engine's wasm and scripts, and every page in every language
# for the handler to pick from) into dist/edge; all gitignored build
# outputs. edge-deps installs wrangler as pinned in package-lock.json (npm
# ci when node_modules is absent or older than package.json or the lock
# file; install scripts are skipped: wrangler and its workerd run without
# them, and they would try the network). edge-dev serves the worker on
# 127.0.0.1 (EDGE_PORT) offline; edge-deploy deploys it with the account
# wrangler is logged in to (npx wrangler login first); edge-size fails when
# the worker passes the free plan's 3 MB gzipped (wrangler deploy
# --dry-run, which needs no account; wasm/worker's TestWorkerSize, which
# `make test` runs too, with the pages and chromium against wrangler dev),
# and lists the Go packages whose code costs the most
# (TestWorkerCodeByPackage).
.PHONY: edge edge-deps edge-dev edge-deploy edge-size
EDGE_BUILD := wasm/worker/build
EDGE_BROKER_BUILD := wasm/broker/build
EDGE_ASSETS := dist/edge
EDGE_PORT ?= 8787
edge: web
	$(GO) tool workers-assets-gen -mode=go -o $(EDGE_BUILD)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(EDGE_BUILD)/app.wasm ./wasm/worker
	$(GO) tool workers-assets-gen -mode=go -o $(EDGE_BROKER_BUILD)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(EDGE_BROKER_BUILD)/app.wasm ./wasm/broker
	rm -rf $(EDGE_ASSETS)
	$(GO) run ./server/cmd/warren site --edge $(EDGE_ASSETS)

edge-deps: client-tools node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json | client-tools
	npm ci --no-audit --no-fund --ignore-scripts
	touch $@

# edge-dev runs the broker's worker (wasm/broker/wrangler.toml) beside
# the site's, on EDGE_BROKER_PORT, with a local first administrator
# (EDGE_ADMIN_USER, EDGE_ADMIN_PASSWORD: --var here, secrets when
# deployed); edge-deploy deploys both and says how to set the secrets.
EDGE_BROKER_PORT ?= 8788
EDGE_ADMIN_USER ?= admin
EDGE_ADMIN_PASSWORD ?= admin
edge-dev: edge edge-deps
	@echo "the site: http://127.0.0.1:$(EDGE_PORT); the broker: http://127.0.0.1:$(EDGE_BROKER_PORT) (management API, AMQP at ws://127.0.0.1:$(EDGE_BROKER_PORT)/ws/amqp/%2F), user $(EDGE_ADMIN_USER)"
	WRANGLER_SEND_METRICS=false npx wrangler dev -c wasm/broker/wrangler.toml --local --ip 127.0.0.1 --port $(EDGE_BROKER_PORT) \
		--inspector-ip 127.0.0.1 --inspector-port 9230 --show-interactive-dev-session=false \
		--var WARREN_ADMIN_USER:$(EDGE_ADMIN_USER) --var WARREN_ADMIN_PASSWORD:$(EDGE_ADMIN_PASSWORD) & broker=$$!; \
	trap 'kill $$broker' EXIT INT TERM; \
	WRANGLER_SEND_METRICS=false npx wrangler dev --local --ip 127.0.0.1 --port $(EDGE_PORT) --inspector-ip 127.0.0.1

edge-deploy: edge edge-deps
	npx wrangler deploy
	npx wrangler deploy -c wasm/broker/wrangler.toml
	@echo "Deployed. Once, give the broker its first administrator (it is created when the broker finds no user):"
	@echo "  npx wrangler secret put WARREN_ADMIN_USER -c wasm/broker/wrangler.toml"
	@echo "  npx wrangler secret put WARREN_ADMIN_PASSWORD -c wasm/broker/wrangler.toml"
	@echo "then: warren ctl --url https://USER:PASSWORD@warren-broker.<your workers.dev subdomain>/ list_queues"

edge-size: edge edge-deps
	$(GO) test -count=1 -run '^(TestWorkerSize|TestBrokerWorkerSize|TestWorkerCodeByPackage)$$' -v ./wasm/worker

# The playground's performance in headless chromium (not part of `make
# test`; see BENCHMARKS.md, "Playground in chromium"): builds warren with
# the fresh web/static, starts `warren serve` on loopback (PERF_HTTP,
# PERF_AMQP) in the default mode, on a fresh data directory, waits for the port, runs web/e2e/perf.mjs against it
# PERF_RUNS times (each in a fresh chromium profile) and stops warren by
# its pid. Prints a table; about a minute per run.
.PHONY: bench-playground
PERF_HTTP ?= 127.0.0.1:8095
PERF_AMQP ?= 127.0.0.1:5695
PERF_RUNS ?= 3
bench-playground: web web-deps
	@echo "web/static/warren.wasm: $$(wc -c < $(WEB_STATIC)/warren.wasm) bytes, $$(gzip -9 -c $(WEB_STATIC)/warren.wasm | wc -c) gzipped (budget 3 MB)"
	@d="$$(mktemp -d)" && \
	$(GO) build -o "$$d/warren" ./server/cmd/warren && \
	mkdir "$$d/data" && \
	{ "$$d/warren" serve --http $(PERF_HTTP) --amqp $(PERF_AMQP) --data "$$d/data" > "$$d/serve.log" 2>&1 & pid=$$!; } && \
	trap 'kill $$pid 2>/dev/null; wait $$pid 2>/dev/null; rm -rf "$$d"' EXIT && \
	for i in $$(seq 100); do curl -sf -o /dev/null http://$(PERF_HTTP)/ && break; sleep 0.1; done && \
	node $(E2E_WEB)/perf.mjs http://$(PERF_HTTP) $(PERF_RUNS)
