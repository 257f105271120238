package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// runAMQP091 runs amqp091-go's own integration tests (`go test -tags
// integration`, the tests the client's maintainers run against RabbitMQ)
// from the test binary prepareAMQP091 built. Tests that need rabbitmqctl
// skip themselves (RABBITMQ_RABBITMQCTL_PATH is not set); the ones that
// use the management API find it on localhost:15672.
func runAMQP091(o *options, suite *amqp091Suite) (r suiteResult) {
	r = suiteResult{name: "amqp091-go " + o.amqp091Version + " integration"}
	start := time.Now()
	defer func() { r.elapsed = time.Since(start) }()
	args := []string{"-test.count=1", "-test.v", "-test.timeout", o.suiteTimeout.String()}
	if o.run != "" {
		args = append(args, "-test.run", o.run)
	}
	cmd := exec.Command(suite.binary(), args...)
	cmd.Dir = suite.dir
	cmd.Env = append(os.Environ(), "AMQP_URL=amqp://guest:guest@localhost:5672/")
	out, _ := cmd.CombinedOutput() // a failing test is a non-zero exit; the output says which
	parseGoTest(out, &r)
	if r.passed == 0 && len(r.failed) == 0 {
		r.err = fmt.Errorf("the amqp091-go tests ran none: %s", tail(out, 2000))
	}
	return r
}

// amqp091Suite is a writable copy of amqp091-go's module with its
// integration tests compiled in it (amqp091.test), so that they can run
// where there is no network: inside the private network namespace.
type amqp091Suite struct{ dir string }

func (s *amqp091Suite) binary() string { return filepath.Join(s.dir, "amqp091.test") }

// remove deletes the copy.
func (s *amqp091Suite) remove() { os.RemoveAll(s.dir) }

// prepareAMQP091 copies the module as the Go module proxy serves it and
// compiles its integration tests there (go test -c), while the network is
// still at hand: the tests import modules of their own that the main
// module does not (go.uber.org/goleak), and on a fresh module cache the go
// command would have to download them inside the namespace, where it
// cannot.
func prepareAMQP091(version string) (*amqp091Suite, error) {
	dir, err := moduleDir("github.com/rabbitmq/amqp091-go@" + version)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "warren-suites-amqp091-")
	if err != nil {
		return nil, err
	}
	s := &amqp091Suite{dir: work}
	if err := copyWritable(dir, work); err != nil {
		s.remove()
		return nil, err
	}
	cmd := exec.Command("go", "test", "-c", "-tags", "integration", "-o", s.binary(), ".")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		s.remove()
		return nil, fmt.Errorf("compiling amqp091-go's integration tests: %v: %s", err, tail(out, 2000))
	}
	return s, nil
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
