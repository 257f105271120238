package engine

// AlignCounters gives a and b the larger of their message counters: the
// numbers the messages dead-lettered at a restart get. A durable log
// brings back every kept message with its number, and a counter past
// them, but not the numbers transient messages used up since its last
// record (durable.go), so the durable log's property test aligns them
// before comparing two restarts.
func AlignCounters(a, b *Broker) {
	n := max(a.nextMsg, b.nextMsg)
	a.nextMsg, b.nextMsg = n, n
}

// NextMsgID is the number the broker's last message got.
func NextMsgID(b *Broker) uint64 { return b.nextMsg }

// SetNextMsgID sets it.
func SetNextMsgID(b *Broker, n uint64) { b.nextMsg = n }
