package main

import (
	"fmt"
	"slices"
	"testing"
)

func TestDiffLines(t *testing.T) {
	a := []string{"a", "b", "c"}
	b := []string{"a", "x", "c", "d"}
	want := []string{"  a", "+ x", "- b", "  c", "+ d"}
	if got := diffLines(a, b); !slices.Equal(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
	if got := diffLines(a, a); !slices.Equal(got, []string{"  ... (3 same)"}) {
		t.Errorf("identical: %q", got)
	}
}

func TestDiffElidesLongRuns(t *testing.T) {
	var a []string
	for i := range 20 {
		a = append(a, fmt.Sprint(i))
	}
	b := slices.Clone(a)
	b[10] = "ten"
	want := []string{"  ... (7 same)", "  7", "  8", "  9", "+ ten", "- 10", "  11", "  12", "  13", "  ... (6 same)"}
	if got := diffLines(a, b); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
