package web

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// BENCHMARKS.md holds today's figures, one table per family of workloads,
// not the diary of runs it once was (git history keeps that): these tests
// keep it short and keep every table saying how it was made, so that a
// reader can run it again and knows what it compares.

// benchmarksMaxLines bounds BENCHMARKS.md: a new result replaces its row.
const benchmarksMaxLines = 400

// benchmarksColumns are the columns every table starts with; a table may
// add its own after them (the floor, bbolt, the date of a row).
var benchmarksColumns = []string{"workload", "Warren", "RabbitMQ", "ratio", "target", "met"}

// benchmarksFields are what every section with a table says before it,
// each as a bold label: the command that produces the table, the machine,
// the date of the run, and how Warren ran (in memory, with its data
// directory, or the engine alone).
var benchmarksFields = []string{"Command", "Machine", "Date", "Warren"}

var isoDate = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)

func TestBenchmarksHoldsTodaysResults(t *testing.T) {
	data, err := os.ReadFile("../BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range benchmarksProblems(string(data)) {
		t.Error("BENCHMARKS.md" + p)
	}
}

// TestBenchmarksProblems: each rule catches what it is for.
func TestBenchmarksProblems(t *testing.T) {
	const head = "## Family\n\n**Command**: `make bench`. **Machine**: two vCPUs.\n**Date**: 2026-11-26. **Warren**: in memory.\n\n"
	const table = "| workload | Warren | RabbitMQ | ratio | target | met |\n|---|---|---|---|---|---|\n| w | 1 µs | 5 µs | 5× | ≥ 5× (13) | yes |\n| v | 2 µs | — | — | — | — |\n"
	for _, c := range []struct {
		name, doc, want string // want: in a problem; "" for none
	}{
		{"complete", head + table, ""},
		{"no table, no fields needed", "## Machine\n\nTwo vCPUs.\n", ""},
		{"too long", head + table + strings.Repeat("\n", benchmarksMaxLines), "lines, more than 400"},
		{"no command", strings.Replace(head, "**Command**: `make bench`.", "", 1) + table, `lacks "**Command**:"`},
		{"a command not in code", strings.Replace(head, "`make bench`", "make bench", 1) + table, "names no command"},
		{"no machine", strings.Replace(head, "**Machine**", "Machine", 1) + table, `lacks "**Machine**:"`},
		{"no date", strings.Replace(head, "**Date**: 2026-11-26.", "", 1) + table, `lacks "**Date**:"`},
		{"a date without a day", strings.Replace(head, "2026-11-26", "last week", 1) + table, "no date as YYYY-MM-DD"},
		{"no mode", strings.Replace(head, "**Warren**: in memory.", "", 1) + table, `lacks "**Warren**:"`},
		{"two tables", head + table + "\n" + table, "has 2 tables"},
		{"a column missing", head + strings.Replace(table, "| ratio |", "|", 1), "want it to start with"},
		{"a column renamed", head + strings.Replace(table, "| ratio |", "| factor |", 1), `column 4 is "factor"`},
		{"a short row", head + table + "| u | 1 | 2 |\n", `row "u" has 3 cells`},
		{"met without a target", head + strings.Replace(table, "| — | — | — |\n", "| — | — | yes |\n", 1), "has no target but met"},
		{"a target without a verdict", head + strings.Replace(table, "| yes |", "| maybe |", 1), "want yes or **no**"},
	} {
		problems := benchmarksProblems(c.doc)
		got := strings.Join(problems, "\n")
		switch {
		case c.want == "" && len(problems) > 0:
			t.Errorf("%s: problems %q, want none", c.name, problems)
		case c.want != "" && !strings.Contains(got, c.want):
			t.Errorf("%s: problems %q, want one with %q", c.name, problems, c.want)
		}
	}
}

// benchmarksSection is one "## " section of BENCHMARKS.md.
type benchmarksSection struct {
	heading string
	line    int        // of the heading, from 1
	prose   []string   // its lines before its first table
	table   [][]string // its first table's rows, split into cells
	tables  int
}

