package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// The addresses the suites hard-code, which Warren takes inside the
// private network namespace.
const (
	amqpAddr = "127.0.0.1:5672"
	httpAddr = "127.0.0.1:15672"
)

// warrenProc is the `warren serve` this command started.
type warrenProc struct {
	cmd    *exec.Cmd
	output *lockedBuffer
	exited chan struct{}
}

// startWarren runs `bin serve` on the suites' addresses and returns once
// both accept connections (at most 15 s).
func startWarren(bin string, stderr io.Writer) (*warrenProc, error) {
	w := &warrenProc{output: &lockedBuffer{}, exited: make(chan struct{})}
	w.cmd = exec.Command(bin, "serve", "--amqp", amqpAddr, "--http", httpAddr, "--data", "")
	w.cmd.Stdout, w.cmd.Stderr = w.output, w.output
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		w.cmd.Wait()
		close(w.exited)
	}()
	deadline := time.Now().Add(15 * time.Second)
	for _, addr := range []string{amqpAddr, httpAddr} {
		for {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
				break
			}
			select {
			case <-w.exited:
				return nil, fmt.Errorf("warren exited at start: %s", w.output.String())
			case <-time.After(50 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				w.stop()
				return nil, fmt.Errorf("warren did not listen on %s within 15 s: %s", addr, w.output.String())
			}
		}
	}
	return w, nil
}

// stop ends Warren by its pid: SIGTERM (a graceful shutdown), then SIGKILL
// after 10 s.
func (w *warrenProc) stop() {
	select {
	case <-w.exited:
		return
	default:
	}
	w.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w.exited:
	case <-time.After(10 * time.Second):
		w.cmd.Process.Kill()
		<-w.exited
	}
}

// lockedBuffer is a bytes.Buffer safe for a process's two output streams.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
