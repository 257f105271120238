//go:build !unix

package store

import "os"

// lockDir opens dir/LOCK without locking it: flock is a Unix call, and the
// native server is only built and supported on Unix. Elsewhere a second
// broker on the same directory is not detected.
func lockDir(dir string) (*os.File, error) {
	return os.OpenFile(join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o640)
}

// lockExisting is lockDir for a read-only look: it creates nothing.
func lockExisting(dir string) (*os.File, error) { return nil, nil }
