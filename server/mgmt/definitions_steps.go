package mgmt

import (
	"warren/engine"
	"warren/server/auth"
)

// importSteps lists what importing doc does after its users, category by
// category in RabbitMQ 3.10.8's order (rabbit_definitions, and observed:
// an exchange is imported when a policy of the same document fails, an
// operator policy is not, a policy is when a queue fails):
//
//	whole broker  vhosts, permissions, topic permissions, exchanges,
//	              policies, operator policies, queues, bindings
//	one vhost     exchanges, operator policies, policies, queues, bindings
//
// RabbitMQ imports the items of vhosts, permissions, topic permissions,
// exchanges, queues and bindings concurrently, each on its own: an item
// that fails does not stop the others of its category, and the import
// stops after the category with its failure (observed: of three queues
// the middle one failing, the other two were declared). Warren reports
// the category's first failure in document order, where RabbitMQ reports
// whichever its workers report first. Policies and operator policies are
// imported one after another, and the first failure stops the import
// there. A binding that cannot be made (its vhost, source or destination
// missing, its arguments invalid) is no failure at all: rabbit_binding:add
// returns the error and the import ignores it (observed: 204, and the
// document's other bindings made).
func (a *api) importSteps(doc *importDoc, pathVhost string, one bool) []importStep {
	var l stepList
	vhostOf := func(v string) string {
		if one {
			return pathVhost
		}
		return v
	}
	if one {
		l.on(nil, func(s *session) error {
			if !s.hasVhost(pathVhost) {
				return errNotFound
			}
			return nil
		})
		l.exchanges(doc, vhostOf)
		l.operatorPolicies(doc, vhostOf)
		l.policies(doc, vhostOf)
	} else {
		l.concurrent(len(doc.Vhosts), func(i int) importStep {
			return importStep{apply: func(s *session) error { return s.e.AddVhost(doc.Vhosts[i].Name) }}
		})
		a.grants(&l, len(doc.Permissions), func(i int) (string, string) { return doc.Permissions[i].User, doc.Permissions[i].Vhost },
			func(i int) error { return a.users.Import(auth.Definitions{Permissions: doc.Permissions[i : i+1]}) })
		a.grants(&l, len(doc.TopicPermissions), func(i int) (string, string) { return doc.TopicPermissions[i].User, doc.TopicPermissions[i].Vhost },
			func(i int) error {
				return a.users.Import(auth.Definitions{TopicPermissions: doc.TopicPermissions[i : i+1]})
			})
		l.exchanges(doc, vhostOf)
		l.policies(doc, vhostOf)
		l.operatorPolicies(doc, vhostOf)
	}
	l.queues(doc, vhostOf)
	l.bindings(doc, vhostOf)
	return l.steps
}

// stepList builds an import's steps.
type stepList struct{ steps []importStep }

// on adds a step on the broker goroutine (weight nil weighs 1).
func (l *stepList) on(weight func(e *engine.Broker) int, apply func(s *session) error) {
	l.steps = append(l.steps, importStep{weight: weight, apply: apply})
}

// concurrent adds a category of n items imported each on its own, as
// RabbitMQ's concurrent_for_all does: a failing item does not stop the
// others, and a last step fails with the first failure, if any.
func (l *stepList) concurrent(n int, item func(i int) importStep) {
	if n == 0 {
		return
	}
	var first error
	for i := 0; i < n; i++ {
		st := item(i)
		apply := st.apply
		st.apply = func(s *session) error {
			if err := apply(s); err != nil && first == nil {
				first = err
			}
			return nil
		}
		l.steps = append(l.steps, st)
	}
	l.on(nil, func(*session) error { return first })
}

