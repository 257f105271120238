package script

import (
	"slices"

	"warren/engine"
)

// Context is a runner's own state over a shared broker, as data: its
// channels by name (which connection and number each is, and whether it
// is open), its connections by name, the current channel and the delivery
// tag "ack last" means. A driver whose memory can go while the broker's
// state lives on (a shared session's Durable Object, hibernating between
// messages) keeps a participant's Context and gives it back with
// NewOnContext, so that the participant's names still mean the same
// channels. What a runner says about the previous line only (expect
// event, expect error, expect confirm) is not in it: it starts afresh.
type Context struct {
	Channels    []ChannelContext         `json:"channels,omitempty"`
	Connections map[string]engine.ConnID `json:"connections,omitempty"`
	Current     string                   `json:"current"`
	LastTag     uint64                   `json:"lastTag,omitempty"`
}

// ChannelContext is one named channel of a Context.
type ChannelContext struct {
	Name  string           `json:"name"`
	Conn  string           `json:"conn"`
	Num   uint16           `json:"num"`
	Vhost string           `json:"vhost"`
	ID    engine.ChannelID `json:"id"`
	Open  bool             `json:"open,omitempty"`
}

// Context returns the runner's Context, its channels in name order.
func (r *Runner) Context() Context {
	c := Context{Current: r.current, LastTag: r.lastTag}
	for name, ch := range r.chans {
		c.Channels = append(c.Channels, ChannelContext{Name: name, Conn: ch.conn, Num: ch.num, Vhost: ch.vhost, ID: ch.id, Open: ch.open})
	}
	slices.SortFunc(c.Channels, func(a, b ChannelContext) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	if len(r.conns) > 0 {
		c.Connections = make(map[string]engine.ConnID, len(r.conns))
		for name, id := range r.conns {
			c.Connections[name] = id
		}
	}
	return c
}

// NewOnContext returns a runner over a shared broker b (as NewOn) with
// the Context an earlier runner had on it.
func NewOnContext(b *engine.Broker, c Context) *Runner {
	r := NewOn(b)
	if c.Current != "" {
		r.current = c.Current
	}
	r.lastTag = c.LastTag
	for _, ch := range c.Channels {
		r.chans[ch.Name] = &chanRef{conn: ch.Conn, num: ch.Num, vhost: ch.Vhost, id: ch.ID, open: ch.Open}
	}
	for name, id := range c.Connections {
		r.conns[name] = id
	}
	return r
}
