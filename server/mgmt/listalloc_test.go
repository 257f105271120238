package mgmt

import (
	"runtime"
	"testing"
)

// TestListingsAllocateLittlePerItem holds the whole-list GETs to a bound
// on the bytes they allocate per queue (each queue here has a binding of
// its own too), counted by the runtime, which is what the collector has
// to catch up with while the reply goes out: at 100,000 queues a GET
// that allocated 1.4 KB a queue (it did) started a collection each time,
// whose mark workers held up every client (docs/benchmarks.md).
func TestListingsAllocateLittlePerItem(t *testing.T) {
	const queues = 5_000
	f := newFixture(t)
	boundQueues(t, f, queues)
	for _, tc := range []struct {
		path    string
		perItem uint64 // bytes per queue, at most
	}{ // measured: 164, 155 and 221 bytes, about 60 of them the reply's buffers
		{"/api/queues", 250},
		{"/api/bindings", 250},
		{"/api/definitions", 320},
	} {
		serveDiscarding(f, "GET", tc.path, "") // warm: the encoder's caches
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		w := serveDiscarding(f, "GET", tc.path, "")
		runtime.ReadMemStats(&after)
		if w.status != 200 {
			t.Fatalf("%s: status %d", tc.path, w.status)
		}
		per := (after.TotalAlloc - before.TotalAlloc) / queues
		t.Logf("%s: %d bytes allocated per queue, reply %d bytes", tc.path, per, w.n)
		if per > tc.perItem {
			t.Errorf("%s allocated %d bytes per queue, want at most %d", tc.path, per, tc.perItem)
		}
	}
}
