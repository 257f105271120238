package engine_test

import (
	"fmt"
	"reflect"
	"sort"

	"warren/engine"
)

// readsDisagree compares the management reads that cost what they return
// (VhostTotals, the name indexes and summaries) with a Snapshot of the
// same moment, and describes the first difference ("" when none).
// TestProperties calls it after every step, so the counts kept as things
// change are checked against counting from scratch across every command.
func readsDisagree(b *engine.Broker, snap *engine.Snapshot) string {
	var refs []engine.ConnRef
	var chRefs []engine.ChannelRef
	for vi := range snap.Vhosts {
		v := &snap.Vhosts[vi]
		want := engine.VhostTotals{Queues: len(v.Queues), Exchanges: len(v.Exchanges), Connections: len(v.Connections)}
		users := map[string][2]int{}
		for _, q := range v.Queues {
			want.Consumers += len(q.Consumers)
			want.Ready += int64(q.ReadyCount)
			want.ReadyBytes += q.ReadyBytes
			want.Unacked += int64(q.Unacked)
			want.UnackedBytes += q.UnackedBytes
		}
		for _, c := range v.Connections {
			want.Channels += len(c.Channels)
			u := users[c.User]
			users[c.User] = [2]int{u[0] + 1, u[1] + len(c.Channels)}
			refs = append(refs, engine.ConnRef{ID: c.ID, Name: c.Name, User: c.User, Vhost: v.Name})
			for _, ch := range c.Channels {
				chRefs = append(chRefs, engine.ChannelRef{ID: ch.ID, Connection: c.Name, User: c.User, Vhost: v.Name})
				if got := b.Unacked(ch.ID); got != ch.UnackedCount {
					return fmt.Sprintf("Unacked(%v) = %d, the snapshot has %d", ch.ID, got, ch.UnackedCount)
				}
			}
		}
		if got, _ := b.VhostTotals(v.Name); got != want {
			return fmt.Sprintf("VhostTotals(%q) = %+v, counting gives %+v", v.Name, got, want)
		}
		for user, u := range users {
			if c, ch := b.UserTotals(v.Name, user); c != u[0] || ch != u[1] {
				return fmt.Sprintf("UserTotals(%q, %q) = %d, %d; counting gives %d, %d", v.Name, user, c, ch, u[0], u[1])
			}
		}

		var qnames, xnames []string
		var queues []engine.QueueView
		var exchanges []engine.ExchangeView
		for _, q := range v.Queues {
			qnames = append(qnames, q.Name)
			q.Ready, q.Expired = nil, 0
			queues = append(queues, q)
		}
		for _, x := range v.Exchanges {
			xnames = append(xnames, x.Name)
			x.Held = nil
			exchanges = append(exchanges, x)
		}
		if got := sorted(concat(b.QueueNames(v.Name))); !reflect.DeepEqual(got, qnames) {
			return fmt.Sprintf("QueueNames(%q) = %q, the snapshot has %q", v.Name, got, qnames)
		}
		if got := sorted(concat(b.ExchangeNames(v.Name))); !reflect.DeepEqual(got, xnames) {
			return fmt.Sprintf("ExchangeNames(%q) = %q, the snapshot has %q", v.Name, got, xnames)
		}
		if got := b.QueueSummaries(v.Name, qnames); len(got)+len(queues) > 0 && !reflect.DeepEqual(got, queues) {
			return fmt.Sprintf("QueueSummaries(%q) = %+v, the snapshot has %+v", v.Name, got, queues)
		}
		// Appended after a view already there, the same views follow it.
		head := engine.QueueView{Name: "already there"}
		if got := b.AppendQueueSummaries([]engine.QueueView{head}, v.Name, qnames); !reflect.DeepEqual(got, append([]engine.QueueView{head}, queues...)) {
			return fmt.Sprintf("AppendQueueSummaries(%q) = %+v, the snapshot has %+v", v.Name, got, queues)
		}
		if got := b.ExchangeSummaries(v.Name, xnames); !reflect.DeepEqual(got, exchanges) {
			return fmt.Sprintf("ExchangeSummaries(%q) = %+v, the snapshot has %+v", v.Name, got, exchanges)
		}
		if got := b.Bindings(v.Name); len(got)+len(v.Bindings) > 0 && !reflect.DeepEqual(got, v.Bindings) {
			return fmt.Sprintf("Bindings(%q) = %+v, the snapshot has %+v", v.Name, got, v.Bindings)
		}
		// A walk in calls of 3 units reads the same, in the same order.
		var walked []engine.BindingView
		for c := engine.NewBindingCursor(v.Name, xnames); !c.Done(); {
			bs, _ := b.AppendBindings(nil, c, 3)
			walked = append(walked, bs...)
		}
		if len(walked)+len(v.Bindings) > 0 && !reflect.DeepEqual(walked, v.Bindings) {
			return fmt.Sprintf("AppendBindings(%q) walks %+v, the snapshot has %+v", v.Name, walked, v.Bindings)
		}
		var ids []engine.ConnID
		var conns []engine.ConnectionView
		for _, c := range v.Connections {
			ids = append(ids, c.ID)
			c.Channels = append([]engine.ChannelView(nil), c.Channels...) // the snapshot's stay as they are
			for i := range c.Channels {
				c.Channels[i].Unacked = nil
			}
			conns = append(conns, c)
		}
		if got := b.ConnectionSummaries(ids); len(got)+len(conns) > 0 && !reflect.DeepEqual(got, conns) {
			return fmt.Sprintf("ConnectionSummaries = %+v, the snapshot has %+v", got, conns)
		}
	}
	gotRefs := concat(b.ConnectionRefs())
	sort.Slice(gotRefs, func(i, j int) bool { return gotRefs[i].ID < gotRefs[j].ID })
	sort.Slice(refs, func(i, j int) bool { return refs[i].ID < refs[j].ID })
	if len(gotRefs)+len(refs) > 0 && !reflect.DeepEqual(gotRefs, refs) {
		return fmt.Sprintf("ConnectionRefs = %+v, the snapshot has %+v", gotRefs, refs)
	}
	gotCh := concat(b.ChannelRefs())
	byID := func(s []engine.ChannelRef) func(i, j int) bool {
		return func(i, j int) bool {
			a, c := s[i].ID, s[j].ID
			return a.Conn < c.Conn || (a.Conn == c.Conn && a.Num < c.Num)
		}
	}
	sort.Slice(gotCh, byID(gotCh))
	sort.Slice(chRefs, byID(chRefs))
	if len(gotCh)+len(chRefs) > 0 && !reflect.DeepEqual(gotCh, chRefs) {
		return fmt.Sprintf("ChannelRefs = %+v, the snapshot has %+v", gotCh, chRefs)
	}
	return ""
}

func concat[T any](chunks [][]T) []T {
	var out []T
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

func sorted(s []string) []string {
	sort.Strings(s)
	if len(s) == 0 {
		return nil
	}
	return s
}
