package main

import (
	"os"
	"runtime"
)

// oversubscribeProcs gives `warren serve` twice the Ps (GOMAXPROCS) the
// Go runtime would pick, unless the GOMAXPROCS environment variable sets
// them, and returns how many it runs with.
//
// Why: a goroutine that works without parking keeps its P until the
// runtime preempts it, after 10 ms, and a goroutine made ready meanwhile
// waits for a P. With as many Ps as cores, two busy connections (a
// flood, two publishers streaming) or one and the collector's mark
// workers (which take a P each at every scheduling point while they are
// behind) hold them all, and a healthy client's request waits 10 to 20
// ms behind their work. With twice as many, a P is free for it, and the
// operating system, which time-slices threads in well under a
// millisecond of wake-up, shares the cores among all of them. The pause
// benchmark on 2 vCPUs (docs/benchmarks.md): the longest pause during a
// flood at the memory watermark fell from 15 to 42 ms to 7 to 17 ms, and
// /api/bindings' p99 at 100,000 queues from 4 to 15 ms to 2 to 3 ms; the
// CPU per message of the steady workloads moved by about a tenth either
// way (a P spare costs nothing while it has no work). server/netwatch
// makes sure a spare P is woken to poll the network.
func oversubscribeProcs() int {
	if os.Getenv("GOMAXPROCS") != "" {
		return runtime.GOMAXPROCS(0)
	}
	n := 2 * runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(n)
	return n
}
