package main

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for warren-bench where the
// benchmark runs this binary as a child (the pause benchmark's healthy
// client, pauses_probe.go): with probeEnv set it is the command.
func TestMain(m *testing.M) {
	if os.Getenv(probeEnv) != "" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
