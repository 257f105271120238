//go:build !linux

package store

// datasync is an fsync where fdatasync is not at hand (datasync_linux.go).
func datasync(f File) error { return f.Sync() }
