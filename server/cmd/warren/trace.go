package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/trace"
	"sync"
)

// traceEnv names the file `warren serve` writes a Go execution trace to
// between a SIGUSR1 and the next SIGUSR2 (or shutdown); unset, as it is by
// default, the signals are not watched and nothing is traced. It is how
// the pause benchmark's waits were found (docs/benchmarks.md: which
// goroutines a healthy client's connection waited behind), on a server
// started as usual, without a profiling build or an HTTP endpoint.
const traceEnv = "WARREN_TRACE"

// tracer writes execution traces to one file, one at a time.
type tracer struct {
	path   string
	stderr io.Writer
	mu     sync.Mutex
	f      *os.File // the file being written, nil when not tracing
}

// start starts a trace into the file, replacing what it held; while one
// runs it does nothing.
func (t *tracer) start() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		return
	}
	out, err := os.Create(t.path)
	if err == nil {
		if err = trace.Start(out); err != nil {
			out.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(t.stderr, "warren serve: %s: cannot trace 无法跟踪: %v\n", traceEnv, err)
		return
	}
	t.f = out
	fmt.Fprintf(t.stderr, "execution trace started into %s (SIGUSR2 ends it) 执行跟踪开始写入 %[1]s（SIGUSR2 结束）\n", t.path)
}

// end ends the trace running, if one is, and closes its file.
func (t *tracer) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return
	}
	trace.Stop()
	err := t.f.Close()
	t.f = nil
	if err != nil {
		fmt.Fprintf(t.stderr, "warren serve: %s: %v\n", traceEnv, err)
		return
	}
	fmt.Fprintf(t.stderr, "execution trace written to %s 执行跟踪已写入 %[1]s\n", t.path)
}

// traceOnSignal watches SIGUSR1 (start) and SIGUSR2 (end) when traceEnv
// is set, and returns what ends a trace still running at shutdown, so
// that the file is complete.
func traceOnSignal(stderr io.Writer) (stop func()) {
	path := os.Getenv(traceEnv)
	if path == "" {
		return func() {}
	}
	startSig, endSig, ok := traceSignals()
	if !ok {
		fmt.Fprintf(stderr, "warren serve: %s is ignored: this system has no SIGUSR1 and SIGUSR2 to start and end a trace 此系统没有用来开始和结束跟踪的 SIGUSR1 和 SIGUSR2，%[1]s 被忽略\n", traceEnv)
		return func() {}
	}
	t := &tracer{path: path, stderr: stderr}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, startSig, endSig)
	go func() {
		for s := range sig {
			if s == startSig {
				t.start()
			} else {
				t.end()
			}
		}
	}()
	return func() {
		signal.Stop(sig)
		t.end()
	}
}
