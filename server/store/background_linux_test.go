package store

import (
	"os"
	"strings"
	"testing"
)

// TestInBackgroundLowersOnlyItsThread: the snapshot writer's thread runs
// at nice 19, and the thread of the goroutine that started it stays at
// its own.
func TestInBackgroundLowersOnlyItsThread(t *testing.T) {
	before := threadNice(t)
	got := make(chan string)
	go func() {
		inBackground()
		got <- threadNice(t)
	}()
	if n := <-got; n != "19" {
		t.Errorf("the writer's thread runs at nice %s, want 19", n)
	}
	if n := threadNice(t); n != before {
		t.Errorf("the caller's thread went from nice %s to %s", before, n)
	}
}

// threadNice is the calling thread's nice value, field 19 of its
// /proc/thread-self/stat (after the command name in parentheses).
func threadNice(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Skipf("no /proc/thread-self: %v", err)
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return fields[16] // fields[0] is field 3, the state
}
