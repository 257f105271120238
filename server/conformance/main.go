// Command conformance is Warren's differential conformance suite: it runs
// the same client scenarios against Warren and against a real RabbitMQ
// and reports every difference in what the client observed.
//
//	go run ./server/conformance [-rabbit URL] [-rabbit-api URL] [-warren URL -warren-api URL]
//	                            [-run REGEXP] [-v] [-report FILE]
//
// Without -warren it starts a Warren in this process on free loopback
// ports. Each scenario runs against both brokers at once, with names
// unique to the run; its trace is what the client saw: replies and their
// counts, errors with code and text, deliveries with every property and
// header and their AMQP types, and, per channel, the order of the
// asynchronous methods on the wire. Broker-chosen values (amq.gen-*,
// amq.ctag-*, x-death times) and the client's generated consumer tags are
// normalised. Each difference is matched, line by line, against the
// verdicts in known.go: intentional (Warren follows the 4.x docs), a
// documented gap, or a Warren bug. -list lists the scenarios; with -run,
// no report is written unless -report is given.
//
// The exit status is 0 when every changed line is explained in known.go,
// 1 when one is not, 2 when a broker cannot be reached. `make
// conformance` runs it; it is not part of `make test`, as CI has no
// RabbitMQ.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sync"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rabbitURL := fs.String("rabbit", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ AMQP URL")
	rabbitAPI := fs.String("rabbit-api", "http://127.0.0.1:15672", "RabbitMQ management API base URL")
	warrenURL := fs.String("warren", "", "Warren AMQP URL (default: start Warren in-process on free loopback ports)")
	warrenAPI := fs.String("warren-api", "", "Warren management API base URL (with -warren)")
	only := fs.String("run", "", "run only scenarios whose name matches this regular expression")
	verbose := fs.Bool("v", false, "print every scenario's traces, not only differences")
	reportPath := fs.String("report", "server/conformance/REPORT.md", "write the Markdown report here (empty: no report)")
	list := fs.Bool("list", false, "list the scenarios and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	scenarios := allScenarios()
	if *list {
		for _, sc := range scenarios {
			fmt.Fprintf(stdout, "%-28s %s\n", sc.name, sc.doc)
		}
		return 0
	}
	if *only != "" {
		if !flagSet(fs, "report") {
			*reportPath = "" // a partial run must not overwrite the full report
		}
		re, err := regexp.Compile(*only)
		if err != nil {
			fmt.Fprintf(stderr, "conformance: -run: %v\n", err)
			return 2
		}
		var sel []scenario
		for _, sc := range scenarios {
			if re.MatchString(sc.name) {
				sel = append(sel, sc)
			}
		}
		scenarios = sel
	}

	rabbit := &target{name: "rabbitmq", amqpURL: *rabbitURL, apiURL: *rabbitAPI, user: "guest", pass: "guest"}
	warren := &target{name: "warren", amqpURL: *warrenURL, apiURL: *warrenAPI, user: "guest", pass: "guest"}
	if *warrenURL == "" {
		srv, err := startWarren()
		if err != nil {
			fmt.Fprintf(stderr, "conformance: starting Warren: %v\n", err)
			return 2
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
		}()
		warren.amqpURL = "amqp://guest:guest@" + srv.AMQPAddr() + "/"
		warren.apiURL = "http://" + srv.HTTPAddr()
	}
	env := environment{started: time.Now(), rabbitURL: *rabbitURL, warrenURL: warren.amqpURL}
	for _, t := range []*target{rabbit, warren} {
		c, _, err := t.dial(false)
		if err != nil {
			fmt.Fprintf(stderr, "conformance: %s at %s is not reachable: %v\n", t.name, redact(t.amqpURL), err)
			return 2
		}
		c.Close()
	}
	env.rabbitVersion, env.warrenVersion = rabbit.version(), warren.version()
	fmt.Fprintf(stdout, "conformance: %d scenarios; RabbitMQ %s (%s), Warren %s (%s)\n",
		len(scenarios), env.rabbitVersion, redact(*rabbitURL), env.warrenVersion, redact(warren.amqpURL))

	runID := newRunID()
	var results []outcome
	for _, sc := range scenarios {
		r := runScenario(sc, rabbit, warren, "cf"+runID+"."+sc.name+".")
		results = append(results, r)
		printResult(stdout, r, *verbose)
	}
	env.finished = time.Now()
	sum := summarise(results)
	printSummary(stdout, sum, results)
	if *reportPath != "" {
		if err := os.WriteFile(*reportPath, []byte(markdown(env, results, sum)), 0o644); err != nil {
			fmt.Fprintf(stderr, "conformance: writing report: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "report written to %s\n", *reportPath)
	}
	if sum.unexplained > 0 {
		return 1
	}
	return 0
}

// outcome is one scenario's two traces, their diff and how it is
// explained.
type outcome struct {
	sc             scenario
	rabbit, warren []string
	same           bool
	diff           []string
	expl           explanation
}

// runScenario runs a scenario against both brokers at once: they are
// independent, and running them together halves the time spent waiting
// on TTLs.
func runScenario(sc scenario, rabbit, warren *target, prefix string) outcome {
	r := outcome{sc: sc}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); r.rabbit = runSide(sc, rabbit, prefix) }()
	go func() { defer wg.Done(); r.warren = runSide(sc, warren, prefix) }()
	wg.Wait()
	r.same = slices.Equal(r.rabbit, r.warren)
	if !r.same {
		r.diff = diffLines(r.rabbit, r.warren)
		r.expl = explain(sc.name, r.diff)
	}
	return r
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// newRunID makes the names of one run unique, so leftovers of an
// interrupted run never meet the next.
func newRunID() string {
	b := make([]byte, 3)
	rand.Read(b)
	return hex.EncodeToString(b)
}
