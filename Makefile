# Warren — see README.md. `make run` starts the server; `make test` proves it works.
GO ?= go
GOROOT := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/go_js_wasm_exec

.PHONY: run console test generate-check fmt-check vet unit wasm-test node bench build

# The server on its defaults: AMQP on 127.0.0.1:5672, HTTP (AMQP over
# WebSocket at /amqp, management API at /api/) on 127.0.0.1:8080.
run:
	$(GO) run ./server/cmd/warren serve

# The script console on an in-memory broker (stepped time).
console:
	$(GO) run ./server/cmd/warren console

build:
	$(GO) build ./...
	GOOS=js GOARCH=wasm $(GO) build ./engine/...

test: generate-check fmt-check vet unit wasm-test

# Generated code must match its generator and spec: regenerate, then fail on
# any difference from the committed tree, new untracked files included.
generate-check:
	$(GO) generate ./server/amqp/...
	git diff --exit-code -- server/amqp
	@out="$$(git status --porcelain -- server/amqp)"; \
	if [ -n "$$out" ]; then echo "go generate left changed or untracked files:"; echo "$$out"; exit 1; fi

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./engine/...

unit:
	$(GO) test -count=1 ./...

# The engine's tests again, compiled to WebAssembly and run under Node, so
# that anything breaking the browser build or its determinism fails here.
wasm-test: node
	GOOS=js GOARCH=wasm $(GO) test -count=1 -exec="$(WASM_EXEC)" ./engine/...

# node runs the WebAssembly tests; install it from Debian if it is missing.
node:
	@command -v node >/dev/null || { apt-get update -qq && apt-get install -y -qq nodejs; }

# Engine benchmarks natively (one core and two) and under WebAssembly; see BENCHMARKS.md.
bench: node
	$(GO) test -run '^$$' -bench . -benchmem -cpu 1,2 ./engine/...
	GOOS=js GOARCH=wasm $(GO) test -exec="$(WASM_EXEC)" -run '^$$' -bench 'PublishDeliverAck|TopicRoute' -benchmem ./engine/
