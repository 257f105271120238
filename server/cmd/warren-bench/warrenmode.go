package main

import (
	"context"
	"errors"
	"fmt"
	"os"
)

// warrenMode is how compare runs the Warren it starts (--warren-mode).
// `make run` starts `warren serve` with its state in a data directory
// (~/.local/state/warren unless --data says otherwise), and that default
// mode is what users get, and what every figure is measured in (issue
// 28); the in-memory mode is there to show where the two differ.
type warrenMode string

const (
	// warrenInMemory is `warren serve --data ''`: nothing on disk.
	warrenInMemory warrenMode = "memory"
	// warrenDefault is `warren serve --data DIR`, DIR a new temporary
	// directory for each process this tool starts, removed when it stops:
	// the default mode, on a fresh data directory every time.
	warrenDefault warrenMode = "default"
)

// String and Set make a warrenMode a flag.Value.
func (m *warrenMode) String() string { return string(*m) }

func (m *warrenMode) Set(s string) error {
	switch warrenMode(s) {
	case warrenInMemory, warrenDefault:
		*m = warrenMode(s)
		return nil
	}
	return fmt.Errorf("want %s or %s", warrenInMemory, warrenDefault)
}

// describe says how a Warren started in mode keeps its state, for
// compare's header.
func (m warrenMode) describe() string {
	if m == warrenDefault {
		return "default mode: --data in a fresh temporary directory per process, as `make run` keeps its state on disk"
	}
	return "in memory: --data ''"
}

// ownedWarren is a `warren serve` this tool started, with the data
// directory it made for it.
type ownedWarren struct {
	*warrenProc
	mode warrenMode
	dir  string // its data directory; "" in memory
}

// startWarrenIn starts `bin serve` on free loopback ports in mode, with
// the flags args besides.
func startWarrenIn(ctx context.Context, bin string, mode warrenMode, args ...string) (*ownedWarren, error) {
	if mode != warrenDefault {
		p, err := startWarren(ctx, bin, append([]string{"--data", ""}, args...)...)
		if err != nil {
			return nil, err
		}
		return &ownedWarren{warrenProc: p, mode: warrenInMemory}, nil
	}
	dir, err := os.MkdirTemp("", "warren-bench-data-")
	if err != nil {
		return nil, err
	}
	p, err := startWarren(ctx, bin, append([]string{"--data", dir}, args...)...)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &ownedWarren{warrenProc: p, mode: warrenDefault, dir: dir}, nil
}

// stop ends the server by its pid (warrenProc.stop), then removes its
// data directory.
func (w *ownedWarren) stop() error {
	err := w.warrenProc.stop()
	if w.dir != "" {
		err = errors.Join(err, os.RemoveAll(w.dir))
	}
	return err
}
