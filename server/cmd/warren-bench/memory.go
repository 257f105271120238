package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// How the server's RSS is judged settled: sampled every second, settled
// when the last rssStableSamples samples lie within rssStableFrac of each
// other. RabbitMQ hands memory back to the system over a minute or more
// after a queue with many messages is deleted, and Go's scavenger returns
// freed heap gradually, so a reading taken too soon measures the previous
// workload. The wait is bounded by env.settleMax.
const (
	rssSampleEvery   = time.Second
	rssStableSamples = 4
	rssStableFrac    = 0.01
)

// runMemory queues N messages (with confirms, so all are in the queue) and
// reports the server process's resident memory before and after, per
// message. RSS is what the operating system charges the broker: for Warren
// it includes heap the Go collector has freed but not yet returned, for
// RabbitMQ what the Erlang allocators hold.
func runMemory(ctx context.Context, e *env) (res Result, err error) {
	if e.serverPID == 0 {
		return res, errors.New("the memory workload needs --pid (the server's process id)")
	}
	q := e.name("q")
	defer func() { err = errors.Join(err, cleanup(e.url, []string{q}, nil)) }()
	s, err := openSession(e.url)
	if err != nil {
		return res, err
	}
	defer s.close()
	if err := declareQueue(s.ch, q, nil); err != nil {
		return res, err
	}
	before, beforeOK, err := settledRSS(ctx, e.serverPID, e.settleMax)
	if err != nil {
		return res, err
	}
	cp, err := newConfirmingPublisher(s.ch, e.messages, e.window)
	if err != nil {
		return res, err
	}
	msg := amqp.Publishing{Body: body(e.sizeBytes)}
	start := time.Now()
	if err := cp.publishAll(ctx, q, msg, e.messages); err != nil {
		return res, err
	}
	elapsed := time.Since(start)
	after, afterOK, err := settledRSS(ctx, e.serverPID, e.settleMax)
	if err != nil {
		return res, err
	}
	qi, err := s.ch.QueueDeclarePassive(q, false, false, false, false, nil)
	if err != nil {
		return res, err
	}
	if qi.Messages != e.messages {
		return res, fmt.Errorf("queue holds %d messages, want %d", qi.Messages, e.messages)
	}
	if e.atPeak != nil {
		e.atPeak()
	}
	perMsg := float64(after-before) / float64(e.messages)
	notes := []string{fmt.Sprintf("RSS %.1f MB before, %.1f MB with %d messages queued", float64(before)/1e6, float64(after)/1e6, e.messages)}
	if !beforeOK || !afterOK {
		notes = append(notes, fmt.Sprintf("RSS had not settled within %s (before: %v, after: %v)", e.settleMax, beforeOK, afterOK))
	}
	return Result{
		ElapsedMs: ms(elapsed),
		Metrics:   []Metric{{Name: "server memory", Unit: "B/msg", Value: perMsg}},
		Notes:     notes,
	}, nil
}

// settledRSS samples the process's RSS until it is steady (see
// rssStableSamples) or max passes, and returns the last sample and whether
// it was steady.
func settledRSS(ctx context.Context, pid int, max time.Duration) (int64, bool, error) {
	var samples []int64
	deadline := time.Now().Add(max)
	for {
		cur, err := rssBytes(pid)
		if err != nil {
			return 0, false, err
		}
		samples = append(samples, cur)
		if n := len(samples); n >= rssStableSamples {
			lo, hi := slices.Min(samples[n-rssStableSamples:]), slices.Max(samples[n-rssStableSamples:])
			if float64(hi-lo) <= rssStableFrac*float64(hi) {
				return cur, true, nil
			}
		}
		if time.Now().After(deadline) {
			return cur, false, nil
		}
		select {
		case <-ctx.Done():
			return 0, false, ctx.Err()
		case <-time.After(rssSampleEvery):
		}
	}
}

// rssBytes reads VmRSS from /proc/PID/status (what `ps -o rss=` shows).
func rssBytes(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "VmRSS:") {
			continue
		}
		fields := strings.Fields(line[len("VmRSS:"):])
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("pid %d: unexpected VmRSS line %q", pid, line)
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, err
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("pid %d: no VmRSS in /proc/%d/status", pid, pid)
}

// findProcess returns the pid of the only process whose command name is
// comm (from /proc/*/comm), 0 if there is none, or an error if there are
// several.
func findProcess(comm string) (int, error) {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	found := 0
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/comm")
		if err != nil || strings.TrimSpace(string(b)) != comm {
			continue
		}
		if found != 0 {
			return 0, fmt.Errorf("more than one %s process (%d, %d): pass the pid", comm, found, pid)
		}
		found = pid
	}
	return found, nil
}
