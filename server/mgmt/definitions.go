package mgmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

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

func (a *api) exportDefinitions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	snap, err := a.snapshot()
	if err != nil {
		return 0, nil, err
	}
	if name, one := c.pathVhost(); one {
		v, ok := vhostView(&snap, name)
		if !ok {
			return 0, nil, errNotFound
		}
		d := vhostDefinitions{RabbitVersion: rabbitVersion, topology: newTopology()}
		d.add(v, false)
		return http.StatusOK, d, nil
	}
	t := newTopology()
	d := definitions{RabbitVersion: rabbitVersion, RabbitMQVersion: rabbitVersion, ProductName: productName, ProductVersion: productVersion,
		Users: []userJSON{}, Vhosts: []vhostDef{}, Permissions: a.users.Permissions(), TopicPermissions: a.users.TopicPermissions(), GlobalParameters: []any{}}
	for _, u := range a.users.Users() {
		d.Users = append(d.Users, toUserJSON(u))
	}
	for i := range snap.Vhosts {
		d.Vhosts = append(d.Vhosts, vhostDef{snap.Vhosts[i].Name})
		t.add(&snap.Vhosts[i], true)
	}
	d.Parameters, d.Policies, d.Queues, d.Exchanges, d.Bindings = t.Parameters, t.Policies, t.Queues, t.Exchanges, t.Bindings
	return http.StatusOK, d, nil
}

// importDoc is a definitions document as read: numbers stay json.Number
// until toTable turns them into int64 or float64.
type importDoc struct {
	Users            []auth.UserDef         `json:"users"`
	Vhosts           []vhostDef             `json:"vhosts"`
	Permissions      []auth.Permission      `json:"permissions"`
	TopicPermissions []auth.TopicPermission `json:"topic_permissions"`
	Parameters       []struct {
		Value     map[string]any `json:"value"`
		Vhost     string         `json:"vhost"`
		Component string         `json:"component"`
		Name      string         `json:"name"`
	} `json:"parameters"`
	Policies []struct {
		Vhost      string         `json:"vhost"`
		Name       string         `json:"name"`
		Pattern    string         `json:"pattern"`
		ApplyTo    string         `json:"apply-to"`
		Definition map[string]any `json:"definition"`
		Priority   any            `json:"priority"`
	} `json:"policies"`
	Queues    []queueDef    `json:"queues"`
	Exchanges []exchangeDef `json:"exchanges"`
	Bindings  []bindingDef  `json:"bindings"`
}

