package engine

// Reads for the management API that cost what they return, not what the
// broker holds. Snapshot copies everything (each queue's messages
// counted, every connection's deliveries walked), which a UI drawing a
// small broker wants; a management request against 100,000 queues must
// not hold the server's broker lock for that. A list request borrows a name
// index (see listing) in O(n/1024), sorts and filters it elsewhere, then
// asks for the views of the page it shows.

// VhostTotals are a vhost's object and message counts, kept as things
// change, so reading them is O(1).
type VhostTotals struct {
	Queues      int
	Exchanges   int
	Consumers   int
	Connections int
	Channels    int
	Ready       int64 // ready messages in its queues
	ReadyBytes  int64
	Unacked     int64 // deliveries of its queues awaiting acknowledgement
	// UnackedBytes is the body bytes of those deliveries.
	UnackedBytes int64
}

// VhostTotals returns a vhost's totals, and false when there is no such
// vhost.
func (b *Broker) VhostTotals(vhost string) (VhostTotals, bool) {
	v, ok := b.vhosts[vhost]
	if !ok {
		return VhostTotals{}, false
	}
	c := &v.counts
	return VhostTotals{Queues: len(v.queues), Exchanges: len(v.exchanges), Consumers: c.consumers,
		Connections: c.connections, Channels: c.channels, Ready: v.ready.msgs, ReadyBytes: v.ready.bytes,
		Unacked: c.unacked.msgs, UnackedBytes: c.unacked.bytes}, true
}

// UserTotals returns how many connections a user has open in a vhost, and
// how many channels on them.
func (b *Broker) UserTotals(vhost, user string) (connections, channels int) {
	v, ok := b.vhosts[vhost]
	if !ok {
		return 0, 0
	}
	if u := v.counts.byUser[user]; u != nil {
		return u.connections, u.channels
	}
	return 0, 0
}

// The index reads below return the engine's own lists in chunks, which
// costs O(n/1024): the caller may read them on any goroutine, and must not
// change them; the engine copies a chunk before it next changes it.

// QueueNames returns the names of a vhost's queues, unordered, in chunks.
func (b *Broker) QueueNames(vhost string) [][]string {
	if v, ok := b.vhosts[vhost]; ok {
		return v.counts.queueNames.borrow()
	}
	return nil
}

// ExchangeNames returns the names of a vhost's exchanges, unordered, in
// chunks; the default exchange is "".
func (b *Broker) ExchangeNames(vhost string) [][]string {
	if v, ok := b.vhosts[vhost]; ok {
		return v.counts.exchangeNames.borrow()
	}
	return nil
}

// ConnRef identifies an open connection for listing.
type ConnRef struct {
	ID    ConnID
	Name  string
	User  string
	Vhost string
}

// ChannelRef identifies an open channel for listing.
type ChannelRef struct {
	ID         ChannelID
	Connection string // the connection's name
	User       string
	Vhost      string
}

// ConnectionRefs returns every open connection, unordered, in chunks.
func (b *Broker) ConnectionRefs() [][]ConnRef { return b.connRefs.borrow() }

// ChannelRefs returns every open channel, unordered, in chunks.
func (b *Broker) ChannelRefs() [][]ChannelRef { return b.chanRefs.borrow() }

// QueueSummaries returns the views of the named queues of a vhost that
// exist, in the order named, without their messages: Ready is empty and
// Expired is not counted (that would visit every message), the counts and
// consumers are there.
func (b *Broker) QueueSummaries(vhost string, names []string) []QueueView {
	if _, ok := b.vhosts[vhost]; !ok {
		return nil
	}
	return b.AppendQueueSummaries(make([]QueueView, 0, len(names)), vhost, names)
}

// AppendQueueSummaries is QueueSummaries appending to dst, which it
// returns: a reader of 100,000 queues a batch at a time reuses one slice
// for every batch, where new ones would cost the collector 30 MB.
func (b *Broker) AppendQueueSummaries(dst []QueueView, vhost string, names []string) []QueueView {
	v, ok := b.vhosts[vhost]
	if !ok {
		return dst
	}
	for _, name := range names {
		if q, ok := v.queues[name]; ok {
			dst = append(dst, q.summary())
		}
	}
	return dst
}

// ExchangeSummaries returns the views of the named exchanges of a vhost
// that exist, in the order named, without the messages a delayed-message
// exchange holds (HeldCount counts them).
func (b *Broker) ExchangeSummaries(vhost string, names []string) []ExchangeView {
	v, ok := b.vhosts[vhost]
	if !ok {
		return nil
	}
	out := make([]ExchangeView, 0, len(names))
	for _, name := range names {
		if x, ok := v.exchanges[name]; ok {
			out = append(out, x.summary())
		}
	}
	return out
}

// ConnectionSummaries returns the views of the named connections that are
// open, in the order named, with their channels' summaries (see
// ChannelSummaries).
func (b *Broker) ConnectionSummaries(ids []ConnID) []ConnectionView {
	out := make([]ConnectionView, 0, len(ids))
	for _, id := range ids {
		c, ok := b.conns[id]
		if !ok {
			continue
		}
		cv := c.summary()
		for _, num := range sortedChannelNums(c) {
			cv.Channels = append(cv.Channels, c.channels[num].summary())
		}
		out = append(out, cv)
	}
	return out
}

// ChannelSummaries returns the views of the named channels that are open,
// in the order named, without their unacknowledged deliveries (UnackedCount
// counts them).
func (b *Broker) ChannelSummaries(ids []ChannelID) []ChannelView {
	out := make([]ChannelView, 0, len(ids))
	for _, id := range ids {
		if ch, ok := b.chans[id]; ok {
			out = append(out, ch.summary())
		}
	}
	return out
}

// Unacked returns how many deliveries on channel id await acknowledgement
// (0 for a channel that is not open), in O(1). A driver asks it after a
// client's acks, to tell whether the client still holds enough deliveries
// to stay busy while its next acks are gathered (driver/conn, acks.go).
func (b *Broker) Unacked(id ChannelID) int {
	if ch, ok := b.chans[id]; ok {
		return ch.unackedLive
	}
	return 0
}

// Bindings returns a vhost's declared bindings as the snapshot lists them:
// O(exchanges log exchanges + bindings), without the queues' views.
func (b *Broker) Bindings(vhost string) []BindingView {
	if v, ok := b.vhosts[vhost]; ok {
		return v.bindingViews()
	}
	return nil
}
