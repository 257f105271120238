package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"warren/server"
)

// profiles names the files an in-process run writes; empty means none.
type profiles struct {
	cpu, heap string
}

// runInProcess starts a Warren server in this process on ephemeral
// loopback ports and runs w against it. The server is started inside
// pprof.Do with the label side=server, which every goroutine it starts
// (broker, acceptor, per-connection readers and writers) inherits; the
// workload runs under side=client. The memory workload measures this
// process's RSS, which then includes the client. A workload that wants
// its broker's state on disk gets a data directory in a new temporary
// directory, removed at the end.
func runInProcess(ctx context.Context, w workload, e *env, n int, timeout time.Duration, p profiles, report func(Result) error) error {
	opts := server.Options{AMQPAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"}
	if w.durable {
		dir, err := os.MkdirTemp("", "warren-bench-data-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		opts.DataDir = dir
	}
	var srv *server.Server
	var err error
	pprof.Do(context.Background(), pprof.Labels("side", "server"), func(context.Context) {
		srv, err = server.Start(opts)
	})
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	e.url = "amqp://guest:guest@" + srv.AMQPAddr() + "/"
	e.serverPID = os.Getpid()
	if p.heap != "" {
		written := false
		e.atPeak = func() {
			written = true
			if err := writeHeapProfile(p.heap); err != nil {
				fmt.Fprintf(os.Stderr, "warren-bench: %v\n", err)
			}
		}
		defer func() {
			if !written {
				e.atPeak()
			}
		}()
	}
	if p.cpu != "" {
		f, err := os.Create(p.cpu)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	pprof.Do(ctx, pprof.Labels("side", "client"), func(ctx context.Context) {
		err = runRepeated(ctx, w, e, n, timeout, func(r Result) error {
			r.Server = "warren in-process"
			return report(r)
		})
	})
	return err
}

// writeHeapProfile writes the live heap (after a collection) to path.
func writeHeapProfile(path string) error {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("heap").WriteTo(f, 0)
}

// runServe is `warren-bench serve`: a Warren server in this process, under
// the CPU profiler, for a fixed time or until interrupted, so that a
// workload run from another process (as against `warren serve`) can be
// profiled with only the server in the profile.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("warren-bench serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	amqpAddr := fs.String("amqp", "127.0.0.1:0", "AMQP listen address")
	lifetime := fs.Duration("for", time.Minute, "serve this long, then write the profiles and exit")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile at exit to this file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *lifetime <= 0 || *lifetime > time.Hour {
		fmt.Fprintln(stderr, "warren-bench serve: --for must be in (0, 1h]")
		return 2
	}
	srv, err := server.Start(server.Options{AMQPAddr: *amqpAddr, HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		fmt.Fprintf(stderr, "warren-bench serve: %v\n", err)
		return 1
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "warren-bench serve: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "warren-bench serve: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Fprintf(stdout, "serving amqp://guest:guest@%s/ (pid %d) for %s\n", srv.AMQPAddr(), os.Getpid(), *lifetime)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(*lifetime):
	}
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			fmt.Fprintf(stderr, "warren-bench serve: %v\n", err)
			return 1
		}
	}
	return 0
}
