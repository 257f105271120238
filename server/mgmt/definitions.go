package mgmt

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"warren/engine"
	"warren/server/auth"
)

// The definitions document (definitions.md): GET /api/definitions exports
// it, POST imports it, in the shape RabbitMQ 3.10.8 uses. Operator
// policies travel as runtime parameters of component "operator_policy".

type vhostDef struct {
	Name string `json:"name"`
}

type parameterValue struct {
	Pattern    string         `json:"pattern"`
	Definition map[string]any `json:"definition"`
	Priority   int            `json:"priority"`
	ApplyTo    string         `json:"apply-to"`
}

type parameterDef struct {
	Value     parameterValue `json:"value"`
	Vhost     string         `json:"vhost"`
	Component string         `json:"component"`
	Name      string         `json:"name"`
}

type queueDef struct {
	Name       string         `json:"name"`
	Vhost      string         `json:"vhost,omitempty"`
	Durable    bool           `json:"durable"`
	AutoDelete bool           `json:"auto_delete"`
	Arguments  map[string]any `json:"arguments"`
}

type exchangeDef struct {
	Name       string         `json:"name"`
	Vhost      string         `json:"vhost,omitempty"`
	Type       string         `json:"type"`
	Durable    bool           `json:"durable"`
	AutoDelete bool           `json:"auto_delete"`
	Internal   bool           `json:"internal"`
	Arguments  map[string]any `json:"arguments"`
}

type bindingDef struct {
	Source          string         `json:"source"`
	Vhost           string         `json:"vhost,omitempty"`
	Destination     string         `json:"destination"`
	DestinationType string         `json:"destination_type"`
	RoutingKey      string         `json:"routing_key"`
	Arguments       map[string]any `json:"arguments"`
}

// topology is the per-vhost part of the document.
type topology struct {
	Parameters []parameterDef `json:"parameters"`
	Policies   []policyJSON   `json:"policies"`
	Queues     []queueDef     `json:"queues"`
	Exchanges  []exchangeDef  `json:"exchanges"`
	Bindings   []bindingDef   `json:"bindings"`
}

type definitions struct {
	RabbitVersion    string                 `json:"rabbit_version"`
	RabbitMQVersion  string                 `json:"rabbitmq_version"`
	ProductName      string                 `json:"product_name"`
	ProductVersion   string                 `json:"product_version"`
	Users            []userJSON             `json:"users"`
	Vhosts           []vhostDef             `json:"vhosts"`
	Permissions      []auth.Permission      `json:"permissions"`
	TopicPermissions []auth.TopicPermission `json:"topic_permissions"`
	Parameters       []parameterDef         `json:"parameters"`
	GlobalParameters []any                  `json:"global_parameters"`
	Policies         []policyJSON           `json:"policies"`
	Queues           []queueDef             `json:"queues"`
	Exchanges        []exchangeDef          `json:"exchanges"`
	Bindings         []bindingDef           `json:"bindings"`
}

type vhostDefinitions struct {
	RabbitVersion string `json:"rabbit_version"`
	topology
}

// add adds a vhost's definitions. Exclusive queues, the
// predeclared exchanges and the default exchange's implicit bindings are
// not definitions, as in RabbitMQ; withVhost says whether items name their
// vhost (the whole-broker document) or not (GET /api/definitions/{vhost}).
func (t *topology) add(v *engine.VhostView, withVhost bool) {
	t.addPolicies(v)
	vh := itemVhost(v.Name, withVhost)
	for i := range v.Queues {
		if d, ok := toQueueDef(&v.Queues[i], vh); ok {
			t.Queues = append(t.Queues, d)
		}
	}
	for i := range v.Exchanges {
		if d, ok := toExchangeDef(&v.Exchanges[i], vh); ok {
			t.Exchanges = append(t.Exchanges, d)
		}
	}
	for _, b := range vhostBindings(nil, [][]engine.BindingView{v.Bindings}) { // the default exchange's implicit bindings are not exported
		t.Bindings = append(t.Bindings, toBindingDef(v.Name, vh, b))
	}
}

// addPolicies adds a vhost's policies and operator policies.
func (t *topology) addPolicies(v *engine.VhostView) {
	for _, p := range v.OperatorPolicies {
		t.Parameters = append(t.Parameters, parameterDef{Value: parameterValue{p.Pattern, fromTable(p.Definition), p.Priority, p.ApplyTo},
			Vhost: v.Name, Component: "operator_policy", Name: p.Name})
	}
	for _, p := range v.Policies {
		t.Policies = append(t.Policies, toPolicyJSON(p))
	}
}

