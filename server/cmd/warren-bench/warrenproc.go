package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"syscall"
	"time"
)

// Limits on starting and stopping a Warren server process.
const (
	warrenStartMax = 15 * time.Second
	warrenStopMax  = 15 * time.Second
	// startPoll is how often a starting server is dialled; it bounds the
	// resolution of the recovery time.
	startPoll = 10 * time.Millisecond
)

// warrenProc is a `warren serve` process this tool started on loopback
// (or the floor, floor.go).
type warrenProc struct {
	name   string // what it is, in messages
	cmd    *exec.Cmd
	pid    int
	url    string
	http   string        // the HTTP listener's host:port
	output *bytes.Buffer // what the server printed, for error reports
	exited chan struct{} // closed when the process has exited
	err    error         // how it exited, once exited is closed
}

// startWarren runs `bin serve` with args on two free loopback ports (5673
// and 8081 when free) and returns once it accepts an AMQP connection.
func startWarren(ctx context.Context, bin string, args ...string) (*warrenProc, error) {
	amqpAddr, err := freeLoopback("127.0.0.1:5673")
	if err != nil {
		return nil, err
	}
	httpAddr, err := freeLoopback("127.0.0.1:8081")
	if err != nil {
		return nil, err
	}
	w, err := startProc(ctx, "warren", exec.Command(bin, append([]string{"serve", "--amqp", amqpAddr, "--http", httpAddr}, args...)...), "amqp://guest:guest@"+amqpAddr+"/")
	if err != nil {
		return nil, err
	}
	w.http = httpAddr
	return w, nil
}

// startProc starts cmd, a server called name in messages, and returns
// once it accepts an AMQP connection at url.
func startProc(ctx context.Context, name string, cmd *exec.Cmd, url string) (*warrenProc, error) {
	w := &warrenProc{name: name, cmd: cmd, url: url, output: new(bytes.Buffer), exited: make(chan struct{})}
	w.cmd.Stdout, w.cmd.Stderr = w.output, w.output
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	w.pid = w.cmd.Process.Pid
	go func() {
		w.err = w.cmd.Wait()
		close(w.exited)
	}()

	deadline := time.Now().Add(warrenStartMax)
	for {
		c, err := dial(w.url)
		if err == nil {
			c.Close()
			return w, nil
		}
		select {
		case <-w.exited:
			return nil, fmt.Errorf("%s exited at start (%v): %s", name, w.err, w.output.String())
		case <-ctx.Done():
			w.stop()
			return nil, ctx.Err()
		case <-time.After(startPoll):
		}
		if time.Now().After(deadline) {
			w.stop()
			return nil, fmt.Errorf("%s did not accept AMQP within %s: %s", name, warrenStartMax, w.output.String())
		}
	}
}

// stop sends SIGTERM to the server's pid (a graceful shutdown) and, if it
// has not exited within warrenStopMax, SIGKILL.
func (w *warrenProc) stop() error {
	select {
	case <-w.exited:
		return nil // already stopped
	default:
	}
	if err := syscall.Kill(w.pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	select {
	case <-w.exited:
		return nil
	case <-time.After(warrenStopMax):
	}
	if err := syscall.Kill(w.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	<-w.exited
	return fmt.Errorf("%s (pid %d) ignored SIGTERM for %s and was killed", w.name, w.pid, warrenStopMax)
}

// kill ends the server at once with SIGKILL, as a crash would, and waits
// for it to be gone.
func (w *warrenProc) kill() error {
	select {
	case <-w.exited:
		return fmt.Errorf("%s (pid %d) had already exited: %v", w.name, w.pid, w.err)
	default:
	}
	if err := syscall.Kill(w.pid, syscall.SIGKILL); err != nil {
		return err
	}
	<-w.exited
	return nil
}

// freeLoopback returns preferred if it can be listened on, or else a port
// the kernel picks. The port is closed again before the server binds it;
// on a machine that is otherwise quiet nothing takes it in between.
func freeLoopback(preferred string) (string, error) {
	ln, err := net.Listen("tcp", preferred)
	if err != nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}
