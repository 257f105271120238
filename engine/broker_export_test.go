package engine

// Reads only tests need, kept out of the API.

// Timers lists the armed timers in firing order.
func (b *Broker) Timers() []PendingTimer {
	ts, _ := b.TimersUntil(Never, 0)
	return ts
}

// ReadyTotals returns how many messages are ready in all queues, and their
// body bytes.
func (b *Broker) ReadyTotals() (msgs, bytes int64) { return b.ready.msgs, b.ready.bytes }