// itemVhost is the vhost an item of the document names: "" (left out)
// when the document is one vhost's.
func itemVhost(vhost string, withVhost bool) string {
	if withVhost {
		return vhost
	}
	return ""
}

// toQueueDef is a queue's definition; an exclusive queue has none.
func toQueueDef(q *engine.QueueView, vh string) (queueDef, bool) {
	return queueDef{q.Name, vh, q.Durable, q.AutoDelete, fromTable(q.Args)}, !q.Exclusive
}

// toExchangeDef is an exchange's definition; the default and predeclared
// exchanges have none.
func toExchangeDef(x *engine.ExchangeView, vh string) (exchangeDef, bool) {
	return exchangeDef{x.Name, vh, x.Type, x.Durable, x.AutoDelete, x.Internal, fromTable(x.Args)},
		x.Name != "" && !strings.HasPrefix(x.Name, "amq.")
}

func toBindingDef(vhost, vh string, b engine.BindingView) bindingDef {
	j := toBindingJSON(vhost, b)
	return bindingDef{b.Source, vh, b.Destination, j.DestinationType, b.RoutingKey, j.Arguments}
}

func newTopology() topology {
	return topology{Parameters: []parameterDef{}, Policies: []policyJSON{}, Queues: []queueDef{}, Exchanges: []exchangeDef{}, Bindings: []bindingDef{}}
}

// exportDefinitions is GET /api/definitions (or /api/definitions/{vhost}).
// It reads the broker over many turns (definitionIndex, then
// writeDefinitions), so the document is not a snapshot of one moment when
// the broker changes meanwhile; for a broker that does not change it is
// the same, byte for byte. It is written as it is read: its queues and
// exchanges readBatch per turn, each batch encoded and sent before the
// next is read, so that the document of 100,000 queues is never held
// whole.
func (a *api) exportDefinitions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	name, one := c.pathVhost()
	ix, err := a.definitionIndex(name, one)
	if err != nil {
		return 0, nil, err
	}
	var head any
	t := newTopology()
	if one {
		t.addPolicies(&ix.views[0])
		head = vhostDefinitions{RabbitVersion: rabbitVersion, topology: t}
	} else {
		d := definitions{RabbitVersion: rabbitVersion, RabbitMQVersion: rabbitVersion, ProductName: productName, ProductVersion: productVersion,
			Users: []userJSON{}, Vhosts: []vhostDef{}, Permissions: a.users.Permissions(), TopicPermissions: a.users.TopicPermissions(), GlobalParameters: []any{}}
		for _, u := range a.users.Users() {
			d.Users = append(d.Users, toUserJSON(u))
		}
		for i := range ix.views {
			d.Vhosts = append(d.Vhosts, vhostDef{ix.views[i].Name})
			t.addPolicies(&ix.views[i])
		}
		d.Parameters, d.Policies, d.Queues, d.Exchanges, d.Bindings = t.Parameters, t.Policies, t.Queues, t.Exchanges, t.Bindings
		head = d
	}
	// The document ends with its queues, exchanges and bindings, empty
	// in head: everything before them is head's encoding without that end.
	data, err := marshal(head)
	if err != nil {
		return 0, nil, err
	}
	const tail = `,"queues":[],"exchanges":[],"bindings":[]}`
	prefix, ok := strings.CutSuffix(string(data), tail)
	if !ok {
		return 0, nil, fmt.Errorf("the definitions document does not end with %s", tail)
	}
	return http.StatusOK, streamedList{func(w io.Writer) error { return a.writeDefinitions(w, prefix, ix, !one) }}, nil
}

// definitionIndex is what a definitions export reads in its first turn.
type definitionIndex struct {
	// views are the vhosts' policies (only the named vhost's when one is
	// set), as VhostViews without objects.
	views []engine.VhostView
	// queues and exchanges are each vhost's names, sorted.
	queues, exchanges [][]string
}

// definitionIndex reads the definitions' index: the first read copies
// the vhosts' policies and borrows their queue and exchange name indexes,
// then the names are sorted here. A vhost name that does not exist is 404.
func (a *api) definitionIndex(name string, one bool) (definitionIndex, error) {
	var ix definitionIndex
	var queues, exchanges [][][]string
	if err := a.read(func(e engineReads) {
		for _, v := range e.Vhosts() {
			if one && v != name {
				continue
			}
			ix.views = append(ix.views, engine.VhostView{Name: v, Policies: e.Policies(v), OperatorPolicies: e.OperatorPolicies(v)})
			queues = append(queues, e.QueueNames(v))
			exchanges = append(exchanges, e.ExchangeNames(v))
		}
	}); err != nil {
		return ix, err
	}
	if one && len(ix.views) != 1 {
		return ix, errNotFound
	}
	for i := range ix.views {
		ix.queues = append(ix.queues, concat(queues[i]))
		slices.Sort(ix.queues[i])
		ix.exchanges = append(ix.exchanges, concat(exchanges[i]))
		slices.Sort(ix.exchanges[i])
	}
	return ix, nil
}

