package mgmt

import (
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
	vh := ""
	if withVhost {
		vh = v.Name
	}
	for _, p := range v.OperatorPolicies {
		t.Parameters = append(t.Parameters, parameterDef{Value: parameterValue{p.Pattern, fromTable(p.Definition), p.Priority, p.ApplyTo},
			Vhost: v.Name, Component: "operator_policy", Name: p.Name})
	}
	for _, p := range v.Policies {
		t.Policies = append(t.Policies, toPolicyJSON(p))
	}
	for _, q := range v.Queues {
		if !q.Exclusive {
			t.Queues = append(t.Queues, queueDef{q.Name, vh, q.Durable, q.AutoDelete, fromTable(q.Args)})
		}
	}
	for _, x := range v.Exchanges {
		if x.Name != "" && !strings.HasPrefix(x.Name, "amq.") {
			t.Exchanges = append(t.Exchanges, exchangeDef{x.Name, vh, x.Type, x.Durable, x.AutoDelete, x.Internal, fromTable(x.Args)})
		}
	}
	for _, b := range vhostBindings(nil, v.Bindings) { // the default exchange's implicit bindings are not exported
		j := toBindingJSON(v.Name, b)
		t.Bindings = append(t.Bindings, bindingDef{b.Source, vh, b.Destination, j.DestinationType, b.RoutingKey, j.Arguments})
	}
}

func newTopology() topology {
	return topology{Parameters: []parameterDef{}, Policies: []policyJSON{}, Queues: []queueDef{}, Exchanges: []exchangeDef{}, Bindings: []bindingDef{}}
}

// exportDefinitions is GET /api/definitions (or /api/definitions/{vhost}).
// It reads the broker over many turns (definitionViews), so the document
// is not a snapshot of one moment when the broker changes meanwhile; for
// a broker that does not change it is the same, byte for byte.
func (a *api) exportDefinitions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	name, one := c.pathVhost()
	views, err := a.definitionViews(name, one)
	if err != nil {
		return 0, nil, err
	}
	if one {
		d := vhostDefinitions{RabbitVersion: rabbitVersion, topology: newTopology()}
		d.add(&views[0], false)
		return http.StatusOK, d, nil
	}
	t := newTopology()
	d := definitions{RabbitVersion: rabbitVersion, RabbitMQVersion: rabbitVersion, ProductName: productName, ProductVersion: productVersion,
		Users: []userJSON{}, Vhosts: []vhostDef{}, Permissions: a.users.Permissions(), TopicPermissions: a.users.TopicPermissions(), GlobalParameters: []any{}}
	for _, u := range a.users.Users() {
		d.Users = append(d.Users, toUserJSON(u))
	}
	for i := range views {
		d.Vhosts = append(d.Vhosts, vhostDef{views[i].Name})
		t.add(&views[i], true)
	}
	d.Parameters, d.Policies, d.Queues, d.Exchanges, d.Bindings = t.Parameters, t.Policies, t.Queues, t.Exchanges, t.Bindings
	return http.StatusOK, d, nil
}

// definitionViews reads what definitions carry of every vhost (only of
// vhost name when one is set: 404 if it does not exist), as VhostViews
// without messages or connections. The first read copies the vhosts'
// policies and borrows their queue and exchange name indexes; the names
// are sorted here; the queues' and exchanges' views are then built
// readBatch per read, and the declared bindings copied readBatch units per
// read (walkBindings).
func (a *api) definitionViews(name string, one bool) ([]engine.VhostView, error) {
	var views []engine.VhostView
	var queues, exchanges [][][]string
	found := true
	if err := a.read(func(e engineReads) {
		for _, v := range e.Vhosts() {
			if one && v != name {
				continue
			}
			views = append(views, engine.VhostView{Name: v, Policies: e.Policies(v), OperatorPolicies: e.OperatorPolicies(v)})
			queues = append(queues, e.QueueNames(v))
			exchanges = append(exchanges, e.ExchangeNames(v))
		}
		found = !one || len(views) == 1
	}); err != nil {
		return nil, err
	}
	if !found {
		return nil, errNotFound
	}
	vhosts := make([]string, len(views))
	queueNames := make([][]string, len(views))
	exchangeNames := make([][]string, len(views))
	cursors := make([]*engine.BindingCursor, len(views))
	for i := range views {
		vhosts[i] = views[i].Name
		queueNames[i] = concat(queues[i])
		slices.Sort(queueNames[i])
		exchangeNames[i] = concat(exchanges[i])
		slices.Sort(exchangeNames[i])
		cursors[i] = engine.NewBindingCursor(vhosts[i], exchangeNames[i])
	}
	qs, err := batchedViews(a, vhosts, queueNames, engineReads.QueueSummaries)
	if err != nil {
		return nil, err
	}
	xs, err := batchedViews(a, vhosts, exchangeNames, engineReads.ExchangeSummaries)
	if err != nil {
		return nil, err
	}
	bs, err := a.walkBindings(cursors)
	if err != nil {
		return nil, err
	}
	for i := range views {
		views[i].Queues, views[i].Exchanges, views[i].Bindings = qs[i], xs[i], bs[i]
	}
	return views, nil
}

// batchedViews builds the views of the named objects of each vhost (names
// sorted within each), readBatch names per read; a vhost without any
// counts as one. Objects gone meanwhile are left out.
func batchedViews[V any](a *api, vhosts []string, names [][]string, get func(e engineReads, vhost string, names []string) []V) ([][]V, error) {
	out := make([][]V, len(vhosts))
	vi, at := 0, 0
	for vi < len(vhosts) {
		built := 0
		err := a.read(func(e engineReads) {
			for budget := readBatch; budget > 0 && vi < len(vhosts); {
				batch := names[vi][at:min(at+budget, len(names[vi]))]
				if len(batch) > 0 {
					vs := get(e, vhosts[vi], batch)
					out[vi] = append(out[vi], vs...)
					built += len(vs)
				}
				at += len(batch)
				budget -= max(len(batch), 1)
				if at == len(names[vi]) {
					vi, at = vi+1, 0
				}
			}
		})
		if err != nil {
			return nil, err
		}
		a.reads.views.Add(int64(built))
		a.reads.note(built)
	}
	return out, nil
}
