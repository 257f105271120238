package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTracerWritesOneTrace checks that a trace started and ended leaves a
// Go execution trace in the file (its header), that a second start while
// tracing and an end without a trace do nothing, and that both messages
// come in both languages.
func TestTracerWritesOneTrace(t *testing.T) {
	var log bytes.Buffer
	tr := &tracer{path: filepath.Join(t.TempDir(), "trace.out"), stderr: &log}
	tr.end() // nothing to end
	tr.start()
	tr.start() // already tracing
	tr.end()
	tr.end()
	data, err := os.ReadFile(tr.path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("go 1.")) || !bytes.Contains(data[:16], []byte(" trace")) {
		t.Fatalf("%s does not start with a trace header: %q", tr.path, data[:min(16, len(data))])
	}
	want := "execution trace started into " + tr.path + " (SIGUSR2 ends it) 执行跟踪开始写入 " + tr.path + "（SIGUSR2 结束）\n" +
		"execution trace written to " + tr.path + " 执行跟踪已写入 " + tr.path + "\n"
	if log.String() != want {
		t.Fatalf("messages:\n%s\nwant:\n%s", log.String(), want)
	}
}

// TestTraceOffByDefault checks that without WARREN_TRACE nothing is
// watched or written.
func TestTraceOffByDefault(t *testing.T) {
	t.Setenv(traceEnv, "")
	var log bytes.Buffer
	traceOnSignal(&log)()
	if log.Len() != 0 {
		t.Fatalf("wrote %q", log.String())
	}
}

// TestTraceCannotCreate checks that a file that cannot be created is said,
// in both languages, and leaves no trace running.
func TestTraceCannotCreate(t *testing.T) {
	var log bytes.Buffer
	tr := &tracer{path: filepath.Join(t.TempDir(), "missing", "trace.out"), stderr: &log}
	tr.start()
	if tr.f != nil || !strings.Contains(log.String(), "cannot trace 无法跟踪") {
		t.Fatalf("tracing %v, log %q", tr.f != nil, log.String())
	}
}
