//go:build !unix

package main

import "os"

// traceSignals: this system has no SIGUSR1 or SIGUSR2, so WARREN_TRACE is
// not watched here (trace.go).
func traceSignals() (start, end os.Signal, ok bool) { return nil, nil, false }
