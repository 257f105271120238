//go:build unix && !linux

package tcp

import "syscall"

// rawSockets: the TCP transport writes through RawConn (tcp.go).
const rawSockets = true

// rawWrite is write(2) through the syscall package: only Linux takes
// the raw form (rawsys_linux.go).
func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), b)
	if e, ok := err.(syscall.Errno); ok {
		return 0, e
	}
	return n, 0
}
