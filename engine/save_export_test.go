package engine

// PendingWork names the kinds of work b has in flight (bulkend.go), for
// tests that must know a snapshot caught some: "end" (purged, discarded
// or overflowed messages), "ack", "reject", "return", "commit",
// "policy-walk", "vhost-walk"; and "dead-letter" for dead letters
// waiting for a flush; and the armed timers by kind, as Timers names
// them.
func PendingWork(b *Broker) []string {
	var out []string
	kinds := map[timerKind]string{timerQueueExpiry: "message-ttl", timerQueueLease: "queue-expires", timerDelayed: "delayed-release",
		timerAckTimeout: "consumer-timeout", timerQueueDispatch: "dispatch", timerBulkEnd: "bulk-end"}
	for _, t := range b.timers.Items() {
		if !idleTimer(t.Value) {
			out = append(out, kinds[t.Value.kind])
		}
	}
	for _, end := range b.ends {
		switch {
		case end.walk != nil && end.walk.deleting:
			out = append(out, "vhost-walk")
		case end.walk != nil:
			out = append(out, "policy-walk")
		case end.commit != nil:
			out = append(out, "commit")
		case end.kind == EvRequeued:
			out = append(out, "return")
		case end.kind == EvAcked:
			out = append(out, "ack")
		case end.kind == EvRejected:
			out = append(out, "reject")
		default:
			out = append(out, "end")
		}
	}
	if len(b.pendingDL) > 0 {
		out = append(out, "dead-letter")
	}
	return out
}
