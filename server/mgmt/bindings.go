package mgmt

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
	"io"
	"net/http"
	"net/url"
	"slices"

	"warren/engine"
)

type bindingJSON struct {
	Source          string         `json:"source"`
	Vhost           string         `json:"vhost"`
	Destination     string         `json:"destination"`
	DestinationType string         `json:"destination_type"`
	RoutingKey      string         `json:"routing_key"`
	Arguments       map[string]any `json:"arguments"`
	PropertiesKey   string         `json:"properties_key"`
}

// propertiesKey names a binding among those between the same source and
// destination, as the last segment of its URL: the escaped routing key
// ("~" when empty), then, when it has arguments, "~" and a hash of them.
// RabbitMQ hashes with erlang:phash2; Warren with FNV-1a over the engine's
// rendering of the table, which sorts keys. Keys are opaque to clients.
func propertiesKey(key string, args engine.Table) string {
	pk := url.PathEscape(key)
	if key == "" {
		pk = "~"
	}
	if len(args) == 0 {
		return pk
	}
	h := fnv.New32a()
	h.Write([]byte(engine.FormatValue(args)))
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], h.Sum32())
	if key == "" {
		pk = ""
	}
	return pk + "~" + base64.RawURLEncoding.EncodeToString(sum[:])
}

func toBindingJSON(vhost string, b engine.BindingView) bindingJSON {
	kind := "queue"
	if b.DestinationIsExchange {
		kind = "exchange"
	}
	return bindingJSON{Source: b.Source, Vhost: vhost, Destination: b.Destination, DestinationType: kind,
		RoutingKey: b.RoutingKey, Arguments: fromTable(b.Args), PropertiesKey: propertiesKey(b.RoutingKey, b.Args)}
}

// vhostBindings lists a vhost's bindings as RabbitMQ does: the default
// exchange's implicit binding of every queue by its name, then the
// declared ones, ordered by source, destination and routing key. queues
// must be sorted. The order is a stable sort of the implicit bindings
// followed by the declared ones (see eachBinding, which gives it without
// the list).
func vhostBindings(queues []string, declared [][]engine.BindingView) []engine.BindingView {
	n := len(queues)
	for _, c := range declared {
		n += len(c)
	}
	out := make([]engine.BindingView, 0, n)
	eachBinding(queues, sortedBindings(declared), func(b engine.BindingView) { out = append(out, b) })
	return out
}

// declaredBindings is a vhost's declared bindings in RabbitMQ's order
// (sortedBindings): the chunks the engine's reads returned (walkBindings)
// when they are in that order already, as an exchange's bindings often
// are, or else pointers into them, sorted. Sorting pointers rather than a
// copy of the views costs 8 bytes a binding instead of 64: 1.6 MB rather
// than 13 MB for the collector on every listing of 200,000 bindings.
type declaredBindings struct {
	chunks [][]engine.BindingView
	sorted []*engine.BindingView // nil when chunks are in order
}

// each hands f the bindings in order.
func (d declaredBindings) each(f func(*engine.BindingView)) {
	if d.sorted != nil {
		for _, b := range d.sorted {
			f(b)
		}
		return
	}
	for _, c := range d.chunks {
		for i := range c {
			f(&c[i])
		}
	}
}

// sortedBindings orders the declared bindings of chunks stably.
func sortedBindings(chunks [][]engine.BindingView) declaredBindings {
	var prev *engine.BindingView
	for _, c := range chunks {
		for i := range c {
			if prev != nil && compareBindings(*prev, c[i]) > 0 {
				return declaredBindings{chunks: chunks, sorted: sortedPointers(chunks)}
			}
			prev = &c[i]
		}
	}
	return declaredBindings{chunks: chunks}
}

// sortedPointers points to each binding of chunks, sorted stably.
func sortedPointers(chunks [][]engine.BindingView) []*engine.BindingView {
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	out := make([]*engine.BindingView, 0, n)
	for _, c := range chunks {
		for i := range c {
			out = append(out, &c[i])
		}
	}
	slices.SortStableFunc(out, func(a, b *engine.BindingView) int { return compareBindings(*a, *b) })
	return out
}

