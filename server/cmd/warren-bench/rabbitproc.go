package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Limits on a RabbitMQ node this tool runs. Its start includes the
// recovery of every durable queue before the AMQP listener opens, so it
// is allowed minutes.
const (
	rabbitStartMax = 5 * time.Minute
	rabbitStopMax  = 60 * time.Second
)

// rabbitNode is a RabbitMQ node this tool runs in a directory of its own:
// its own epmd, node name, loopback ports, configuration and mnesia
// directory, so that it can be killed with SIGKILL and started again
// without touching a RabbitMQ the machine already runs (which is not ours
// to crash).
//
// The node is started with RUNNING_UNDER_SYSTEMD=true, which makes the
// rabbitmq-server script exec erl (and erl beam.smp) instead of running it
// as a child: the pid this tool starts is beam.smp's, whose /proc/PID/stat
// gives the broker's CPU time.
//
// The node's Erlang schedulers do not busy-wait: RABBITMQ_SCHEDULER_BUSY_WAIT_THRESHOLD=none
// makes the script pass +sbwt none +sbwtdcpu none +sbwtdio none (the
// Debian package's default too, set here so that it does not depend on
// it). A scheduler that spins while it waits for work burns CPU that is
// not the broker's work, which would inflate RabbitMQ's CPU per message.
type rabbitNode struct {
	script  string // /usr/lib/rabbitmq/bin/rabbitmq-server (not the root wrapper in /usr/sbin, which su's)
	dir     string // everything the node writes
	mnesia  string // RABBITMQ_MNESIA_BASE: the messages and definitions
	env     []string
	url     string
	mgmt    string // the management API's host:port; "" without the plugin
	epmd    *exec.Cmd
	epmdEnd chan struct{}
	beam    *exec.Cmd
	pid     int
	exited  chan struct{}
	err     error // how beam exited, once exited is closed
}

// newRabbitNode prepares dir (which must exist and be empty) and starts
// the node's epmd on a free loopback port; start starts the node itself.
func newRabbitNode(script, dir string) (*rabbitNode, error) {
	return newRabbitNodeWith(script, dir, false)
}

// newRabbitNodeWith is newRabbitNode, with the management plugin listening
// on a free loopback port when management is set (the pause benchmark's
// listings).
func newRabbitNodeWith(script, dir string, management bool) (*rabbitNode, error) {
	if _, err := os.Stat(script); err != nil {
		return nil, err
	}
	epmdBin, err := exec.LookPath("epmd")
	if err != nil {
		return nil, err
	}
	amqpAddr, err := freeLoopback("127.0.0.1:5682")
	if err != nil {
		return nil, err
	}
	distAddr, err := freeLoopback("127.0.0.1:25682")
	if err != nil {
		return nil, err
	}
	epmdAddr, err := freeLoopback("127.0.0.1:4380")
	if err != nil {
		return nil, err
	}
	port := func(addr string) string { _, p, _ := net.SplitHostPort(addr); return p }
	files := map[string]string{
		"rabbitmq-env.conf": "",    // instead of /etc/rabbitmq's
		"enabled_plugins":   "[].", // no management plugin
		"rabbitmq.conf":     "listeners.tcp.1 = " + amqpAddr + "\n",
	}
	mgmtAddr := ""
	if management {
		if mgmtAddr, err = freeLoopback("127.0.0.1:15682"); err != nil {
			return nil, err
		}
		files["enabled_plugins"] = "[rabbitmq_management]."
		// A listing of 100,000 queues takes RabbitMQ minutes: its HTTP
		// timeouts (cowboy's, 60 s by default) are raised to 10.
		files["rabbitmq.conf"] += "management.tcp.ip = 127.0.0.1\nmanagement.tcp.port = " + port(mgmtAddr) + "\n" +
			"management.tcp.idle_timeout = 600000\nmanagement.tcp.inactivity_timeout = 600000\nmanagement.tcp.request_timeout = 600000\n"
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "home"), 0o700); err != nil {
		return nil, err
	}
	n := &rabbitNode{script: script, dir: dir, mnesia: filepath.Join(dir, "mnesia"),
		url: "amqp://guest:guest@" + amqpAddr + "/", mgmt: mgmtAddr}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RABBITMQ_") && !strings.HasPrefix(kv, "ERL_") && !strings.HasPrefix(kv, "NOTIFY_SOCKET=") {
			n.env = append(n.env, kv)
		}
	}
	n.env = append(n.env,
		"HOME="+filepath.Join(dir, "home"), // the Erlang cookie
		"RUNNING_UNDER_SYSTEMD=true",
		"RABBITMQ_CONF_ENV_FILE="+filepath.Join(dir, "rabbitmq-env.conf"),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "rabbitmq.conf"),
		"RABBITMQ_ADVANCED_CONFIG_FILE="+filepath.Join(dir, "advanced.config"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(dir, "enabled_plugins"),
		"RABBITMQ_PLUGINS_EXPAND_DIR="+filepath.Join(dir, "plugins-expand"),
		"RABBITMQ_NODENAME=warrenbench@localhost",
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+port(amqpAddr),
		"RABBITMQ_DIST_PORT="+port(distAddr),
		"RABBITMQ_MNESIA_BASE="+n.mnesia,
		"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-kernel inet_dist_use_interface {127,0,0,1}",
		"RABBITMQ_SCHEDULER_BUSY_WAIT_THRESHOLD=none",
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"ERL_EPMD_PORT="+port(epmdAddr),
	)

	n.epmd = exec.Command(epmdBin, "-port", port(epmdAddr), "-address", "127.0.0.1")
	n.epmd.Dir = dir
	if err := n.epmd.Start(); err != nil {
		return nil, err
	}
	n.epmdEnd = make(chan struct{})
	go func() { n.epmd.Wait(); close(n.epmdEnd) }()
	deadline := time.Now().Add(dialTimeout)
	for {
		c, err := net.DialTimeout("tcp", epmdAddr, dialTimeout)
		if err == nil {
			c.Close()
			return n, nil
		}
		if time.Now().After(deadline) {
			n.close()
			return nil, fmt.Errorf("epmd did not listen on %s: %w", epmdAddr, err)
		}
		time.Sleep(startPoll)
	}
}

