package engine

import (
	"slices"
	"sort"
)

// BindingCursor walks the declared bindings of some of a vhost's
// exchanges over several calls of AppendBindings, so that a management read
// of 100,000 bindings holds the server's broker lock for many short turns
// instead of one long one. The caller names the source exchanges, in the
// order to walk them (sorted by name for the management API's lists, which
// it sorts outside that lock); each exchange's bindings come in
// creation order, the order Bindings lists them in.
//
// The walk is not a snapshot; between two calls the broker may change,
// and what the walk returns is then defined as follows:
//
//  1. a binding that exists for the whole walk is returned exactly once;
//  2. a binding removed during the walk is returned if, and only if, the
//     cursor passed it before it was removed;
//  3. a binding added during the walk is returned if, and only if, its
//     source is named and the cursor has not yet left that source (a new
//     binding is the newest of its exchange, so it lies ahead of the
//     cursor until the cursor moves on);
//  4. an exchange deleted before the cursor reaches it contributes
//     nothing; one deleted and declared again under the same name is read
//     as it now is, from where the cursor stands;
//  5. no binding is returned twice, and the vhost's deletion ends the
//     walk.
type BindingCursor struct {
	vhost   string
	sources []string
	// next is the index in sources of the exchange being read; after is
	// the serial of the last binding returned from it, 0 for none.
	next  int
	after uint64
}

// NewBindingCursor starts a walk over the declared bindings of the named
// exchanges of a vhost, in the order named. The cursor keeps sources.
func NewBindingCursor(vhost string, sources []string) *BindingCursor {
	return &BindingCursor{vhost: vhost, sources: sources}
}

// Done reports whether the walk has ended.
func (c *BindingCursor) Done() bool { return c.next >= len(c.sources) }

// AppendBindings appends the next bindings of a walk to dst, moves the
// cursor past them, and says how many units of work it did: never more
// than limit (taken as 1 if smaller). A unit is a binding returned or an
// exchange left behind, so that a walk over 100,000 exchanges without
// bindings is bounded too. A call looks up at most limit + 1 exchanges,
// each resumed by binary search in its bindings: O(limit + log b) for an
// exchange of b bindings. Every call does at least one unit until the
// walk is done. A caller that gives dst room for limit views (made before
// the call) has a call that allocates nothing: the management API's
// listings walk 200,000 bindings so, in turns the collector never makes
// the engine's owner assist in.
//
// The views' Args are the bindings' own tables, not copies (see
// BindingView).
func (b *Broker) AppendBindings(dst []BindingView, c *BindingCursor, limit int) (bs []BindingView, work int) {
	bs = dst
	v, ok := b.vhosts[c.vhost]
	if !ok {
		c.next = len(c.sources)
		return bs, 0
	}
	limit = max(limit, 1)
	for !c.Done() && work < limit {
		if x, ok := v.exchanges[c.sources[c.next]]; ok {
			all := x.bindings
			after := c.after
			i := sort.Search(len(all), func(i int) bool { return all[i].serial > after })
			// Room for what this exchange gives at once: a slice grown by
			// appends would leave the collector twice its size in copies.
			bs = slices.Grow(bs, min(limit-work, len(all)-i))
			for ; i < len(all) && work < limit; i++ {
				bs = append(bs, all[i].sharedView())
				c.after = all[i].serial
				work++
			}
			if i < len(all) || work == limit {
				break // resume here: the next call leaves it if nothing follows
			}
		}
		c.next++
		c.after = 0
		work++
	}
	return bs, work
}

// BindingCount returns how many bindings an exchange has as source (0
// when there is no such exchange): binding to it costs a walk of them.
func (b *Broker) BindingCount(vhost, exchange string) int {
	if v, ok := b.vhosts[vhost]; ok {
		if x, ok := v.exchanges[exchange]; ok {
			return len(x.bindings)
		}
	}
	return 0
}

// BindingEnds names the two ends of a binding.
type BindingEnds struct {
	Source      string
	Destination string
	// ToExchange says the destination is an exchange, not a queue.
	ToExchange bool
}

// BindingsBetween returns the declared bindings between two ends, in
// creation order. It compares the source's bindings without copying them,
// about a nanosecond each, and copies only those it returns: a management
// request that deletes one binding of an exchange of 100,000 must not copy
// them all.
func (b *Broker) BindingsBetween(vhost string, ends BindingEnds) []BindingView {
	v, ok := b.vhosts[vhost]
	if !ok {
		return nil
	}
	x, ok := v.exchanges[ends.Source]
	if !ok {
		return nil
	}
	var out []BindingView
	for _, bd := range x.bindings {
		if (bd.dst.x != nil) == ends.ToExchange && bd.dst.name() == ends.Destination {
			out = append(out, bd.view())
		}
	}
	return out
}

// view is the binding as Bindings, BindingsBetween and the snapshot list
// it, with a copy of its arguments.
func (bd *binding) view() BindingView {
	v := bd.sharedView()
	v.Args = bd.args.Clone()
	return v
}

// sharedView is the binding as AppendBindings lists it: its arguments are
// the binding's own table, read-only.
func (bd *binding) sharedView() BindingView {
	return BindingView{Source: bd.src.name, Destination: bd.dst.name(), DestinationIsExchange: bd.dst.x != nil, RoutingKey: bd.key, Args: bd.args}
}
