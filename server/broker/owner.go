package broker

// own runs f as the engine's owner: under the lock, with the engine
// advanced to now, and then hands the events f caused to the sinks,
// persists what it applied and wakes the timer goroutine if f left it
// work. It returns ErrStopped, without running f, after Stop.
//
// f is the broker's own code, never a driver's: Apply's loop over its
// commands, a Reader's call of one of the engine's read methods, a
// Visit's steps, and the broker's bookkeeping (sinks, observers, the
// clock, the disk hooks). Drivers reach the engine only through those.
func (b *Broker) own(f func()) error {
	_, err := b.ownLocked(f, false)
	return err
}

// ownLocked is own's part under the lock. With canLead, lead is
// handOffLog's: the caller must then, once the lock is let go, either
// sync the log itself (syncLog) or wake the store's syncer.
func (b *Broker) ownLocked(f func(), canLead bool) (lead bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return false, ErrStopped
	}
	b.eng.AdvanceTo(b.clockTarget())
	b.persistDeferred()
	b.dispatch()
	f()
	b.persistDeferred()
	b.dispatch()
	b.maybeSnapshot()
	b.kickIfDue()
	return b.handOffLog(canLead), nil
}

// locked runs f under the lock and nothing else: for the broker's
// bookkeeping that touches neither the engine nor its events (attaching
// a sink, registering a hook). It returns ErrStopped after Stop.
func (b *Broker) locked(f func()) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return ErrStopped
	}
	f()
	return nil
}
