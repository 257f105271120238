//go:build !unix

package tcp

import "syscall"

// rawSockets is false where a RawConn cannot wait for a full socket to
// drain (Windows: internal/poll's RawWrite answers EWINDOWS) or there are
// no sockets (js/wasm, where the edge serves AMQP over WebSocket): the TCP
// transport then writes through the net.Conn, and the connection's writer
// sends everything (no TryWrite, driver/conn/inline.go).
const rawSockets = false

// rawWrite is never called here (rawSockets); it says so if it is.
func rawWrite(fd uintptr, b []byte) (int, syscall.Errno) { return 0, syscall.ENOSYS }
