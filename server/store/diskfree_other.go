//go:build !(linux || darwin || freebsd)

package store

// statfsFree cannot measure free space here (the native server is built
// and supported on Unix): there is no disk alarm, and snapshots are
// written without checking their room first.
func statfsFree(string) (int64, error) { return 0, errNoStatfs }
