package engine

import (
	"strconv"
	"testing"
)

// TestRequeueWorkIsKLogN holds requeueing to O(k log n) by counting the
// work the queue's store does (entry moves and key comparisons), not by
// timing it: k unacked messages return in front of n-k ready ones, for two
// queue lengths ten times apart, by every path that requeues, and are then
// consumed again. The issue this answers saw a channel close shift the
// whole queue once per requeued message.
func TestRequeueWorkIsKLogN(t *testing.T) {
	const k = 1_000
	paths := []string{"close", "nack-multiple", "reject-each-newest-first", "recover"}
	for _, queueType := range []string{"classic", "quorum"} {
		for _, path := range paths {
			for _, n := range []int{10_000, 100_000} {
				t.Run(queueType+"/"+path+"/n="+strconv.Itoa(n), func(t *testing.T) {
					br, c := requeueBench(t, n, k, queueType == "quorum")
					q := br.vhosts["/"].queues["q"]
					if path != "close" {
						must(t, br.BasicCancel(c, "c"))
					}
					before := q.ready.work
					switch path {
					case "close":
						br.CloseChannel(c)
					case "nack-multiple":
						must(t, br.Apply(CmdBasicNack{Channel: c, DeliveryTag: 0, Multiple: true, Requeue: true}).Err)
					case "reject-each-newest-first":
						for tag := k; tag >= 1; tag-- {
							must(t, br.Apply(CmdBasicReject{Channel: c, DeliveryTag: uint64(tag), Requeue: true}).Err)
						}
					case "recover":
						must(t, br.Apply(CmdBasicRecover{Channel: c, Requeue: true}).Err)
					}
					requeueWork := q.ready.work - before
					if q.ready.len() != n || q.unacked != 0 {
						t.Fatalf("ready %d unacked %d, want %d and 0", q.ready.len(), q.unacked, n)
					}
					bound := 4 * k * log2Ceil(n)
					t.Logf("requeue work %d (bound %d)", requeueWork, bound)
					if requeueWork > bound {
						t.Errorf("requeueing %d into %d cost %d work, want at most 4·k·log2(n) = %d", k, n, requeueWork, bound)
					}

					// The returned copies come back first, in their
					// original order for a classic queue.
					before = q.ready.work
					var order []uint64
					for i := 0; i < k; i++ {
						order = append(order, q.ready.pop().seq)
						q.ready.account(1, 16) // keep the totals as pop left them, for the checks below
					}
					consumeWork := q.ready.work - before
					if consumeWork > bound {
						t.Errorf("taking back %d returned copies cost %d work, want at most %d", k, consumeWork, bound)
					}
					for i, seq := range order {
						want := uint64(i + 1)
						if queueType == "quorum" && path == "reject-each-newest-first" {
							// A quorum queue (delivery limit 20 by
							// default) serves returns in the order they
							// came back.
							want = uint64(k - i)
						}
						if seq != want {
							t.Fatalf("copy %d taken back has sequence %d, want %d", i, seq, want)
						}
					}
				})
			}
		}
	}
}
