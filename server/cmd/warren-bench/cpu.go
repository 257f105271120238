package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// Names of the CPU metrics every throughput workload reports beside its
// rate. They are per unit of the workload's work (a message, a delivery, a
// declare) and measured over its timed span only, so that setting up and
// deleting the queues is left out.
const (
	metricBrokerCPU  = "broker CPU"
	metricClientCPU  = "client CPU"
	metricProcessCPU = "process CPU"
)

// inCPUTable says whether a metric is one of those compare prints in
// the CPU table and the system call table after it (printCPUTable)
// rather than in the common table: the CPU and system calls per unit.
func inCPUTable(name string) bool {
	switch name {
	case metricBrokerCPU, metricClientCPU, metricProcessCPU, metricBrokerReads, metricBrokerWrites:
		return true
	}
	return false
}

// cpuSpan holds, at the start of a workload's timed span, the CPU times
// in clock ticks of /proc/PID/stat (user + system, fields 14 and 15) of
// the broker and of this process, and the broker's system call counts
// from /proc/PID/io (sysCalls).
type cpuSpan struct {
	brokerPID int  // 0: not measured
	inProcess bool // the broker runs in this process (--inproc)
	broker0   int64
	self0     int64
	err       error
	calls0    sysCalls // the broker's
	callsErr  error
}

// startCPU reads the broker's and this process's CPU times, and the
// broker's system call counts. A broker pid of 0 measures this process's
// CPU alone; so does a broker in this process (--inproc), whose time and
// calls cannot be told apart from the client's.
func startCPU(brokerPID int) cpuSpan {
	s := cpuSpan{brokerPID: brokerPID}
	if brokerPID == os.Getpid() {
		s.brokerPID, s.inProcess = 0, true
	}
	if s.brokerPID != 0 {
		s.broker0, s.err = cpuTicks(s.brokerPID)
		s.calls0, s.callsErr = readSysCalls(s.brokerPID)
	}
	if s.err == nil {
		s.self0, s.err = cpuTicks(os.Getpid())
	}
	return s
}

// metrics ends the span and returns the CPU per unit of work: the
// broker's and the client's (this process's) when the broker is another
// process, or the process's alone (server and client together) when the
// broker runs in this one. per names the unit ("msg", "delivery",
// "declare"). When the broker is another process it also returns the
// broker's read-class and write-class system calls per unit (sysCalls
// says which calls those count). What cannot be read yields a note
// instead of its metrics, the CPU and the system calls each on its own:
// a workload does not fail for want of /proc.
func (s cpuSpan) metrics(units int, per string) ([]Metric, []string) {
	self1, err := cpuTicks(os.Getpid())
	if s.err == nil {
		s.err = err
	}
	var broker1 int64
	if s.err == nil && s.brokerPID != 0 {
		broker1, s.err = cpuTicks(s.brokerPID)
	}
	var calls1 sysCalls
	if s.callsErr == nil && s.brokerPID != 0 {
		calls1, s.callsErr = readSysCalls(s.brokerPID)
	}
	var ms []Metric
	var notes []string
	unit := "µs/" + per
	client := Metric{Name: metricClientCPU, Unit: unit, Value: usPerMsg(self1-s.self0, units)}
	switch {
	case s.err != nil:
		notes = append(notes, fmt.Sprintf("CPU not measured: %v", s.err))
	case s.brokerPID == 0:
		if s.inProcess {
			client.Name = metricProcessCPU
		}
		ms = append(ms, client)
	default:
		ms = append(ms, Metric{Name: metricBrokerCPU, Unit: unit, Value: usPerMsg(broker1-s.broker0, units)}, client)
	}
	switch {
	case s.brokerPID == 0:
	case s.callsErr != nil:
		notes = append(notes, fmt.Sprintf("%s: %v", noteSysCallsNotMeasured, s.callsErr))
	default:
		ms = append(ms,
			Metric{Name: metricBrokerReads, Unit: "/" + per, Value: perUnit(calls1.reads-s.calls0.reads, units)},
			Metric{Name: metricBrokerWrites, Unit: "/" + per, Value: perUnit(calls1.writes-s.calls0.writes, units)})
	}
	return ms, notes
}

