package main

import (
	"runtime"
	"testing"
)

// TestOversubscribeProcs: warren serve runs twice the runtime's Ps, and
// exactly what GOMAXPROCS says when the environment sets it.
func TestOversubscribeProcs(t *testing.T) {
	was := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(was)

	t.Setenv("GOMAXPROCS", "")
	runtime.GOMAXPROCS(3)
	if n := oversubscribeProcs(); n != 6 || runtime.GOMAXPROCS(0) != 6 {
		t.Errorf("without GOMAXPROCS: returned %d, runs %d Ps, want 6", n, runtime.GOMAXPROCS(0))
	}

	t.Setenv("GOMAXPROCS", "3")
	runtime.GOMAXPROCS(3)
	if n := oversubscribeProcs(); n != 3 || runtime.GOMAXPROCS(0) != 3 {
		t.Errorf("with GOMAXPROCS=3: returned %d, runs %d Ps, want 3", n, runtime.GOMAXPROCS(0))
	}
}
