package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// runAMQP091 runs amqp091-go's own integration tests (`go test -tags
// integration`, the tests the client's maintainers run against RabbitMQ)
// from a writable copy of the module as the Go module proxy serves it.
// Tests that need rabbitmqctl skip themselves (RABBITMQ_RABBITMQCTL_PATH
// is not set); the ones that use the management API find it on
// localhost:15672.
func runAMQP091(o *options, stdout, stderr io.Writer) (r suiteResult) {
	r = suiteResult{name: "amqp091-go " + o.amqp091Version + " integration"}
	start := time.Now()
	defer func() { r.elapsed = time.Since(start) }()
	dir, err := moduleDir("github.com/rabbitmq/amqp091-go@" + o.amqp091Version)
	if err != nil {
		r.err = err
		return r
	}
	work, err := os.MkdirTemp("", "warren-suites-amqp091-")
	if err != nil {
		r.err = err
		return r
	}
	defer os.RemoveAll(work)
	if err := copyWritable(dir, work); err != nil {
		r.err = err
		return r
	}
	args := []string{"test", "-tags", "integration", "-count=1", "-v", "-timeout", o.suiteTimeout.String()}
	if o.run != "" {
		args = append(args, "-run", o.run)
	}
	args = append(args, ".")
	cmd := exec.Command("go", args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "AMQP_URL=amqp://guest:guest@localhost:5672/")
	out, _ := cmd.CombinedOutput() // a failing test is a non-zero exit; the output says which
	parseGoTest(out, &r)
	if r.passed == 0 && len(r.failed) == 0 {
		r.err = fmt.Errorf("go test ran no tests: %s", tail(out, 2000))
	}
	return r
}

// parseGoTest counts go test -v's top-level results; a panic that ended
// the test binary is reported as a failure of the test that was running.
func parseGoTest(out []byte, r *suiteResult) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var running string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== RUN   "):
			running = strings.TrimPrefix(line, "=== RUN   ")
		case strings.HasPrefix(line, "--- PASS: "):
			r.passed++
		case strings.HasPrefix(line, "--- SKIP: "):
			r.skipped++
		case strings.HasPrefix(line, "--- FAIL: "):
			name, _, _ := strings.Cut(strings.TrimPrefix(line, "--- FAIL: "), " ")
			r.failed = append(r.failed, name)
		case strings.HasPrefix(line, "panic: ") && r.note == "":
			what := running + " (panicked: " + strings.TrimPrefix(line, "panic: ") + ")"
			if n := len(r.failed); n > 0 && r.failed[n-1] == running {
				r.failed[n-1] = what
			} else {
				r.failed = append(r.failed, what)
			}
			r.note = "the test binary panicked, so the tests after " + running + " did not run"
		}
	}
}

// moduleDir asks the go command where the module cache holds a module,
// downloading it through the module proxy if needed.
func moduleDir(modVersion string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", modVersion).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %v %s", modVersion, err, out)
	}
	var m struct{ Dir, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return "", err
	}
	if m.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", modVersion, m.Error)
	}
	return m.Dir, nil
}

// copyWritable copies a read-only module cache directory to dst with
// writable files (go test writes nothing there, but the go command wants a
// module it may update go.sum in).
func copyWritable(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// tail returns the last n bytes of b.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
