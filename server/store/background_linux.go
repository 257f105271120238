package store

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// inBackground makes the calling goroutine's thread give way to every
// other thread of the broker when the CPUs are all taken: it locks the
// goroutine to its thread and gives the thread the lowest scheduling
// priority (nice 19). It is for the snapshot writer, which encodes the
// queues' messages while the broker goes on (Broker.SaveShared): at nice 0
// it took a CPU for 20 ms at a time beside the collector's worker on a
// 2-CPU machine, and a client's ready turn waited 10 ms and more behind
// it (warren-bench pauses, persistent). The goroutine must end locked: its
// thread then ends with it, so no other goroutine runs at that priority.
// Failing to lower the priority is harmless and not reported.
func inBackground() {
	runtime.LockOSThread()
	_ = unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19)
}
