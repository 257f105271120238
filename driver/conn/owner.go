package conn

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
)

// A connection's protocol state belongs to one goroutine, its owner
// (conn's doc), and the functions that touch it assert so, as
// golang.org/x/net/http2's serverConn asserts serveG.check(): a goroutine
// identity taken when the connection starts and compared where the state
// is touched. Reading the identity parses the goroutine's stack header,
// about a microsecond, so the check runs only when checkOwners is on: in
// this package's tests, and in a server started with
// WARREN_CHECK_OWNERS=1. A failed check is a bug and panics.
var checkOwners = os.Getenv("WARREN_CHECK_OWNERS") == "1"

// goroutineOwner is the goroutine that owns a connection (0: not
// checked).
type goroutineOwner uint64

// currentOwner is the calling goroutine, as an owner.
func currentOwner() goroutineOwner {
	if !checkOwners {
		return 0
	}
	return goroutineOwner(goroutineID())
}

// check panics unless it runs on the owner.
func (g goroutineOwner) check() {
	if !checkOwners || g == 0 {
		return
	}
	if id := goroutineID(); id != uint64(g) {
		panic("conn: connection state touched on goroutine " + strconv.FormatUint(id, 10) + ", owned by goroutine " + strconv.FormatUint(uint64(g), 10))
	}
}

// goroutineID reads the calling goroutine's id from its stack header,
// "goroutine 123 [running]:".
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		panic("conn: cannot read the goroutine id: " + err.Error())
	}
	return id
}
