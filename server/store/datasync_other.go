//go:build !linux

package store

// datasync is an fsync where fdatasync is not at hand (datasync_linux.go).
func datasync(f File) error { return f.Sync() }

// writeDatasync is the one-call write and sync of datasync_linux.go,
// which other systems do in two (writeHeld).
func writeDatasync(f File, p []byte, off int64) (done bool, err error) { return false, nil }
