//go:build unix

package main

import (
	"os"
	"syscall"
)

// traceSignals are the signals that start and end a trace (trace.go).
func traceSignals() (start, end os.Signal, ok bool) {
	return syscall.SIGUSR1, syscall.SIGUSR2, true
}
