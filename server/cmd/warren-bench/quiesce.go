package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Before each run, compare waits until neither broker is busy with the
// work of the run before (RabbitMQ frees a deleted queue's memory and
// collects garbage for seconds afterwards; so may Warren), so that one
// broker's background work does not slow the other's measurement.
const (
	quietWindow   = 250 * time.Millisecond
	quietCPUShare = 0.10 // of one core, over quietWindow
	quietMax      = 30 * time.Second
	clockTicksHz  = 100 // USER_HZ: /proc times are in these ticks on Linux
)

// waitQuiet returns once every process in pids used at most quietCPUShare
// of a core over one quietWindow, or quietMax has passed, and says how long
// it waited and whether they were quiet. A pid of 0 is skipped.
func waitQuiet(ctx context.Context, pids ...int) (time.Duration, bool, error) {
	start := time.Now()
	for {
		before := make([]int64, len(pids))
		for i, pid := range pids {
			if pid == 0 {
				continue
			}
			t, err := cpuTicks(pid)
			if err != nil {
				return time.Since(start), false, err
			}
			before[i] = t
		}
		select {
		case <-ctx.Done():
			return time.Since(start), false, ctx.Err()
		case <-time.After(quietWindow):
		}
		quiet := true
		for i, pid := range pids {
			if pid == 0 {
				continue
			}
			t, err := cpuTicks(pid)
			if err != nil {
				return time.Since(start), false, err
			}
			busy := time.Duration(t-before[i]) * time.Second / clockTicksHz
			if float64(busy) > quietCPUShare*float64(quietWindow) {
				quiet = false
			}
		}
		if quiet {
			return time.Since(start), true, nil
		}
		if time.Since(start) > quietMax {
			return time.Since(start), false, nil
		}
	}
}

// cpuTicks returns the user plus system CPU time of pid in clock ticks,
// from /proc/PID/stat.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// the fields after the last ')' start at field 3.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("pid %d: malformed stat %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("pid %d: short stat %q", pid, s)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("pid %d: bad times in stat %q", pid, s)
	}
	return utime + stime, nil
}
