package engine

// Backlogs: work on one queue that is too large for one engine call.
//
// Every command and every AdvanceTo runs while the driver owns the engine
// alone (the server under its broker's lock, the browser on its one
// thread), so its time is a pause for every connection.
// Some things a single event can set off grow with the queue: a consumer
// with room for them all attaching to 400,000 ready messages, 400,000
// messages expiring in the same millisecond, the events of a purge or
// deletion of them all or of a length limit dropping them (bulkend.go,
// queue_overflow.go), and of a channel acknowledging or rejecting them all
// (bulkack.go); and some grow with the vhost: a policy change or a vhost
// deletion visiting 100,000 queues (queuewalk.go). One engine call does at
// most Config.MaxBatch of each per queue (or per walk), and leaves the
// rest to a continuation: a timer armed already due, which AdvanceTo does
// not fire in the call that armed it. The driver serves other commands
// before the next call.
//
// The two differ in what a command in between may see.
//
// Deliveries in batches are RabbitMQ's own behaviour: a classic queue stops
// sending to a channel that has 200 deliveries it has not yet passed on
// (rabbit_queue_consumers, classic_queue_consumer_unsent_message_limit),
// and serves other requests until the channel catches up. A passive
// queue.declare in between counts the messages not yet delivered.
//
// Expiry is not: RabbitMQ's queue process drops every expired message at
// the head in one go (drop_expired_msgs) before it reads its next request.
// So a command that reads or changes what the queue holds first finishes
// the expiry left for later (catchUp): queue.declare's and basic.get-ok's
// message counts, queue.purge's and queue.delete's, and what a publish to a
// queue with a length limit overflows, stay what RabbitMQ reports. Only
// commands on other queues, and deliveries to this one, go between the
// batches.

// DefaultMaxBatch is Config.MaxBatch's default, chosen by measurement
// (BenchmarkBacklog, BENCHMARKS.md): a batch of deliveries costs the engine
// about 0.3 ms, of expiries about 0.06 ms, of expiries into a dead-letter
// queue about 0.3 ms, and at most a few milliseconds with the garbage
// collector running, well under the 10 ms any one operation may hold the
// broker. It also keeps a batch's events (three per message dead-lettered)
// within one reused event-log chunk (eventChunk): at 2048 they spilled into
// fresh chunks every call, and the same work cost twice as much.
const DefaultMaxBatch = 1024

func (b *Broker) settle(t Time) {
	t = min(max(t, b.now), MaxTime)
	for {
		b.advanceTo(t)
		if b.now < t {
			continue
		}
		if top := b.peekLive(); top == nil || Time(top.At) > b.now {
			return
		}
	}
}

// continueDispatch leaves the deliveries a batch could not make to a
// continuation (see the file comment). A continuation already armed by an
// earlier call keeps its place.
func (q *queue) continueDispatch() {
	b := q.vhost.b
	if !q.dispatchTimer.Armed() {
		q.dispatchTimer.Value.armedDue = true
		b.timers.Reset(&q.dispatchTimer, int64(b.now))
	}
}

// catchUp finishes what batches left for later on this queue: a policy
// change not yet applied to it (queuewalk.go), copies on their way back
// from a channel come back (bulkreturn.go), then every expired message at
// the head goes, however many. A command that reads or
// changes what the queue holds calls it first (see the file comment). At
// other times there is nothing to finish, and it does nothing.
func (q *queue) catchUp() {
	q.current()
	q.bringBack()
	q.expireUpTo(-1)
}
