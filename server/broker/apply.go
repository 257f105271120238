package broker

import "warren/engine"

// Apply applies cmds in order with engine.Broker.Apply, on the calling
// goroutine under the broker's lock, with the engine advanced to now,
// until one fails: it appends each applied command's result to res and
// returns it, so a result with an error is the last (an AMQP exception
// closes a channel or the connection, and the commands a driver made
// after it were for a state that is gone: AMQP discards them until the
// client has seen the close). Then it hands the events the commands
// caused to the sinks. This is the driver boundary: a driver turns its
// input into commands and gets results and events back, and none of its
// code runs while it owns the engine. The commands of one call are
// applied in one turn, with no other request between them.
func (b *Broker) Apply(cmds []engine.Command, res []engine.Result) ([]engine.Result, error) {
	err := b.own(func() { res = b.applyCmds(cmds, res) })
	return res, err
}

// ApplyLeavingSync is Apply for a connection that may fsync the command
// log itself: lead says a confirm the commands caused waits for the log
// and its fsync was left to the caller, who must then, once, soon, either
// call SyncLog, if it has nothing else to do (nothing more to read), or
// WakeLog. At one confirm in flight the connection's goroutine then
// applies the publish, fsyncs and writes the confirm with no goroutine
// woken around the fsync; a connection with more to read leaves the fsync
// to the store's syncer and reads on meanwhile. Without lead, the syncer
// has the records already.
func (b *Broker) ApplyLeavingSync(cmds []engine.Command, res []engine.Result) (_ []engine.Result, lead bool, err error) {
	lead, err = b.ownLocked(func() { res = b.applyCmds(cmds, res) }, true)
	return res, lead, err
}

// SyncLog writes and fsyncs the command log on the caller's goroutine, or
// leaves it to the store's syncer when a round is under way, and runs the
// releases that became due (after ApplyLeavingSync).
func (b *Broker) SyncLog() {
	if b.st != nil {
		b.syncLog()
	}
}

// WakeLog hands the records an ApplyLeavingSync left to the store's
// syncer.
func (b *Broker) WakeLog() {
	if b.st != nil {
		b.st.Wake()
	}
}

// applyCmds applies cmds in order until one fails, appending each
// result to res. Under the lock.
func (b *Broker) applyCmds(cmds []engine.Command, res []engine.Result) []engine.Result {
	for _, c := range cmds {
		r := b.eng.Apply(c)
		res = append(res, r)
		if r.Err != nil {
			break
		}
	}
	return res
}

// ApplyOne applies one command, as Apply does, and returns its result; the
// error is the command's (Result.Err) or ErrStopped.
func (b *Broker) ApplyOne(c engine.Command) (engine.Result, error) {
	var r engine.Result
	if err := b.own(func() { r = b.eng.Apply(c) }); err != nil {
		return r, err
	}
	return r, r.Err
}

// Unacked is the engine's count of a channel's unacknowledged deliveries,
// read under the lock: a connection reads it after applying a batch of
// acks, to pace its reads (driver/conn's acks.go).
func (b *Broker) Unacked(id engine.ChannelID) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.eng.Unacked(id)
}

// OpenConnection opens an AMQP connection with the user's permissions as the
// engine has them when it opens (o.Perms is set from
// engine.Broker.UserGrants), in one turn: a permission change after it
// reaches the connection, one before it is already in them, and nothing
// runs between the read and the open (as a checked Visit opens its
// connections). It returns CmdOpenConnection's result; the error is
// ErrStopped.
func (b *Broker) OpenConnection(o engine.ConnectionOpen) (engine.Result, error) {
	var r engine.Result
	err := b.own(func() {
		o.Perms = b.eng.UserGrants(o.User, o.Vhost)
		r = b.eng.Apply(engine.CmdOpenConnection{Open: o})
	})
	return r, err
}