// writeDefinitions writes the document after prefix: the queues' and
// exchanges' definitions as their views are built, readBatch per read
// (eachBatchedView), then the declared bindings, copied readBatch units
// per read (walkBindings) and sorted here. withVhost says whether items
// name their vhost.
func (a *api) writeDefinitions(w io.Writer, prefix string, ix definitionIndex, withVhost bool) error {
	s := newJSONStream(w)
	s.raw(prefix)
	vhosts := make([]string, len(ix.views))
	cursors := make([]*engine.BindingCursor, len(ix.views))
	for i := range ix.views {
		vhosts[i] = ix.views[i].Name
		cursors[i] = engine.NewBindingCursor(vhosts[i], ix.exchanges[i])
	}
	// Each item is encoded from one variable of its type, reused, rather
	// than boxed for the encoder, which would cost an allocation each.
	var qd queueDef
	var xd exchangeDef
	var bd bindingDef
	s.open(`,"queues":`)
	err := eachBatchedView(a, vhosts, ix.queues, engineReads.AppendQueueSummaries, func(vi int, q *engine.QueueView) {
		var ok bool
		if qd, ok = toQueueDef(q, itemVhost(vhosts[vi], withVhost)); ok {
			s.item(&qd)
		}
	})
	s.close()
	if err != nil {
		return errors.Join(err, s.flush())
	}
	s.open(`,"exchanges":`)
	err = eachBatchedView(a, vhosts, ix.exchanges, appendExchangeSummaries, func(vi int, x *engine.ExchangeView) {
		var ok bool
		if xd, ok = toExchangeDef(x, itemVhost(vhosts[vi], withVhost)); ok {
			s.item(&xd)
		}
	})
	s.close()
	if err != nil {
		return errors.Join(err, s.flush())
	}
	bs, err := a.walkBindings(cursors, nil)
	if err != nil {
		return errors.Join(err, s.flush())
	}
	s.open(`,"bindings":`)
	for i, v := range vhosts {
		// The default exchange's implicit bindings are not exported.
		eachBinding(nil, sortedBindings(bs[i]), func(b engine.BindingView) {
			bd = toBindingDef(v, itemVhost(v, withVhost), b)
			s.item(&bd)
		})
	}
	s.close()
	s.raw("}")
	return s.flush()
}

// eachBatchedView builds the views of the named objects of each vhost
// (names sorted within each), readBatch names per read, and hands each to
// f here with its vhost's index, before the next read; a vhost without
// any counts as one. Objects gone meanwhile are left out. get appends the
// views to its dst: every read appends into the same slice, since f is
// done with a read's views before the next.
func eachBatchedView[V any](a *api, vhosts []string, names [][]string, get func(e engineReads, dst []V, vhost string, names []string) []V, f func(vi int, v *V)) error {
	vi, at := 0, 0
	type batch struct {
		vi       int
		from, to int // the views in buf
	}
	var buf []V
	for vi < len(vhosts) {
		var got []batch
		buf = buf[:0]
		err := a.read(func(e engineReads) {
			for budget := readBatch; budget > 0 && vi < len(vhosts); {
				part := names[vi][at:min(at+budget, len(names[vi]))]
				if len(part) > 0 {
					from := len(buf)
					buf = get(e, buf, vhosts[vi], part)
					got = append(got, batch{vi, from, len(buf)})
				}
				at += len(part)
				budget -= max(len(part), 1)
				if at == len(names[vi]) {
					vi, at = vi+1, 0
				}
			}
		})
		if err != nil {
			return err
		}
		a.reads.views.Add(int64(len(buf)))
		a.reads.note(len(buf))
		for _, b := range got {
			for i := b.from; i < b.to; i++ {
				f(b.vi, &buf[i])
			}
		}
	}
	return nil
}

// appendExchangeSummaries is ExchangeSummaries in the form
// eachBatchedView reads: a broker has few exchanges beside its queues.
func appendExchangeSummaries(e engineReads, dst []engine.ExchangeView, vhost string, names []string) []engine.ExchangeView {
	return append(dst, e.ExchangeSummaries(vhost, names)...)
}
