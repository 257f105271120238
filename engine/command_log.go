package engine

// commandLog holds the records of the commands applied since the driver
// last drained them, when Config.RecordCommands is on. Like the events,
// they are handed out rather than written anywhere (raft's Ready): the
// engine does no I/O, and the driver decides where the log goes (a file,
// a session's peers) and when it is safe.
//
// The records are packed end to end in buf; ends holds where each one
// ends. Draining keeps both arrays for the next commands, so a warm log
// records a publish without allocating.
type commandLog struct {
	buf  []byte
	ends []int
	// spareBuf and spareEnds are the arrays of the last drain, reused by
	// the next one; a drain swaps them in, so that fn may apply commands.
	spareBuf  []byte
	spareEnds []int
}

// record appends c's record. A command that cannot change anything (a
// clock move to the current time with nothing due) is left out: drivers
// settle after every command, and such records would only fill the log.
// A command the codec cannot encode is a bug in the driver (a table value
// that is no AMQP type): a log without it could not be replayed, so the
// broker stops.
func (b *Broker) record(c Command) {
	switch c := c.(type) {
	case CmdAdvanceTo:
		if b.clockIdle(c.Time) {
			return
		}
	case CmdSettle:
		if b.clockIdle(c.Time) {
			return
		}
	case CmdStep:
		if _, ok := b.NextDeadline(); !ok {
			return
		}
	}
	l := &b.cmds
	buf, err := AppendCommand(l.buf, c)
	if err != nil {
		panic("engine: recording a command: " + err.Error())
	}
	l.buf = buf
	l.ends = append(l.ends, len(buf))
}

// clockIdle reports whether moving the clock to t would do nothing: t is
// not ahead of now and no timer is due.
func (b *Broker) clockIdle(t Time) bool {
	if t > b.now {
		return false
	}
	top := b.peekLive()
	return top == nil || Time(top.At) > b.now
}

// DrainCommands hands the records of the commands applied since the last
// drain to fn, one at a time and in order, and clears them. Each is one
// DecodeCommand record. A record belongs to the engine and is valid only
// until fn returns: copy it to keep it. fn may apply commands (their
// records wait for the next drain) but must not call DrainCommands.
//
// Replaying the records, in order, on a new broker with the same Config
// gives the same broker and the same events.
func (b *Broker) DrainCommands(fn func(rec []byte)) { b.cmds.drain(fn) }

// drain hands the records to fn in order and clears them (DrainCommands,
// DrainDurable).
func (l *commandLog) drain(fn func(rec []byte)) {
	buf, ends := l.buf, l.ends
	l.buf, l.ends = l.spareBuf[:0], l.spareEnds[:0]
	l.spareBuf, l.spareEnds = nil, nil
	start := 0
	for _, end := range ends {
		fn(buf[start:end])
		start = end
	}
	l.spareBuf, l.spareEnds = buf[:0], ends[:0]
}

// PendingCommands returns the number of undrained command records.
func (b *Broker) PendingCommands() int { return len(b.cmds.ends) }