// benchmarksProblems lists what is wrong with doc, each as ":LINE what"
// or ": what"; none for a good one.
func benchmarksProblems(doc string) []string {
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(doc, "\r\n", "\n"), "\n"), "\n")
	var out []string
	if len(lines) > benchmarksMaxLines {
		out = append(out, fmt.Sprintf(": %d lines, more than %d: replace a row with its new result; the history of runs is kept by git, not by the file",
			len(lines), benchmarksMaxLines))
	}
	for _, s := range splitBenchmarks(lines) {
		if s.tables == 0 {
			continue
		}
		where := fmt.Sprintf(":%d %s", s.line, s.heading)
		if s.tables > 1 {
			out = append(out, fmt.Sprintf("%s has %d tables; one table per family of workloads", where, s.tables))
		}
		prose := strings.Join(s.prose, "\n")
		for _, f := range benchmarksFields {
			label := "**" + f + "**:"
			at := strings.Index(prose, label)
			if at < 0 {
				out = append(out, fmt.Sprintf("%s: its table lacks %q (the command, machine, date and Warren's mode come before the table)", where, label))
				continue
			}
			value := prose[at+len(label):]
			if end := strings.Index(value, "**"); end >= 0 {
				value = value[:end]
			}
			value = strings.TrimSpace(value)
			switch {
			case value == "":
				out = append(out, fmt.Sprintf("%s: %q says nothing", where, label))
			case f == "Date" && !isoDate.MatchString(value):
				out = append(out, fmt.Sprintf("%s: %q gives no date as YYYY-MM-DD: %q", where, label, value))
			case f == "Command" && !strings.Contains(value, "`"):
				out = append(out, fmt.Sprintf("%s: %q names no command in `code`: %q", where, label, value))
			}
		}
		out = append(out, tableProblems(where, s.table)...)
	}
	return out
}

// tableProblems checks a table's header against benchmarksColumns, that
// every row has a cell per column, and that "met" answers its target:
// yes or **no** where a target is set, — where none is.
func tableProblems(where string, table [][]string) []string {
	header := table[0]
	if len(header) < len(benchmarksColumns) {
		return []string{fmt.Sprintf("%s: table header %q, want it to start with %q", where, header, benchmarksColumns)}
	}
	var out []string
	for i, want := range benchmarksColumns {
		if !strings.Contains(header[i], want) {
			out = append(out, fmt.Sprintf("%s: table column %d is %q, want %q", where, i+1, header[i], want))
		}
	}
	const target, met = 4, 5
	for _, row := range table[1:] {
		switch {
		case len(row) != len(header):
			out = append(out, fmt.Sprintf("%s: row %q has %d cells, the header %d", where, row[0], len(row), len(header)))
		case row[target] == "—" && row[met] != "—":
			out = append(out, fmt.Sprintf("%s: row %q has no target but met %q; want —", where, row[0], row[met]))
		case row[target] != "—" && !strings.HasPrefix(row[met], "yes") && !strings.HasPrefix(row[met], "**no**"):
			out = append(out, fmt.Sprintf("%s: row %q has target %q but met %q; want yes or **no**", where, row[0], row[target], row[met]))
		}
	}
	return out
}

// splitBenchmarks cuts the file into its "## " sections, fenced code
// left out.
func splitBenchmarks(lines []string) []benchmarksSection {
	var out []benchmarksSection
	inTable, inFence := false, false
	for i, line := range lines {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if strings.HasPrefix(line, "## ") {
			out = append(out, benchmarksSection{heading: line, line: i + 1})
			inTable = false
			continue
		}
		if len(out) == 0 {
			continue
		}
		s := &out[len(out)-1]
		row := strings.HasPrefix(line, "|")
		if row && !inTable {
			s.tables++
		}
		inTable = row
		switch {
		case !row && s.tables == 0:
			s.prose = append(s.prose, line)
		case row && s.tables == 1 && !strings.HasPrefix(line, "|---"):
			s.table = append(s.table, cells(line))
		}
	}
	return out
}

// cells splits a table row "| a | b |" into its trimmed cells.
func cells(row string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}
