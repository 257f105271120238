package engine

// SaveShared is Save in two parts, for a driver that holds the broker
// while it saves and writes the bytes after letting go (the store, on a
// goroutine of its own). SaveShared itself runs under the hold and
// returns finish, which may run on any goroutine after it, while the
// broker goes on: finish returns the snapshot as pieces, which one
// after the other are Save's bytes.
//
// Under the hold SaveShared writes everything but the queues' ready
// messages, and takes those as the queues' own chunks of entries, shared
// rather than copied (chunked.share: a queue copies a chunk before it
// would change it); finish writes them, which is why they are the
// snapshot's last section. Copying the entries, 48 bytes each, held the
// broker 50 ms at 300,000 messages. The message bodies are not copied
// either: each body of at least sharedBodyMin bytes is a piece of its
// own, the message's own slice. Save did all of it under the hold: at
// 300,000 queued 1 KiB messages 640 ms and 1.7 GB allocated while every
// other client waited.
//
// finish reads only the copies, the shared chunks and what they point
// to, the messages with their properties, death histories and routes
// (Via), none of which the engine changes once made: publishing,
// dead-lettering and releasing a delayed message each make a new Message
// with new Properties (publish.go, deadletter.go, delayed.go), and Load
// gives each its own. The pieces keep bodies alive until written, even
// those of messages that are gone by then.
func (b *Broker) SaveShared() (finish func() [][]byte) {
	s := b.save(true)
	return func() [][]byte {
		s.readySection()
		return append(s.pieces, s.buf[s.cut:])
	}
}

// sharedBodyMin is the least body SaveShared refers to rather than
// copies: below it a piece's slice header and its separate write cost
// more than the copy.
const sharedBodyMin = 256

// sharedBody is 1 if m's body is big enough to be a piece of its own
// (at most, as a message several queues hold is written once), else 0.
func sharedBody(m *Message) int {
	if len(m.Body) >= sharedBodyMin {
		return 1
	}
	return 0
}

// body writes a message's body as encoder.bytes does, or, for
// SaveShared, its length here and the body as a piece of its own.
func (s *saver) body(p []byte) {
	if !s.share || len(p) < sharedBodyMin {
		s.bytes(p)
		return
	}
	s.uvarint(uint64(len(p)) + 1)
	// The capacity is cut too, so that what is encoded next, appended to
	// the same array, lies after this piece and not in it.
	s.pieces = append(s.pieces, s.buf[s.cut:len(s.buf):len(s.buf)], p)
	s.cut = len(s.buf)
}
