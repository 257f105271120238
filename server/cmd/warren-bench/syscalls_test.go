package main

import (
	"strings"
	"testing"
)

func TestFormatCalls(t *testing.T) {
	for v, want := range map[float64]string{0: "0.00", 0.0712: "0.071", 0.2: "0.20", 0.25: "0.25", 1.5: "1.5", 9.99: "10.0", 12.34: "12.3", 0.00004: "0.000040", 1e-9: "0.000000"} {
		if got := formatCalls(v); got != want {
			t.Errorf("formatCalls(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestParseProcIO(t *testing.T) {
	const linux = "rchar: 2544224\nwchar: 5045369\nsyscr: 12295\nsyscw: 1207\nread_bytes: 0\nwrite_bytes: 4096\ncancelled_write_bytes: 0\n"
	for _, c := range []struct {
		name, text string
		want       sysCalls
		err        string // a substring of the error; "" for none
	}{
		{"linux", linux, sysCalls{reads: 12295, writes: 1207}, ""},
		{"no final newline", "syscr: 7\nsyscw: 8", sysCalls{reads: 7, writes: 8}, ""},
		{"order and spacing", "syscw:\t3\n  syscr:   0  \n", sysCalls{reads: 0, writes: 3}, ""},
		{"beyond 32 bits", "syscr: 9876543210\nsyscw: 1\n", sysCalls{reads: 9876543210, writes: 1}, ""},
		{"empty", "", sysCalls{}, "no syscr or syscw"},
		{"no syscw", "rchar: 1\nsyscr: 2\n", sysCalls{}, "no syscr or syscw"},
		{"bad number", "syscr: many\nsyscw: 1\n", sysCalls{}, `bad syscr "many"`},
		{"negative", "syscr: 1\nsyscw: -1\n", sysCalls{}, `bad syscw "-1"`},
		{"twice", "syscr: 1\nsyscr: 2\nsyscw: 1\n", sysCalls{}, "syscr twice"},
		{"a name that only starts alike", "syscrx: 5\nsyscr: 1\nsyscw: 2\n", sysCalls{reads: 1, writes: 2}, ""},
	} {
		got, err := parseProcIO(c.text)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.err)
		case got != c.want:
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