// grants adds a category of n permissions (or topic permissions), item i
// being user's in vhost, which imp imports through the auth.Store. The
// vhosts are checked on the broker goroutine, then the Store applies each
// item to the engine between the import's turns (as a PUT of a permission
// does: its writers take their own turn), and the engine hands open
// connections their new permissions as it takes them. The category fails
// with its first failure in document order.
func (a *api) grants(l *stepList, n int, userVhost func(i int) (user, vhost string), imp func(i int) error) {
	if n == 0 {
		return
	}
	failed := make([]error, n)
	for i := 0; i < n; i++ {
		l.on(nil, func(s *session) error {
			_, vhost := userVhost(i)
			failed[i] = noVhost(s, vhost)
			return nil
		})
	}
	l.steps = append(l.steps, importStep{here: func() error {
		for i := 0; i < n; i++ {
			if failed[i] != nil {
				continue
			}
			if err := imp(i); err != nil {
				failed[i] = usersErr(err, badRequest(err.Error()))
			}
		}
		return nil
	}})
	l.on(nil, func(*session) error {
		for _, err := range failed {
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func (l *stepList) exchanges(doc *importDoc, vhostOf func(string) string) {
	l.concurrent(len(doc.Exchanges), func(i int) importStep {
		x := doc.Exchanges[i]
		vh := vhostOf(x.Vhost)
		return importStep{apply: func(s *session) error {
			if err := noVhost(s, vh); err != nil {
				return err
			}
			if ok, err := s.exchangeExists(vh, x.Name); ok || err != nil {
				return nil
			}
			return s.run(vh, func(ch engine.ChannelID) error {
				return s.e.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: x.Name, Type: x.Type, Durable: x.Durable,
					AutoDelete: x.AutoDelete, Internal: x.Internal, Args: toTable(x.Arguments)})
			})
		}}
	})
}

// operatorPolicies imports the parameters of component "operator_policy",
// one after another; Warren has no other runtime parameters.
func (l *stepList) operatorPolicies(doc *importDoc, vhostOf func(string) string) {
	for _, p := range doc.Parameters {
		if p.Component != "operator_policy" {
			continue
		}
		b := body(p.Value)
		pol := engine.Policy{Vhost: vhostOf(p.Vhost), Name: p.Name}
		pol.Pattern, _ = b.str("pattern", "")
		pol.ApplyTo, _ = b.str("apply-to", "all")
		pol.Definition, _ = b.table("definition")
		l.on(policyWeight(pol.Vhost), func(s *session) error {
			var err error
			if pol.Priority, err = priority(b["priority"]); err == nil {
				err = s.e.SetOperatorPolicy(pol)
			}
			if err != nil {
				return policyImportError(err, pol)
			}
			return nil
		})
	}
}

// policies imports the policies one after another.
func (l *stepList) policies(doc *importDoc, vhostOf func(string) string) {
	for _, p := range doc.Policies {
		pol := engine.Policy{Vhost: vhostOf(p.Vhost), Name: p.Name, Pattern: p.Pattern, ApplyTo: p.ApplyTo, Definition: toTable(p.Definition)}
		l.on(policyWeight(pol.Vhost), func(s *session) error {
			var err error
			if pol.Priority, err = priority(p.Priority); err == nil {
				err = s.e.SetPolicy(pol)
			}
			if err != nil {
				return policyImportError(err, pol)
			}
			return nil
		})
	}
}

func (l *stepList) queues(doc *importDoc, vhostOf func(string) string) {
	l.concurrent(len(doc.Queues), func(i int) importStep {
		q := doc.Queues[i]
		vh := vhostOf(q.Vhost)
		return importStep{apply: func(s *session) error {
			if err := noVhost(s, vh); err != nil {
				return err
			}
			if ok, err := s.queueExists(vh, q.Name); ok || err != nil {
				return nil
			}
			return s.run(vh, func(ch engine.ChannelID) error {
				_, err := s.e.QueueDeclare(ch, engine.QueueDeclare{Queue: q.Name, Durable: q.Durable, AutoDelete: q.AutoDelete, Args: toTable(q.Arguments)})
				return err
			})
		}}
	})
}

// bindings imports the bindings, ignoring those that cannot be made. A
// binding walks its source's bindings for a duplicate, so it weighs more
// the more its source has.
func (l *stepList) bindings(doc *importDoc, vhostOf func(string) string) {
	for _, b := range doc.Bindings {
		vh := vhostOf(b.Vhost)
		weight := func(e *engine.Broker) int { return 1 + e.BindingCount(vh, b.Source)/bindingsPerUnit }
		l.on(weight, func(s *session) error {
			if !s.hasVhost(vh) {
				return nil
			}
			s.run(vh, func(ch engine.ChannelID) error {
				if b.DestinationType == "exchange" {
					return s.e.ExchangeBind(ch, engine.ExchangeBind{Source: b.Source, Destination: b.Destination, RoutingKey: b.RoutingKey, Args: toTable(b.Arguments)})
				}
				return s.e.QueueBind(ch, engine.QueueBind{Exchange: b.Source, Queue: b.Destination, RoutingKey: b.RoutingKey, Args: toTable(b.Arguments)})
			})
			return nil
		})
	}
}

// noVhost is the import's error for an item in a vhost that does not
// exist.
func noVhost(s *session, v string) error {
	if !s.hasVhost(v) {
		return badRequest("no_such_vhost: " + v)
	}
	return nil
}

// policyWeight weighs setting a policy in vhost: the command recomputes
// the settings of the vhost's queues up to a batch of them
// (engine.DefaultMaxBatch, which the server's broker keeps), and leaves
// the rest to the engine's continuation, which the broker goroutine runs
// between turns.
func policyWeight(vhost string) func(e *engine.Broker) int {
	return func(e *engine.Broker) int {
		t, _ := e.VhostTotals(vhost)
		return 1 + min(t.Queues, engine.DefaultMaxBatch)/queuesPerUnit
	}
}