// addCPU ends s and appends its metrics (or why there are none) to r.
func (r *Result) addCPU(s cpuSpan, units int, per string) {
	m, notes := s.metrics(units, per)
	r.Metrics = append(r.Metrics, m...)
	r.Notes = append(r.Notes, notes...)
}

// cpuTarget is the goal for the broker's CPU per unit of work: RabbitMQ's
// at least five times Warren's (issue 13: "Warren's CPU per message at
// most a fifth of RabbitMQ's").
const cpuTarget = 5.0

// printCPUTable prints, per workload that measured it, each broker's
// median rate beside its median broker CPU per unit of work (range in
// brackets), RabbitMQ's CPU per unit divided by Warren's against the
// target, and the client's own CPU per unit in the runs against each;
// then the brokers' system calls per unit (printSysCallTable).
func printCPUTable(out io.Writer, order []workload, runs []runResult, warren, rabbit, memory *broker) {
	fmt.Fprintf(out, "Broker CPU (user+system of its process, /proc/PID/stat, %d ms ticks) over each run's timed span, per unit of work:\n\n", 1000/clockTicksHz)
	fmt.Fprintf(out, "| workload | Warren rate | %s rate | Warren broker CPU | %s broker CPU | RabbitMQ ÷ Warren (CPU) | target | met | client CPU (vs Warren / vs RabbitMQ) |%s\n", rabbit.label, rabbit.label, besideHeader(memory))
	fmt.Fprintf(out, "|---|---|---|---|---|---|---|---|---|%s\n", besideRule(memory))
	for _, w := range order {
		wr := metricSeries(runs, w.name, warren.label)
		rr := metricSeries(runs, w.name, rabbit.label)
		mr := besideSeries(runs, w.name, memory)
		if len(wr[metricBrokerCPU]) == 0 && len(rr[metricBrokerCPU]) == 0 {
			continue
		}
		unit := metricSeriesMeta(runs, w.name, metricBrokerCPU).Unit
		rateName := ""
		for _, name := range metricNames(runs, w.name) {
			if metricSeriesMeta(runs, w.name, name).HigherIsBetter {
				rateName = name
				break
			}
		}
		rateUnit := metricSeriesMeta(runs, w.name, rateName).Unit
		withUnit := func(vs []float64, unit string) string {
			if len(vs) == 0 {
				return "—"
			}
			return cell(vs) + " " + unit
		}
		rateCell := func(vs []float64) string {
			if len(vs) == 0 {
				return "—"
			}
			return formatValue(median(vs)) + " " + rateUnit
		}
		row := []string{w.name, rateCell(wr[rateName]), rateCell(rr[rateName]),
			withUnit(wr[metricBrokerCPU], unit), withUnit(rr[metricBrokerCPU], unit), "", "", "",
			withUnit(wr[metricClientCPU], unit) + " / " + withUnit(rr[metricClientCPU], unit)}
		if wv, rv := wr[metricBrokerCPU], rr[metricBrokerCPU]; len(wv) > 0 && len(rv) > 0 {
			row[6] = fmt.Sprintf("≥ %g×", cpuTarget)
			if mw := median(wv); mw > 0 {
				ratio := median(rv) / mw
				row[5] = fmt.Sprintf("%.2f×", ratio)
				row[7] = map[bool]string{true: "yes", false: "**no**"}[ratio >= cpuTarget]
			} else {
				row[5] = "— (Warren under one tick)"
			}
		}
		if memory != nil {
			row = append(row, besideCell(mr[metricBrokerCPU], wr[metricBrokerCPU], func(vs []float64) string { return withUnit(vs, unit) }))
		}
		fmt.Fprintf(out, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(out)
	printSysCallTable(out, order, runs, warren, rabbit)
}
