// Command warren-suites runs real AMQP clients' own tests against a broker:
// amqp091-go's integration suite (its _test.go files, from the Go module
// proxy) and the RabbitMQ tutorials that amqplib ships in its npm package.
// It is what `make client-suites` runs; docs/behaviour.md keeps its last result.
//
//	warren-suites --warren-bin PATH [--only amqp091|tutorials] [--run REGEXP]
//	warren-suites --target rabbitmq [--only ...]
//
// Both suites hard-code the broker's address (amqp://localhost, the
// management API on localhost:15672), so against Warren the command runs
// itself again inside a private network namespace (unshare -n, which needs
// root): there Warren listens on 127.0.0.1:5672 and 127.0.0.1:15672, and a
// RabbitMQ on the host's own ports is neither reached nor disturbed. With
// --target rabbitmq it runs on the host against whatever listens there, so
// the same tests can be compared side by side.
//
// Every run is bounded: the amqp091-go suite by go test's -timeout, each
// tutorial by --tutorial-timeout. Warren is stopped by its process id.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the command's flags.
type options struct {
	target          string
	warrenBin       string
	only            string
	run             string
	amqp091Version  string
	nodeModules     string
	suiteTimeout    time.Duration
	tutorialTimeout time.Duration
	inNetns         bool
	amqp091Dir      string
}

// run is main with its outputs passed in. It returns the exit status: 0
// every test passed, 1 some failed, 2 a usage or setup error.
func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("warren-suites", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.target, "target", "warren", "broker under test: warren (started here, in a private network namespace) or rabbitmq (whatever listens on localhost:5672 and :15672)")
	fs.StringVar(&o.warrenBin, "warren-bin", "", "the warren binary to start (target warren)")
	fs.StringVar(&o.only, "only", "", "run one suite: amqp091 or tutorials")
	fs.StringVar(&o.run, "run", "", "amqp091-go: run only the tests matching this regular expression (go test -run)")
	fs.StringVar(&o.amqp091Version, "amqp091-version", "v1.16.0", "the amqp091-go release whose integration tests run")
	fs.StringVar(&o.nodeModules, "node-modules", "server/e2e/node/node_modules", "node_modules holding amqplib (make deps installs it)")
	fs.DurationVar(&o.suiteTimeout, "suite-timeout", 10*time.Minute, "go test -timeout for the amqp091-go suite")
	fs.DurationVar(&o.tutorialTimeout, "tutorial-timeout", 20*time.Second, "how long one tutorial may take")
	fs.BoolVar(&o.inNetns, "in-netns", false, "internal: already inside the private network namespace")
	fs.StringVar(&o.amqp091Dir, "amqp091-dir", "", "internal: the copy of amqp091-go whose integration tests are compiled (made before entering the namespace)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.only != "" && o.only != "amqp091" && o.only != "tutorials" {
		fmt.Fprintf(stderr, "warren-suites: --only must be amqp091 or tutorials, not %q\n", o.only)
		return 2
	}
	switch o.target {
	case "rabbitmq":
		return withAMQP091(&o, stderr, func() int { return runSuites(&o, stdout, stderr) })
	case "warren":
		if o.warrenBin == "" {
			fmt.Fprintln(stderr, "warren-suites: --warren-bin is required with --target warren")
			return 2
		}
		if o.inNetns {
			return runInNetns(&o, stdout, stderr)
		}
		return withAMQP091(&o, stderr, func() int {
			return reexecInNetns(append(args, "--amqp091-dir", o.amqp091Dir), stdout, stderr)
		})
	}
	fmt.Fprintf(stderr, "warren-suites: --target must be warren or rabbitmq, not %q\n", o.target)
	return 2
}

// withAMQP091 runs fn with amqp091-go's integration tests compiled in
// o.amqp091Dir (unless that suite is not to run, or the directory was
// given), and removes them after.
func withAMQP091(o *options, stderr io.Writer, fn func() int) int {
	if o.only == "tutorials" || o.amqp091Dir != "" {
		return fn()
	}
	suite, err := prepareAMQP091(o.amqp091Version)
	if err != nil {
		fmt.Fprintf(stderr, "warren-suites: %v\n", err)
		return 2
	}
	defer suite.remove()
	o.amqp091Dir = suite.dir
	return fn()
}

// reexecInNetns runs this command again under `unshare -n`, with paths made
// absolute (the namespace shares the file system, not the network).
func reexecInNetns(args []string, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "warren-suites: %v\n", err)
		return 2
	}
	argv := []string{"-n", "--", self, "--in-netns"}
	argv = append(argv, absolutePaths(args)...)
	cmd := exec.Command("unshare", argv...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "warren-suites: unshare -n (a private network namespace needs root): %v\n", err)
		return 2
	}
	return 0
}

// absolutePaths rewrites the path-valued flags to absolute paths.
func absolutePaths(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		for _, f := range []string{"-warren-bin", "--warren-bin", "-node-modules", "--node-modules"} {
			if a == f && i+1 < len(args) {
				out = append(out, a)
				i++
				a = abs(args[i])
				break
			}
			if v, ok := strings.CutPrefix(a, f+"="); ok {
				a = f + "=" + abs(v)
				break
			}
		}
		out = append(out, a)
	}
	return out
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// runInNetns brings up loopback, starts Warren on the ports the suites
// expect, runs them and stops Warren.
func runInNetns(o *options, stdout, stderr io.Writer) int {
	if out, err := exec.Command("ip", "link", "set", "lo", "up").CombinedOutput(); err != nil {
		fmt.Fprintf(stderr, "warren-suites: ip link set lo up: %v: %s\n", err, out)
		return 2
	}
	w, err := startWarren(o.warrenBin, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "warren-suites: %v\n", err)
		return 2
	}
	defer w.stop()
	fmt.Fprintf(stdout, "warren-suites: Warren (pid %d) on 127.0.0.1:5672 and 127.0.0.1:15672, in a private network namespace\n", w.cmd.Process.Pid)
	return runSuites(o, stdout, stderr)
}

// runSuites runs the chosen suites against localhost and prints a summary.
func runSuites(o *options, stdout, stderr io.Writer) int {
	var results []suiteResult
	if o.only == "" || o.only == "amqp091" {
		results = append(results, runAMQP091(o, &amqp091Suite{dir: o.amqp091Dir}))
	}
	if o.only == "" || o.only == "tutorials" {
		results = append(results, runTutorials(o, stdout, stderr))
	}
	fmt.Fprintf(stdout, "\nwarren-suites against %s, %s\n", o.target, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	status := 0
	for _, r := range results {
		fmt.Fprintln(stdout, r.summary())
		for _, f := range r.failed {
			fmt.Fprintf(stdout, "    FAIL %s\n", f)
		}
		if r.err != nil {
			fmt.Fprintf(stdout, "    error: %v\n", r.err)
			status = 2
		} else if len(r.failed) > 0 && status == 0 {
			status = 1
		}
	}
	return status
}

// suiteResult is one suite's outcome.
type suiteResult struct {
	name            string
	passed, skipped int
	failed          []string
	err             error // the suite could not run
	elapsed         time.Duration
	note            string
}

func (r suiteResult) summary() string {
	s := fmt.Sprintf("  %-28s %4d passed, %d failed, %d skipped (%s)", r.name, r.passed, len(r.failed), r.skipped, r.elapsed.Round(time.Second))
	if r.note != "" {
		s += "; " + r.note
	}
	return s
}