// eachBinding hands f a vhost's bindings in order without building their
// list (200,000 bindings of 100,000 queues, 13 MB): the implicit ones,
// one per queue name (queues sorted) and all from the default exchange,
// are in order already, so they are merged on the fly with the declared
// ones, sorted (sortedBindings), the implicit binding first of two that
// compare equal, as one stable sort of both would order them.
func eachBinding(queues []string, declared declaredBindings, f func(engine.BindingView)) {
	i := 0
	declared.each(func(b *engine.BindingView) {
		for ; i < len(queues); i++ {
			implicit := engine.BindingView{Destination: queues[i], RoutingKey: queues[i]}
			if compareBindings(*b, implicit) < 0 {
				break
			}
			f(implicit)
		}
		f(*b)
	})
	for ; i < len(queues); i++ {
		f(engine.BindingView{Destination: queues[i], RoutingKey: queues[i]})
	}
}

// compareBindings orders bindings by source, destination (queues before
// exchanges of the same name) and routing key.
func compareBindings(a, b engine.BindingView) int {
	return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Destination, b.Destination),
		cmp.Compare(boolInt(a.DestinationIsExchange), boolInt(b.DestinationIsExchange)), cmp.Compare(a.RoutingKey, b.RoutingKey))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bindingQuery selects the bindings a list shows.
type bindingQuery struct {
	keep func(b engine.BindingView) bool
	// source, when not nil, names the one exchange whose declared
	// bindings keep can accept, so that only its are read.
	source *string
	// selective says keep passes few of the bindings read (those to one
	// destination): the walk then holds only those (walkBindings).
	selective bool
}

func allBindings() bindingQuery {
	return bindingQuery{keep: func(engine.BindingView) bool { return true }}
}

// vhostBindingList is the bindings a list shows of one vhost: those of
// queues (sorted) and declared (sortedBindings) that keep keeps.
type vhostBindingList struct {
	vhost    string
	queues   []string
	declared declaredBindings
	keep     func(engine.BindingView) bool
}

// each hands f the list's bindings, in order (eachBinding).
func (l vhostBindingList) each(f func(engine.BindingView)) {
	eachBinding(l.queues, l.declared, func(b engine.BindingView) {
		if l.keep(b) {
			f(b)
		}
	})
}

// selectBindings finds the bindings in the request's scope that the query
// keeps, in RabbitMQ's order (vhostBindings). The first turn of the
// engine's owner lends the queue-name and exchange-name indexes; the
// declared bindings are then copied in further turns, readBatch units at a
// time (walkBindings), and sorted and filtered here. A binding added or
// removed meanwhile may or may not be listed (see engine.BindingCursor).
func (a *api) selectBindings(c *call, q bindingQuery) ([]vhostBindingList, error) {
	var vhosts []string
	var queues, exchanges [][][]string
	var err error
	if rerr := a.read(func(e engineReads) {
		if vhosts, err = c.scopeNames(e.Vhosts()); err != nil {
			return
		}
		for _, v := range vhosts {
			queues = append(queues, e.QueueNames(v))
			if q.source == nil {
				exchanges = append(exchanges, e.ExchangeNames(v))
			}
		}
	}); rerr != nil {
		return nil, rerr
	}
	if err != nil {
		return nil, err
	}
	cursors := make([]*engine.BindingCursor, len(vhosts))
	for i, v := range vhosts {
		sources := []string{}
		if q.source != nil {
			sources = append(sources, *q.source)
		} else {
			sources = concat(exchanges[i])
			slices.Sort(sources)
		}
		cursors[i] = engine.NewBindingCursor(v, sources)
	}
	var keep func(engine.BindingView) bool
	if q.selective {
		keep = q.keep
	}
	declared, err := a.walkBindings(cursors, keep)
	if err != nil {
		return nil, err
	}
	// The implicit bindings, one per queue, are all from the default
	// exchange: a query of another source needs no queue names (sorting
	// 100,000 of them is some 20 ms).
	implicit := q.source == nil || *q.source == ""
	out := make([]vhostBindingList, len(vhosts))
	for i, v := range vhosts {
		var names []string
		if implicit {
			names = concat(queues[i])
			slices.Sort(names)
		}
		out[i] = vhostBindingList{v, names, sortedBindings(declared[i]), q.keep}
	}
	return out, nil
}

