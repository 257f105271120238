package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMeasureDiskCountsEveryFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, n := range map[string]int{"x": 10, "a/y": 5000, "a/b/z": 1} {
		if err := os.WriteFile(filepath.Join(dir, path), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u, err := measureDisk(dir)
	if err != nil {
		t.Fatal(err)
	}
	if u.apparent != 5011 {
		t.Errorf("apparent = %d, want 5011", u.apparent)
	}
	if u.allocated < u.apparent {
		t.Errorf("allocated %d < apparent %d: blocks were not counted", u.allocated, u.apparent)
	}
}

func TestUsPerMsg(t *testing.T) {
	// 150 ticks of 10 ms over 100,000 messages: 15 µs each.
	if got := usPerMsg(150, 100_000); got != 15 {
		t.Errorf("usPerMsg(150, 100000) = %v, want 15", got)
	}
}
