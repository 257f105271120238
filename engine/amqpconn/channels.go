package amqpconn

// channelTable is the state of each channel number: a slice indexed by
// number rather than a map, since every command looks its channel up
// (twice) and hashing was a visible share of a publish. It grows to the
// highest number opened, at most channel_max bytes.
type channelTable struct {
	state []chanState
	n     int // numbers in a state, what channel_max limits
}

func (t *channelTable) get(n uint16) chanState {
	if int(n) < len(t.state) {
		return t.state[n]
	}
	return 0
}

func (t *channelTable) set(n uint16, s chanState) {
	if int(n) >= len(t.state) {
		t.state = append(t.state, make([]chanState, int(n)+1-len(t.state))...)
	}
	if t.state[n] == 0 {
		t.n++
	}
	t.state[n] = s
}

// forget closes n: it may be opened again.
func (t *channelTable) forget(n uint16) {
	if t.get(n) != 0 {
		t.state[n] = 0
		t.n--
	}
}

// count is how many numbers are open or closing.
func (t *channelTable) count() int { return t.n }

// ChannelOpen reports whether channel n is open (not closing).
func (m *Machine) ChannelOpen(n uint16) bool { return m.chans.get(n) == chanOpen }
