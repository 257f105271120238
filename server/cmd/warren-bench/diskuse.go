package main

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"
)

// How a data directory's size is judged settled after a run: sampled
// every diskSampleEvery, settled when diskStableSamples samples in a row
// are equal. RabbitMQ moves messages from its queue index journal into
// segment files after the confirms, and a store may compact or snapshot
// after a burst, so the size right at the last confirm is not the size the
// messages take.
const (
	diskSampleEvery   = 500 * time.Millisecond
	diskStableSamples = 4
	diskSettleMax     = 30 * time.Second
)

// diskUse is a directory tree's size: allocated (what `du` reports, blocks
// of 512 bytes) and apparent (the sum of file lengths, `du -b`).
type diskUse struct {
	allocated int64
	apparent  int64
}

// measureDisk walks dir and adds up its files. Files that vanish during the
// walk (a store rotating its log) are skipped.
func measureDisk(dir string) (diskUse, error) {
	var u diskUse
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			u.allocated += st.Blocks * 512
		}
		if info.Mode().IsRegular() {
			u.apparent += info.Size()
		}
		return nil
	})
	return u, err
}

// settledDisk samples dir until its allocated size stops changing (see
// diskStableSamples) or diskSettleMax passes, and returns the last sample
// and whether it had settled.
func settledDisk(ctx context.Context, dir string) (diskUse, bool, error) {
	deadline := time.Now().Add(diskSettleMax)
	var last diskUse
	same := 0
	for {
		u, err := measureDisk(dir)
		if err != nil {
			return u, false, err
		}
		if u == last {
			same++
		} else {
			same = 1
		}
		last = u
		if same >= diskStableSamples {
			return u, true, nil
		}
		if time.Now().After(deadline) {
			return u, false, nil
		}
		select {
		case <-ctx.Done():
			return u, false, ctx.Err()
		case <-time.After(diskSampleEvery):
		}
	}
}
