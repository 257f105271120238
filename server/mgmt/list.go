package mgmt

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
)

// A list request (GET /api/queues and the like) runs in steps, so that the
// engine does work in proportion to what the reply shows, never to what
// the broker holds:
//
//  1. read the index of the objects in scope (names or references the
//     engine lends, one memmove per vhost);
//  2. here, filter by name, sort and cut out the page;
//  3. read the views of the page's objects, at most readBatch per read,
//     and render them here.
//
// Sorting by a field the index does not hold (sort=messages) needs every
// object's view for its sort key: a first pass over the whole list, still
// readBatch per turn, computes the keys (RabbitMQ calls this its slow query
// mode). A request without page wants the whole list, readBatch per turn.

// readBatch bounds the views built in one read (api.read).
const readBatch = 500

// lister is one kind of listed object, with R its index entry and V the
// view the broker builds of one.
type lister[R, V any] struct {
	// index reads the index of the objects in the request's scope and
	// returns how to unpack it.
	index func(c *call, e engineReads) (func() []R, error)
	name  func(R) string
	// key returns an index entry's sort key k, ok false when only the
	// rendered item has it.
	key func(r R, k string) (t term, ok bool)
	// views builds the views of the entries whose objects still exist, in
	// order; ref names a view's entry.
	views  func(c *call, e engineReads, rs []R) []V
	ref    func(V) R
	render func(c *call, v V) any
	// reuse, when set, returns a render for a streamed list (streamItems)
	// whose items may share one variable, each valid until the next: a
	// rendered item boxed for the encoder costs an allocation, 25 MB over
	// 100,000 queues, for the collector to mark while the reply is sent.
	reuse func() func(c *call, v V) any
}

// list answers a list request; paginates says whether the endpoint takes
// page parameters or only sorts.
func list[R, V any](c *call, l lister[R, V], paginates bool) (int, any, error) {
	lq, err := parseListQuery(c.r.URL.Query(), paginates)
	if err != nil {
		return 0, nil, err
	}
	var unpack func() []R
	if rerr := c.api.read(func(e engineReads) { unpack, err = l.index(c, e) }); rerr != nil {
		return 0, nil, rerr
	}
	if err != nil {
		return 0, nil, err
	}
	refs := unpack()
	total := len(refs)
	if lq.paged && lq.name != "" {
		if refs, err = filterNames(lq, refs, l.name); err != nil {
			return 0, nil, err
		}
	}
	filtered := len(refs)

	// items holds the rendered items when the slow pass rendered them all
	// and the reply wants them all.
	var items []any
	switch {
	case lq.sort == nil:
	case indexed(l, refs, lq.sort):
		slices.SortStableFunc(refs, func(a, b R) int {
			for _, k := range lq.sort {
				ta, _ := l.key(a, k)
				tb, _ := l.key(b, k)
				if c := compareTerm(ta, tb); c != 0 {
					return c
				}
			}
			return 0
		})
		if lq.reverse {
			slices.Reverse(refs)
		}
	default:
		if refs, items, err = sortByViews(c, l, lq, refs); err != nil {
			return 0, nil, err
		}
	}
	if lq.paged {
		from, to, err := lq.pageBounds(len(refs))
		if err != nil {
			return 0, nil, err
		}
		refs = refs[from:to]
	} else if items == nil {
		return http.StatusOK, streamedList{func(w io.Writer) error { return streamItems(c, l, refs, w) }}, nil
	}
	if items == nil {
		items = make([]any, 0, len(refs))
		if err := eachView(c, l, refs, func(v V) { items = append(items, l.render(c, v)) }); err != nil {
			return 0, nil, err
		}
	}
	if !lq.paged {
		return http.StatusOK, items, nil
	}
	return http.StatusOK, pageJSON{TotalCount: total, ItemCount: len(items), FilteredCount: filtered, Page: lq.page,
		PageSize: lq.pageSize, PageCount: lq.pageCount(filtered), Items: items}, nil
}