// bindings is the bindings selectBindings finds, rendered.
func (a *api) bindings(c *call, q bindingQuery) ([]bindingJSON, error) {
	lists, err := a.selectBindings(c, q)
	if err != nil {
		return nil, err
	}
	out := []bindingJSON{}
	for _, l := range lists {
		l.each(func(b engine.BindingView) { out = append(out, toBindingJSON(l.vhost, b)) })
	}
	return out, nil
}

// bindingList is a list reply of the bindings selectBindings finds,
// rendered and written as they are encoded (jsonStream): the reply of
// 200,000 bindings is never held whole.
func (a *api) bindingList(c *call, q bindingQuery) (int, any, error) {
	lists, err := a.selectBindings(c, q)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, streamedList{func(w io.Writer) error {
		s := newJSONStream(w)
		s.open("")
		var j bindingJSON // reused: an item boxed for the encoder would cost an allocation each
		for _, l := range lists {
			l.each(func(b engine.BindingView) {
				j = toBindingJSON(l.vhost, b)
				s.item(&j)
			})
		}
		s.close()
		return s.flush()
	}}, nil
}

// walkBindings runs the cursors to their ends, in reads of at most
// readBatch units of work each (a unit is a binding copied or an exchange
// passed), and returns each cursor's bindings, in the chunks the reads
// returned (vhostBindings joins them). With keep set it returns only the
// bindings keep passes, copied out of one buffer every read reuses: a
// query for the bindings to one queue among 100,000 then holds that
// queue's, not 100,000 copies.
func (a *api) walkBindings(cursors []*engine.BindingCursor, keep func(engine.BindingView) bool) ([][][]engine.BindingView, error) {
	chunks := make([][][]engine.BindingView, len(cursors))
	// Made here, between turns, with room for all a read copies (its
	// budget bounds the bindings of every cursor it reads): the turns
	// that fill it allocate nothing, so the collector never has the
	// engine's owner assist while every client waits.
	var scratch []engine.BindingView
	if keep != nil {
		scratch = make([]engine.BindingView, 0, readBatch)
	}
	i := 0
	for i < len(cursors) {
		copied := 0
		err := a.read(func(e engineReads) {
			// Without keep each cursor's chunk is the part of a
			// fresh buffer that cursor filled, held as it is.
			buf := scratch
			if keep == nil {
				buf = make([]engine.BindingView, 0, readBatch)
			}
			for budget := readBatch; budget > 0 && i < len(cursors); {
				bs, work := e.AppendBindings(buf[len(buf):len(buf):cap(buf)], cursors[i], budget)
				if work == 0 && !cursors[i].Done() {
					return // the broker stopped: read reports it
				}
				switch {
				case keep != nil:
					var kept []engine.BindingView
					for _, b := range bs {
						if keep(b) {
							kept = append(kept, b)
						}
					}
					if len(kept) > 0 {
						chunks[i] = append(chunks[i], kept)
					}
					clear(bs) // the buffer holds no table past the read
				case len(bs) > 0:
					chunks[i] = append(chunks[i], bs[:len(bs):len(bs)])
					if cap(bs) == cap(buf)-len(buf) { // in buf, as the budget ensures
						buf = buf[:len(buf)+len(bs)]
					}
				}
				copied += len(bs)
				budget -= work
				if cursors[i].Done() {
					i++
				}
			}
		})
		if err != nil {
			return nil, err
		}
		a.reads.note(copied)
	}
	return chunks, nil
}

func (a *api) listBindings(c *call) (int, any, error) { return a.bindingList(c, allBindings()) }

// exchangeBindings is GET /api/exchanges/{vhost}/{name}/bindings/source
// (bindings from the exchange) or .../destination (bindings to it).
func (a *api) exchangeBindings(source bool) endpoint {
	return func(c *call) (int, any, error) {
		name := exchangeName(c)
		q := bindingQuery{keep: func(b engine.BindingView) bool { return b.DestinationIsExchange && b.Destination == name }, selective: true}
		if source {
			q = bindingQuery{keep: func(b engine.BindingView) bool { return b.Source == name }, source: &name}
		}
		return a.bindingList(c, q)
	}
}