// start runs the node and returns once it accepts an AMQP connection.
func (n *rabbitNode) start(ctx context.Context) error {
	logf, err := os.OpenFile(filepath.Join(n.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close() // the child has its own copy
	n.beam = exec.Command(n.script)
	n.beam.Dir, n.beam.Env = n.dir, n.env
	n.beam.Stdout, n.beam.Stderr = logf, logf
	if err := n.beam.Start(); err != nil {
		return err
	}
	n.pid = n.beam.Process.Pid
	n.exited = make(chan struct{})
	beam, exited := n.beam, n.exited
	go func() { n.err = beam.Wait(); close(exited) }()
	deadline := time.Now().Add(rabbitStartMax)
	for {
		c, err := dial(n.url)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			return fmt.Errorf("rabbitmq-server exited at start (%v); see %s", n.err, logf.Name())
		case <-ctx.Done():
			n.stop()
			return ctx.Err()
		case <-time.After(startPoll):
		}
		if time.Now().After(deadline) {
			n.stop()
			return fmt.Errorf("rabbitmq-server did not accept AMQP within %s; see %s", rabbitStartMax, logf.Name())
		}
	}
	if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", n.pid)); strings.TrimSpace(string(comm)) != "beam.smp" {
		n.stop()
		return fmt.Errorf("pid %d is %q, not beam.smp: the broker's CPU cannot be read", n.pid, strings.TrimSpace(string(comm)))
	}
	return nil
}

// kill ends beam.smp at once with SIGKILL and waits for it to be gone.
func (n *rabbitNode) kill() error {
	if n.beam == nil {
		return errors.New("rabbitmq-server is not running")
	}
	if err := syscall.Kill(n.pid, syscall.SIGKILL); err != nil {
		return err
	}
	<-n.exited
	n.beam = nil
	return nil
}

// stop shuts the node down gracefully (RabbitMQ stops cleanly on SIGTERM)
// and kills it if it takes longer than rabbitStopMax.
func (n *rabbitNode) stop() error {
	if n.beam == nil {
		return nil
	}
	defer func() { n.beam = nil }()
	if err := syscall.Kill(n.pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	select {
	case <-n.exited:
		return nil
	case <-time.After(rabbitStopMax):
	}
	if err := syscall.Kill(n.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	<-n.exited
	return fmt.Errorf("rabbitmq-server (pid %d) ignored SIGTERM for %s and was killed", n.pid, rabbitStopMax)
}

// close stops the node and then its epmd, both by pid.
func (n *rabbitNode) close() error {
	err := n.stop()
	if n.epmd != nil {
		if kerr := n.epmd.Process.Signal(syscall.SIGTERM); kerr == nil {
			select {
			case <-n.epmdEnd:
			case <-time.After(5 * time.Second):
				n.epmd.Process.Kill()
				<-n.epmdEnd
			}
		}
		n.epmd = nil
	}
	return err
}

// busyWaitFlags are the emulator flags that stop the Erlang schedulers
// from spinning while they wait for work. erl passes the +flags it is
// given to beam.smp as -flags.
var busyWaitFlags = []string{"sbwt", "sbwtdcpu", "sbwtdio"}

// busyWaitSettings reads beam.smp's command line and returns its
// scheduler busy-wait flags as given ("+sbwt none +sbwtdcpu none +sbwtdio
// none"), and whether all three are "none". A flag it does not name runs
// at the emulator's default, which busy-waits.
func busyWaitSettings(pid int) (string, bool, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "", false, err
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	s, none := parseBusyWait(args)
	return s, none, nil
}

// parseBusyWait is busyWaitSettings on an argument list.
func parseBusyWait(args []string) (string, bool) {
	var parts []string
	none := true
	for _, flag := range busyWaitFlags {
		value := ""
		// args[0] is the program; the emulator's flags end at "--".
		for i := 1; i+1 < len(args) && args[i] != "--"; i++ {
			if args[i] == "+"+flag || args[i] == "-"+flag {
				value = args[i+1] // the last one given wins, as in erl
			}
		}
		if value == "" {
			parts = append(parts, "+"+flag+" (default)")
			none = false
			continue
		}
		parts = append(parts, "+"+flag+" "+value)
		none = none && value == "none"
	}
	return strings.Join(parts, " "), none
}

// ctl runs rabbitmqctl (beside the start script) against the node with
// args, within a minute.
func (n *rabbitNode) ctl(ctx context.Context, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(filepath.Dir(n.script), "rabbitmqctl"), append([]string{"-n", "warrenbench@localhost"}, args...)...)
	cmd.Dir, cmd.Env = n.dir, n.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("rabbitmqctl %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}
