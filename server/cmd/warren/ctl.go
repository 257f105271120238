package main

import (
	"io"

	"warren/server/ctl"
)

// runCtl is `warren ctl`: rabbitmqctl's commands against a running
// server's management API (see package ctl).
func runCtl(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return ctl.Main(args, stdin, stdout, stderr)
}
