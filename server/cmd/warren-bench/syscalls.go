package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Names of the system call metrics a throughput workload reports beside
// its CPU metrics when the broker is another process (cpuSpan): the
// broker's read-class and write-class system calls per unit of work, from
// /proc/PID/io. With a client like amqp091-go, which sends a few publishes
// per read the broker makes, the broker's CPU per message is mostly these
// calls.
const (
	metricBrokerReads  = "broker reads"
	metricBrokerWrites = "broker writes"
)

// sysCalls holds the syscr and syscw counters of /proc/PID/io. On Linux
// these are the only system call counts /proc gives, and each counts one
// class of calls, not every call: syscr goes up by one for every read(2),
// readv and pread64 (the kernel's file read path), whatever the file, a
// socket included; syscw likewise for write(2), writev and pwrite64. The
// socket calls recvfrom (recv), recvmsg, sendto (send) and sendmsg are
// counted by neither, nor are epoll_wait and the like (measured on Linux
// 6.18): a broker that reads its sockets with recv(2) shows no reads
// here. RabbitMQ's beam.smp (Erlang 25) is one: strace showed its socket
// reads as recvfrom and its socket writes as writev, so its syscr counts
// only its other reads, while Go's net package reads with read(2) and
// writes with write(2) or writev, all counted.
type sysCalls struct {
	reads  int64 // syscr
	writes int64 // syscw
}

// readSysCalls reads pid's /proc/PID/io. The file is readable only by
// whoever may ptrace pid (the same user, without a stricter Yama policy,
// or root with CAP_SYS_PTRACE); a broker this tool started is.
func readSysCalls(pid int) (sysCalls, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return sysCalls{}, err
	}
	c, err := parseProcIO(string(b))
	if err != nil {
		return sysCalls{}, fmt.Errorf("pid %d: %w", pid, err)
	}
	return c, nil
}

// parseProcIO takes syscr and syscw from the text of /proc/PID/io, lines
// of "name: value"; the other fields (rchar, read_bytes, ...) are left
// alone. Both must be there, once each.
func parseProcIO(text string) (sysCalls, error) {
	var c sysCalls
	var seenR, seenW bool
	for line := range strings.Lines(text) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		var dst *int64
		var seen *bool
		switch name {
		case "syscr":
			dst, seen = &c.reads, &seenR
		case "syscw":
			dst, seen = &c.writes, &seenW
		default:
			continue
		}
		if *seen {
			return sysCalls{}, fmt.Errorf("/proc/PID/io: %s twice", name)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n < 0 {
			return sysCalls{}, fmt.Errorf("/proc/PID/io: bad %s %q", name, strings.TrimSpace(value))
		}
		*dst, *seen = n, true
	}
	if !seenR || !seenW {
		return sysCalls{}, fmt.Errorf("/proc/PID/io: no syscr or syscw in %q", text)
	}
	return c, nil
}

// formatCalls prints a count per unit of work with two significant
// digits below 10 (formatValue above): a broker makes one read per tens of
// messages, which two decimals would round to 0.00 or 0.01.
func formatCalls(v float64) string {
	if v == 0 || math.Abs(v) >= 10 {
		return formatValue(v)
	}
	decimals := min(1-int(math.Floor(math.Log10(math.Abs(v)))), 6)
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// perUnit converts a count over a span to a count per unit of work.
func perUnit(count int64, units int) float64 {
	return float64(count) / float64(units)
}

// noteSysCallsNotMeasured starts the note a span leaves when it could not
// read the broker's /proc/PID/io.
const noteSysCallsNotMeasured = "system calls not measured"

// printSysCallTable prints, per workload that measured them, each
// broker's median read-class and write-class system calls per unit of
// work (range in brackets), and after the table each broker's distinct
// reasons for not measuring them, if any. It follows the CPU table.
func printSysCallTable(out io.Writer, order []workload, runs []runResult, warren, rabbit *broker) {
	var rows, notes []string
	for _, w := range order {
		wr := metricSeries(runs, w.name, warren.label)
		rr := metricSeries(runs, w.name, rabbit.label)
		for _, r := range runs {
			if r.Result.Workload != w.name {
				continue
			}
			for _, n := range r.Result.Notes {
				if note := r.Broker + ": " + n; strings.HasPrefix(n, noteSysCallsNotMeasured) && !slices.Contains(notes, note) {
					notes = append(notes, note)
				}
			}
		}
		if len(wr[metricBrokerReads]) == 0 && len(rr[metricBrokerReads]) == 0 {
			continue
		}
		unit := metricSeriesMeta(runs, w.name, metricBrokerReads).Unit
		withUnit := func(vs []float64) string {
			if len(vs) == 0 {
				return "—"
			}
			return cellFormat(vs, formatCalls) + " " + unit
		}
		row := []string{w.name,
			withUnit(wr[metricBrokerReads]), withUnit(rr[metricBrokerReads]),
			withUnit(wr[metricBrokerWrites]), withUnit(rr[metricBrokerWrites])}
		rows = append(rows, "| "+strings.Join(row, " | ")+" |")
	}
	if len(rows) == 0 && len(notes) == 0 {
		return
	}
	fmt.Fprintln(out, "Broker system calls over each run's timed span, per unit of work, from /proc/PID/io: reads are syscr (read, readv, pread), writes syscw (write, writev, pwrite). Linux counts recvfrom, recvmsg, sendto and sendmsg in neither, nor futex or epoll_wait: RabbitMQ's beam.smp reads its sockets with recvfrom (seen with strace, Erlang 25), so its reads are its other reads, not its socket reads; Go's net package reads with read and writes with write or writev, so Warren's are mostly its socket calls:")
	fmt.Fprintln(out)
	if len(rows) > 0 {
		fmt.Fprintf(out, "| workload | Warren reads | %s reads | Warren writes | %s writes |\n", rabbit.label, rabbit.label)
		fmt.Fprintln(out, "|---|---|---|---|---|")
		for _, r := range rows {
			fmt.Fprintln(out, r)
		}
		fmt.Fprintln(out)
	}
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
	if len(notes) > 0 {
		fmt.Fprintln(out)
	}
}
