package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// tutorial is one of RabbitMQ's six tutorials as amqplib ships it
// (node_modules/amqplib/examples/tutorials, ported by amqplib's author):
// long-running programs started first, then one-shot programs, and the
// lines each long-running program must print.
type tutorial struct {
	name    string
	servers []program // started first, each until it prints its ready line
	clients []program // run to completion, in order
}

// program is one tutorial script with its arguments; expect lists text it
// must print (in any order) before the tutorial ends.
type program struct {
	script string
	args   []string
	ready  string // printed once it consumes (servers only)
	expect []string
}

// tutorials are the six tutorials, each run with the promise API and with
// the callback API (the callback_api directory).
var tutorials = []tutorial{
	{name: "1 hello world",
		servers: []program{{script: "receive.js", ready: "[*] Waiting", expect: []string{"[x] Received 'Hello World!'"}}},
		clients: []program{{script: "send.js", expect: []string{"[x] Sent 'Hello World!'"}}}},
	{name: "2 work queues",
		servers: []program{
			{script: "worker.js", ready: "[*] Waiting", expect: []string{"[x] Done"}},
			{script: "worker.js", ready: "[*] Waiting", expect: []string{"[x] Done"}},
		},
		clients: []program{{script: "new_task.js", args: []string{"First message."}}, {script: "new_task.js", args: []string{"Second message."}}}},
	{name: "3 publish/subscribe",
		servers: []program{
			{script: "receive_logs.js", ready: "[*] Waiting", expect: []string{"info: Hello World!"}},
			{script: "receive_logs.js", ready: "[*] Waiting", expect: []string{"info: Hello World!"}},
		},
		clients: []program{{script: "emit_log.js"}}},
	{name: "4 routing",
		servers: []program{
			{script: "receive_logs_direct.js", args: []string{"warning", "error"}, ready: "[*] Waiting", expect: []string{"error:'Run. Run. Or it will explode.'"}},
			{script: "receive_logs_direct.js", args: []string{"info"}, ready: "[*] Waiting", expect: []string{"info:'all is well'"}},
		},
		clients: []program{
			{script: "emit_log_direct.js", args: []string{"error", "Run. Run. Or it will explode."}},
			{script: "emit_log_direct.js", args: []string{"info", "all is well"}},
		}},
	{name: "5 topics",
		servers: []program{
			{script: "receive_logs_topic.js", args: []string{"kern.*"}, ready: "[*] Waiting", expect: []string{"kern.critical:'A critical kernel error'"}},
			{script: "receive_logs_topic.js", args: []string{"*.critical"}, ready: "[*] Waiting", expect: []string{"kern.critical:'A critical kernel error'"}},
		},
		clients: []program{{script: "emit_log_topic.js", args: []string{"kern.critical", "A critical kernel error"}}}},
	{name: "6 RPC",
		servers: []program{{script: "rpc_server.js", ready: "Awaiting RPC requests", expect: []string{"[.] fib(30)"}}},
		clients: []program{{script: "rpc_client.js", args: []string{"30"}, expect: []string{"[.] Got 832040"}}}},
}

// runTutorials runs every tutorial with both of amqplib's APIs.
func runTutorials(o *options, stdout, stderr io.Writer) (r suiteResult) {
	r = suiteResult{name: "RabbitMQ tutorials (amqplib)"}
	start := time.Now()
	defer func() { r.elapsed = time.Since(start) }()
	base := filepath.Join(o.nodeModules, "amqplib", "examples", "tutorials")
	if _, err := os.Stat(filepath.Join(base, "send.js")); err != nil {
		r.err = fmt.Errorf("amqplib's tutorials are not in %s (run make deps): %v", base, err)
		return r
	}
	for _, api := range []string{"", "callback_api"} {
		for _, t := range tutorials {
			name := t.name
			if api != "" {
				name += " (" + api + ")"
			}
			if err := t.run(filepath.Join(base, api), o.tutorialTimeout); err != nil {
				r.failed = append(r.failed, name+": "+err.Error())
				fmt.Fprintf(stdout, "tutorial %s: FAIL: %v\n", name, err)
				continue
			}
			r.passed++
			fmt.Fprintf(stdout, "tutorial %s: ok\n", name)
		}
	}
	return r
}

// run starts the servers, waits for each to be ready, runs the clients,
// then waits until every expected line was printed, and stops the servers
// by their pids.
func (t tutorial) run(dir string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var procs []*nodeProc
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	for _, s := range t.servers {
		p, err := startNode(dir, s)
		if err != nil {
			return err
		}
		procs = append(procs, p)
		if err := p.waitFor(s.ready, deadline); err != nil {
			return err
		}
	}
	for _, c := range t.clients {
		p, err := startNode(dir, c)
		if err != nil {
			return err
		}
		procs = append(procs, p)
		if err := p.waitExit(deadline); err != nil {
			return err
		}
	}
	for _, p := range procs {
		for _, want := range p.prog.expect {
			if err := p.waitFor(want, deadline); err != nil {
				return err
			}
		}
	}
	return nil
}

// nodeProc is one running tutorial script.
type nodeProc struct {
	prog   program
	cmd    *exec.Cmd
	out    *lockedBuffer
	exited chan struct{}
}

func startNode(dir string, p program) (*nodeProc, error) {
	np := &nodeProc{prog: p, out: &lockedBuffer{}, exited: make(chan struct{})}
	np.cmd = exec.Command("node", append([]string{p.script}, p.args...)...)
	np.cmd.Dir = dir
	np.cmd.Stdout, np.cmd.Stderr = np.out, np.out
	if err := np.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", p.script, err)
	}
	go func() {
		np.cmd.Wait()
		close(np.exited)
	}()
	return np, nil
}

// waitFor waits until the program has printed want.
func (p *nodeProc) waitFor(want string, deadline time.Time) error {
	for !strings.Contains(p.out.String(), want) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s %s did not print %q; it printed: %q", p.prog.script, strings.Join(p.prog.args, " "), want, p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// waitExit waits for a one-shot program to end successfully.
func (p *nodeProc) waitExit(deadline time.Time) error {
	select {
	case <-p.exited:
	case <-time.After(time.Until(deadline)):
		return fmt.Errorf("%s did not finish; it printed: %q", p.prog.script, p.out.String())
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("%s exited %d: %q", p.prog.script, code, p.out.String())
	}
	if strings.Contains(p.out.String(), "Error") {
		return fmt.Errorf("%s printed an error: %q", p.prog.script, p.out.String())
	}
	return nil
}

// stop ends the program by its pid: SIGINT (the tutorials close their
// connection on it), then SIGKILL after 3 s.
func (p *nodeProc) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.exited:
	case <-time.After(3 * time.Second):
		p.cmd.Process.Kill()
		<-p.exited
	}
}
