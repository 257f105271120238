package main

import (
	"strings"
	"testing"
)

func TestParseBusyWait(t *testing.T) {
	for _, c := range []struct {
		cmdline string
		want    string
		none    bool
	}{
		// beam.smp as erl starts it: the +flags arrive as -flags.
		{"beam.smp -W w -stbt db -sbwt none -sbwtdcpu none -sbwtdio none -- -root /usr/lib/erlang -- -s rabbit boot",
			"+sbwt none +sbwtdcpu none +sbwtdio none", true},
		{"erl +sbwt none +sbwtdcpu none +sbwtdio none", "+sbwt none +sbwtdcpu none +sbwtdio none", true},
		{"beam.smp -sbwt none -- -sbwtdcpu none", "+sbwt none +sbwtdcpu (default) +sbwtdio (default)", false},
		{"beam.smp -sbwt none -sbwtdcpu short -sbwtdio none", "+sbwt none +sbwtdcpu short +sbwtdio none", false},
		{"beam.smp -sbwt medium -sbwt none -sbwtdcpu none -sbwtdio none", "+sbwt none +sbwtdcpu none +sbwtdio none", true},
	} {
		got, none := parseBusyWait(strings.Fields(c.cmdline))
		if got != c.want || none != c.none {
			t.Errorf("parseBusyWait(%q) = %q, %v; want %q, %v", c.cmdline, got, none, c.want, c.none)
		}
	}
}