// importDefinitions is POST /api/definitions (or /api/definitions/{vhost},
// whose items need not name their vhost). Objects are created in
// RabbitMQ's order: users, vhosts, permissions and topic permissions,
// parameters, policies, queues, exchanges, bindings. As in RabbitMQ, a
// queue or exchange that already exists is left as it is, and the first
// error stops the import (what came before it stays).
func (a *api) importDefinitions(c *call) (int, any, error) {
	if err := c.requireAdmin(); err != nil {
		return 0, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(c.r.Body, maxBody+1))
	if err != nil || len(data) > maxBody {
		return 0, nil, badRequest("request body too large or unreadable")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc importDoc
	// JSON is UTF-8 (RFC 8259); Go's decoder would quietly turn bad
	// bytes into U+FFFD, and so rename what the document names.
	if err := dec.Decode(&doc); err != nil || !utf8.Valid(data) {
		return 0, nil, badRequest("failed_to_parse_json")
	}
	if e := doc.checkNames(); e != nil {
		return 0, nil, e
	}
	pathVhost, one := c.pathVhost()
	if one {
		doc.Users, doc.Vhosts, doc.Permissions, doc.TopicPermissions = nil, nil, nil, nil
	}
	vhostOf := func(v string) string {
		if one {
			return pathVhost
		}
		return v
	}
	if err := a.users.Import(auth.Definitions{Users: doc.Users}); err != nil {
		return 0, nil, badRequest(err.Error())
	}
	err = a.doUnchecked(c.user.Name, func(s *session) error {
		if one && !s.hasVhost(pathVhost) {
			return errNotFound
		}
		for _, v := range doc.Vhosts {
			if err := s.e.AddVhost(v.Name); err != nil {
				return err
			}
		}
		noVhost := func(v string) error {
			if !s.hasVhost(v) {
				return badRequest("no_such_vhost: " + v)
			}
			return nil
		}
		for _, p := range doc.Permissions {
			if err := noVhost(p.Vhost); err != nil {
				return err
			}
		}
		for _, p := range doc.TopicPermissions {
			if err := noVhost(p.Vhost); err != nil {
				return err
			}
		}
		if err := a.users.Import(auth.Definitions{Permissions: doc.Permissions, TopicPermissions: doc.TopicPermissions}); err != nil {
			return badRequest(err.Error())
		}
		// Open connections are checked against what was imported (see
		// regrant; this is already on the broker goroutine).
		for _, p := range doc.Permissions {
			s.e.SetPermissions(p.User, p.Vhost, a.users.Grants(p.User, p.Vhost))
		}
		for _, p := range doc.TopicPermissions {
			s.e.SetPermissions(p.User, p.Vhost, a.users.Grants(p.User, p.Vhost))
		}
		for _, p := range doc.Parameters {
			if p.Component != "operator_policy" {
				continue // Warren has no other runtime parameters
			}
			b := body(p.Value)
			pol := engine.Policy{Vhost: vhostOf(p.Vhost), Name: p.Name}
			pol.Pattern, _ = b.str("pattern", "")
			pol.ApplyTo, _ = b.str("apply-to", "all")
			pol.Definition, _ = b.table("definition")
			var err error
			if pol.Priority, err = priority(b["priority"]); err == nil {
				err = s.e.SetOperatorPolicy(pol)
			}
			if err != nil {
				return policyImportError(err, pol)
			}
		}
		for _, p := range doc.Policies {
			pol := engine.Policy{Vhost: vhostOf(p.Vhost), Name: p.Name, Pattern: p.Pattern, ApplyTo: p.ApplyTo, Definition: toTable(p.Definition)}
			var err error
			if pol.Priority, err = priority(p.Priority); err == nil {
				err = s.e.SetPolicy(pol)
			}
			if err != nil {
				return policyImportError(err, pol)
			}
		}
		for _, q := range doc.Queues {
			vh := vhostOf(q.Vhost)
			if err := noVhost(vh); err != nil {
				return err
			}
			if ok, err := s.queueExists(vh, q.Name); ok || err != nil {
				continue
			}
			err := s.run(vh, func(ch engine.ChannelID) error {
				_, err := s.e.QueueDeclare(ch, engine.QueueDeclare{Queue: q.Name, Durable: q.Durable, AutoDelete: q.AutoDelete, Args: toTable(q.Arguments)})
				return err
			})
			if err != nil {
				return err
			}
		}
		for _, x := range doc.Exchanges {
			vh := vhostOf(x.Vhost)
			if err := noVhost(vh); err != nil {
				return err
			}
			if ok, err := s.exchangeExists(vh, x.Name); ok || err != nil {
				continue
			}
			err := s.run(vh, func(ch engine.ChannelID) error {
				return s.e.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: x.Name, Type: x.Type, Durable: x.Durable,
					AutoDelete: x.AutoDelete, Internal: x.Internal, Args: toTable(x.Arguments)})
			})
			if err != nil {
				return err
			}
		}
		for _, b := range doc.Bindings {
			vh := vhostOf(b.Vhost)
			if err := noVhost(vh); err != nil {
				return err
			}
			err := s.run(vh, func(ch engine.ChannelID) error {
				if b.DestinationType == "exchange" {
					return s.e.ExchangeBind(ch, engine.ExchangeBind{Source: b.Source, Destination: b.Destination, RoutingKey: b.RoutingKey, Args: toTable(b.Arguments)})
				}
				return s.e.QueueBind(ch, engine.QueueBind{Exchange: b.Source, Queue: b.Destination, RoutingKey: b.RoutingKey, Args: toTable(b.Arguments)})
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

// policyImportError words a policy's failure as RabbitMQ's import does:
// the validation message, then " (vhost/name)".
func policyImportError(err error, p engine.Policy) error {
	ae := asAPIError(err)
	if ae.status != http.StatusBadRequest {
		return ae
	}
	return badRequest(fmt.Sprintf("%s (%s/%s)", ae.reason, p.Vhost, p.Name))
}
