package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// cpuTimes is the machine's CPU time so far, from /proc/stat's "cpu"
// line, in clock ticks: all of it and the part the hypervisor gave to
// others while this machine's virtual CPUs had work (steal).
type cpuTimes struct{ total, steal uint64 }

// readCPUTimes reads /proc/stat; ok is false where there is none.
func readCPUTimes() (cpuTimes, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return cpuTimes{}, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return cpuTimes{}, false
	}
	t, err := parseCPULine(sc.Text())
	return t, err == nil
}

// parseCPULine reads "cpu user nice system idle iowait irq softirq steal
// [guest guest_nice]": guest time is already inside user and nice, so it
// is not added again.
func parseCPULine(line string) (cpuTimes, error) {
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuTimes{}, fmt.Errorf("not /proc/stat's cpu line: %q", line)
	}
	var t cpuTimes
	for i, s := range f[1:9] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("/proc/stat cpu field %d: %w", i+1, err)
		}
		t.total += v
		if i == 7 {
			t.steal = v
		}
	}
	return t, nil
}

// stolenPercent is the share of the machine's CPU time between a and b
// the hypervisor took away (steal): on a shared host a virtual CPU that
// is runnable but not running pauses every thread on it, the broker's
// and its clients' alike, however well each schedules its own work.
func stolenPercent(a, b cpuTimes) (float64, bool) {
	if b.total <= a.total || b.steal < a.steal {
		return 0, false
	}
	return 100 * float64(b.steal-a.steal) / float64(b.total-a.total), true
}
