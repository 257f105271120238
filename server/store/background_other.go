//go:build !linux

package store

// inBackground is a no-op where the thread priority is not set here
// (background_linux.go says why Linux lowers it).
func inBackground() {}
