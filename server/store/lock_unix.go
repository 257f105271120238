//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// lockDir takes an exclusive advisory lock on dir/LOCK, so that a second
// broker started on the same directory fails at once instead of
// interleaving its writes with ours. The kernel drops the lock when the
// process dies, so a crash never leaves a stale lock behind.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return nil, err
	}
	return flock(f, dir)
}

// lockExisting takes the same lock for a read-only look (Check) without
// creating LOCK: a directory no broker ever opened has none, and nil is
// returned then.
func lockExisting(dir string) (*os.File, error) {
	f, err := os.Open(join(dir, "LOCK"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return flock(f, dir)
}

// flock locks f, dir's LOCK file, without waiting; f is closed when it
// cannot be locked.
func flock(f *os.File, dir string) (*os.File, error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errors.New("store: " + dir + " is in use by another process")
		}
		return nil, err
	}
	return f, nil
}
