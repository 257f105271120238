//go:build !linux

package conn

import "syscall"

// rawWrite is write(2) through the syscall package: only Linux takes
// the raw form (rawsys_linux.go).
func rawWrite(fd int, b []byte) (int, syscall.Errno) {
	n, err := syscall.Write(fd, b)
	if e, ok := err.(syscall.Errno); ok {
		return 0, e
	}
	return n, 0
}