// sortByViews sorts refs by keys only the rendered items have: a first
// pass builds every view, readBatch per turn, to compute each one's keys.
// Objects gone meanwhile drop out. Without pagination the reply is every
// item, so it keeps the rendered items too, in the same order.
func sortByViews[R, V any](c *call, l lister[R, V], lq listQuery, refs []R) ([]R, []any, error) {
	nk := len(lq.sort)
	keys := make([]term, 0, len(refs)*nk)
	var kept []R
	var items []any
	err := eachView(c, l, refs, func(v V) {
		item := l.render(c, v)
		for _, k := range lq.sort {
			keys = append(keys, termAt(item, k))
		}
		kept = append(kept, l.ref(v))
		if !lq.paged {
			items = append(items, item)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	order := make([]int, len(kept))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := keys[i*nk:(i+1)*nk], keys[j*nk:(j+1)*nk]
		for x := range a {
			if c := compareTerm(a[x], b[x]); c != 0 {
				return c
			}
		}
		return 0
	})
	if lq.reverse {
		slices.Reverse(order)
	}
	sorted := make([]R, len(order))
	var sortedItems []any
	if items != nil {
		sortedItems = make([]any, len(order))
	}
	for i, j := range order {
		sorted[i] = kept[j]
		if items != nil {
			sortedItems[i] = items[j]
		}
	}
	return sorted, sortedItems, nil
}

// streamedList is a long reply (a whole list, the definitions document)
// written item by item as it is read (jsonStream, stream.go), so that
// neither the views nor the encoded reply of 100,000 queues (44 MB) sit
// in memory at once; writeJSON recognises it.
type streamedList struct {
	write func(w io.Writer) error
}

// streamItems writes the items of refs as a JSON array.
func streamItems[R, V any](c *call, l lister[R, V], refs []R, w io.Writer) error {
	s := newJSONStream(w)
	s.open("")
	render := l.render
	if l.reuse != nil {
		render = l.reuse()
	}
	err := eachView(c, l, refs, func(v V) { s.item(render(c, v)) })
	s.close()
	return errors.Join(err, s.flush())
}

// filterNames keeps the entries whose names pass the name filter.
func filterNames[R any](lq listQuery, refs []R, name func(R) string) ([]R, error) {
	f := newNameFilter(lq)
	kept := refs[:0]
	for _, r := range refs {
		ok, err := f.keep(name(r))
		if err != nil {
			return nil, err
		}
		if ok {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// indexed reports whether every sort key is in the index.
func indexed[R, V any](l lister[R, V], refs []R, keys []string) bool {
	if len(refs) == 0 {
		return true
	}
	for _, k := range keys {
		if _, ok := l.key(refs[0], k); !ok {
			return false
		}
	}
	return true
}

// eachView builds the views of refs, readBatch per turn of the engine's
// owner, and hands each to f here; objects gone meanwhile are left out.
func eachView[R, V any](c *call, l lister[R, V], refs []R, f func(V)) error {
	a := c.api
	for len(refs) > 0 {
		batch := refs[:min(readBatch, len(refs))]
		refs = refs[len(batch):]
		var views []V
		if err := a.read(func(e engineReads) { views = l.views(c, e, batch) }); err != nil {
			return err
		}
		a.reads.views.Add(int64(len(views)))
		a.reads.note(len(views))
		for _, v := range views {
			f(v)
		}
	}
	return nil
}

// inVhost is an index entry of a vhost's object (queue, exchange): its
// vhost and name.
type inVhost struct{ vhost, name string }

// namesIndex is the index of a list of named objects in vhosts (queues,
// exchanges): it borrows each visible vhost's chunked names with
// namesOf, and flattens them afterwards.
func namesIndex(namesOf func(e engineReads, vhost string) [][]string) func(*call, engineReads) (func() []inVhost, error) {
	return func(c *call, e engineReads) (func() []inVhost, error) {
		vhosts, err := c.scopeNames(e.Vhosts())
		if err != nil {
			return nil, err
		}
		names := make([][][]string, len(vhosts))
		for i, v := range vhosts {
			names[i] = namesOf(e, v)
		}
		return func() []inVhost { return flatten(vhosts, names) }, nil
	}
}

// flatten lists the names of each vhost's objects (in the engine's
// chunks) as index entries.
func flatten(vhosts []string, names [][][]string) []inVhost {
	n := 0
	for _, chunks := range names {
		for _, c := range chunks {
			n += len(c)
		}
	}
	out := make([]inVhost, 0, n)
	for i, v := range vhosts {
		for _, c := range names[i] {
			for _, name := range c {
				out = append(out, inVhost{v, name})
			}
		}
	}
	return out
}

// concat joins the engine's chunks of an index.
func concat[T any](chunks [][]T) []T {
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	out := make([]T, 0, n)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

// names are the entries' names.
func names(rs []inVhost) []string { return appendNames(make([]string, 0, len(rs)), rs) }

// appendNames appends the entries' names to dst.
func appendNames(dst []string, rs []inVhost) []string {
	for _, r := range rs {
		dst = append(dst, r.name)
	}
	return dst
}

// vhostNameKey is the sort keys the index entry of a vhost's object holds.
func vhostNameKey(vhost, name, k string) (term, bool) {
	switch k {
	case "vhost":
		return stringTerm(vhost), true
	case "name":
		return stringTerm(name), true
	}
	return term{}, false
}

// sameVhost is the length of the run of entries at the head of rs in the
// same vhost, which one engine call covers.
func sameVhost[R any](rs []R, vhost func(R) string) int {
	n := 1
	for n < len(rs) && vhost(rs[n]) == vhost(rs[0]) {
		n++
	}
	return n
}

// asFields renders a value as the JSON a client sees, decoded.
func asFields(v any) map[string]any {
	data, _ := marshal(v)
	var m map[string]any
	json.Unmarshal(data, &m)
	return m
}
