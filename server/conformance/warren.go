package main

import (
	"os/exec"
	"runtime/debug"
	"strings"

	"warren/server"
)

// startWarren runs a Warren in this process on free loopback ports (the
// kernel picks them), with the default guest/guest administrator.
func startWarren() (*server.Server, error) {
	return server.Start(server.Options{AMQPAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0"})
}

// warrenRevision names the Warren source being tested: the build's VCS
// stamp if it has one (go build), else git's answer (go run has none).
func warrenRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = " with uncommitted changes"
				}
			}
		}
		if rev != "" {
			return rev[:min(12, len(rev))] + dirty
		}
	}
	out, err := exec.Command("git", "describe", "--always", "--dirty=-with-uncommitted-changes").Output()
	if err != nil {
		return "unknown revision"
	}
	return strings.TrimSpace(string(out))
}

// clientVersion is the amqp091-go version the suite is built with.
func clientVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/rabbitmq/amqp091-go" {
				return d.Version
			}
		}
	}
	return "unknown"
}
