// Command warren is the Warren broker's command line.
//
//	warren serve [--amqp ADDR] [--http ADDR] [--users FILE]
//	warren site [--edge] DIR
//	warren console [--clock=stepped|real] [--seed=N]
//	warren run [--seed=N] FILE...
//	warren store check|repair [--data DIR]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"warren/server/console"
	"warren/web"
)

const usage = `Warren is a message broker with RabbitMQ's semantics.

Usage:
  warren serve [--amqp ADDR] [--http ADDR] [--users FILE] [--seed=N]
        run the broker: AMQP 0-9-1 on ADDR (127.0.0.1:5672), and on the
        HTTP address (127.0.0.1:8080) AMQP over WebSocket at /amqp and the
        management API at /api/
  warren site [--edge] DIR
        write the home page and the playground as a static site to DIR
        (the engine runs in the browser; no server is needed); --edge
        writes the static assets of the edge worker (wasm/worker) instead
  warren console [--clock=stepped|real] [--seed=N]
        an interactive console over an in-memory broker, driven by the
        script language (type help inside it)
  warren run [--seed=N] FILE...
        run script files, each on a fresh broker, and print what happened;
        the exit status is 1 if any line failed
  warren store check|repair [--data DIR]
        check a data directory warren serve refused as damaged (read only:
        what is damaged, what a repair would lose), or repair it: keep
        every intact record, set the damaged bytes aside as *.damaged and
        print what was lost (warren store --help says more)
        检查 warren serve 因损坏而拒绝启动的数据目录，或修复它
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main with its inputs and outputs passed in, for tests. It returns
// the exit status: 0 ok, 1 a script or I/O error, 2 a usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return runServe(args[1:], stdout, stderr)
	case "site":
		return runSite(args[1:], stdout, stderr)
	case "ctl":
		return runCtl(args[1:], stdin, stdout, stderr)
	case "console":
		return runConsole(args[1:], stdin, stdout, stderr)
	case "run":
		return runScripts(args[1:], stdout, stderr)
	case "store":
		return runStore(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "warren: unknown command %q\n\n%s", args[0], usage)
	return 2
}

func runSite(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren site", flag.ContinueOnError)
	fs.SetOutput(stderr)
	edge := fs.Bool("edge", false, "write the edge worker's static assets (web.ExportEdge): the pages under _pages/LANG/, for the worker to pick the language per request")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprint(stderr, "usage: warren site [--edge] DIR\n")
		return 2
	}
	dir := fs.Arg(0)
	export, what := web.Export, "the site (home, playground, lessons, static assets)"
	if *edge {
		export, what = web.ExportEdge, "the edge worker's static assets (the pages in every language, static files)"
	}
	if err := export(dir); err != nil {
		fmt.Fprintf(stderr, "warren site: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s to %s\n", what, dir)
	return 0
}

func runConsole(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren console", flag.ContinueOnError)
	fs.SetOutput(stderr)
	clock := fs.String("clock", "stepped", "stepped: time moves only by advance, step and run; real: the wall clock drives it")
	seed := fs.Uint64("seed", 0, "seed for server-chosen names (amq.gen-…), for replayable sessions")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "warren console: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	opts := console.Options{Seed: *seed, Echo: !isTerminal(stdin), Banner: true}
	switch *clock {
	case "stepped":
	case "real":
		opts.Clock = console.WallClock()
	default:
		fmt.Fprintf(stderr, "warren console: --clock must be stepped or real, not %q\n", *clock)
		return 2
	}
	if err := console.New(stdout, opts).Run(stdin); err != nil {
		fmt.Fprintf(stderr, "warren console: %v\n", err)
		return 1
	}
	return 0
}

func runScripts(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 0, "seed for server-chosen names (amq.gen-…)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprint(stderr, "usage: warren run [--seed=N] FILE...\n")
		return 2
	}
	if n := console.RunFiles(stdout, *seed, fs.Args()); n > 0 {
		fmt.Fprintf(stderr, "warren run: %d error(s)\n", n)
		return 1
	}
	return 0
}

// isTerminal reports whether r is an interactive terminal, which echoes
// typed lines itself; piped input is echoed by the console instead.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