func (a *api) queueBindings(c *call) (int, any, error) {
	name := c.r.PathValue("name")
	return a.bindingList(c, bindingQuery{keep: func(b engine.BindingView) bool { return !b.DestinationIsExchange && b.Destination == name }, selective: true})
}

// betweenEnds is the ends a binding path names: from {source} to
// {destination}, of a kind ("q" for a queue, "e" for an exchange).
func betweenEnds(c *call, kind string) engine.BindingEnds {
	src := c.r.PathValue("source")
	if src == "amq.default" {
		src = ""
	}
	return engine.BindingEnds{Source: src, Destination: c.r.PathValue("destination"), ToExchange: kind == "e"}
}

// between selects the bindings between the ends the path names.
func between(c *call, kind string) bindingQuery {
	ends := betweenEnds(c, kind)
	return bindingQuery{keep: func(b engine.BindingView) bool {
		return b.Source == ends.Source && b.Destination == ends.Destination && b.DestinationIsExchange == ends.ToExchange
	}, source: &ends.Source, selective: true}
}

func (a *api) listBindingsBetween(kind string) endpoint {
	return func(c *call) (int, any, error) { return a.bindingList(c, between(c, kind)) }
}

func (a *api) getBinding(kind string) endpoint {
	return func(c *call) (int, any, error) {
		out, err := a.bindings(c, between(c, kind))
		if err != nil {
			return 0, nil, err
		}
		for _, b := range out {
			if b.PropertiesKey == c.r.PathValue("props") {
				return http.StatusOK, b, nil
			}
		}
		return 0, nil, errNotFound
	}
}

// postBinding is POST /api/bindings/{vhost}/e/{source}/q/{queue} (or
// .../e/{destination}) with {"routing_key": .., "arguments": {..}}: 201
// with the new binding's properties key as Location.
func (a *api) postBinding(kind string) endpoint {
	return func(c *call) (int, any, error) {
		b, err := readBody(c.r)
		if err != nil {
			return 0, nil, err
		}
		key, err := b.str("routing_key", "")
		if err != nil {
			return 0, nil, err
		}
		args, err := b.table("arguments")
		if err != nil {
			return 0, nil, err
		}
		vhost, src, dst := c.r.PathValue("vhost"), c.r.PathValue("source"), c.r.PathValue("destination")
		if src == "amq.default" {
			src = ""
		}
		err = a.do(c.user.Name, func(s *session) error {
			if err := c.writeTo(s, vhost); err != nil {
				return err
			}
			var cmd engine.Command = engine.CmdQueueBind{Bind: engine.QueueBind{Exchange: src, Queue: dst, RoutingKey: key, Args: args}}
			if kind == "e" {
				cmd = engine.CmdExchangeBind{Bind: engine.ExchangeBind{Source: src, Destination: dst, RoutingKey: key, Args: args}}
			}
			_, err := s.run(vhost, cmd)
			return err
		})
		if err != nil {
			return 0, nil, err
		}
		c.header.Set("Location", url.PathEscape(dst)+"/"+url.PathEscape(propertiesKey(key, args)))
		return http.StatusCreated, nil, nil
	}
}

// deleteBinding is DELETE .../{props}: unbind the binding the properties
// key names.
func (a *api) deleteBinding(kind string) endpoint {
	return func(c *call) (int, any, error) {
		vhost, props := c.r.PathValue("vhost"), c.r.PathValue("props")
		ends := betweenEnds(c, kind)
		err := a.do(c.user.Name, func(s *session) error {
			if err := c.writeTo(s, vhost); err != nil {
				return err
			}
			for _, b := range s.r.BindingsBetween(vhost, ends) {
				if propertiesKey(b.RoutingKey, b.Args) != props {
					continue
				}
				var cmd engine.Command = engine.CmdQueueUnbind{Bind: engine.QueueBind{Exchange: b.Source, Queue: b.Destination, RoutingKey: b.RoutingKey, Args: b.Args}}
				if b.DestinationIsExchange {
					cmd = engine.CmdExchangeUnbind{Bind: engine.ExchangeBind{Source: b.Source, Destination: b.Destination, RoutingKey: b.RoutingKey, Args: b.Args}}
				}
				_, err := s.run(vhost, cmd)
				return err
			}
			return errNotFound
		})
		if err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	}
}
