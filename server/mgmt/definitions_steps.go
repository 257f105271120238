package mgmt

import (
	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
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
		l.here(func(r engineReads) error {
			if _, ok := r.VhostTotals(pathVhost); !ok {
				return errNotFound
			}
			return nil
		})
		l.exchanges(doc, vhostOf)
		l.operatorPolicies(doc, vhostOf)
		l.policies(doc, vhostOf)
	} else {
		l.concurrent(len(doc.Vhosts), func(i int) importStep {
			return importStep{st: broker.Step{Cmd: engine.CmdAddVhost{Name: doc.Vhosts[i].Name}},
				done: func(res broker.StepResult) error { return res.Err }}
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

// add adds a step for the owner.
func (l *stepList) add(st importStep) { l.steps = append(l.steps, st) }

// here adds a step run here, between two turns.
func (l *stepList) here(f func(r engineReads) error) {
	l.steps = append(l.steps, importStep{here: f})
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
		done := st.done
		st.done = func(res broker.StepResult) error {
			if err := done(res); err != nil && first == nil {
				first = err
			}
			return nil
		}
		l.add(st)
	}
	l.here(func(engineReads) error { return first })
}

// grants adds a category of n permissions (or topic permissions), item i
// being user's in vhost, which imp imports through the auth.Store. The
// vhosts are read first, then the Store applies each item to the engine
// (as a PUT of a permission does), and the engine hands open connections
// their new permissions as it takes them. The category fails with its
// first failure in document order.
func (a *api) grants(l *stepList, n int, userVhost func(i int) (user, vhost string), imp func(i int) error) {
	if n == 0 {
		return
	}
	l.here(func(r engineReads) error {
		failed := make([]error, n)
		for i := 0; i < n; i++ {
			_, vhost := userVhost(i)
			failed[i] = noVhost(r, vhost)
		}
		for i := 0; i < n; i++ {
			if failed[i] != nil {
				continue
			}
			if err := imp(i); err != nil {
				failed[i] = usersErr(err, badRequest(err.Error()))
			}
		}
		for _, err := range failed {
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// declared reads the result of a declare unless it exists: a vhost that
// does not exist is the import's error, an existing object is left as it
// is.
func declared(vhost string) func(res broker.StepResult) error {
	return func(res broker.StepResult) error {
		switch {
		case res.Err == broker.ErrNoVhost:
			return badRequest("no_such_vhost: " + vhost)
		case res.Skipped:
			return nil
		}
		return res.Err
	}
}

func (l *stepList) exchanges(doc *importDoc, vhostOf func(string) string) {
	l.concurrent(len(doc.Exchanges), func(i int) importStep {
		x := doc.Exchanges[i]
		vh := vhostOf(x.Vhost)
		return importStep{st: broker.Step{Vhost: vh, Unless: exchangeProbe(x.Name), Cmd: engine.CmdExchangeDeclare{Declare: engine.ExchangeDeclare{
			Exchange: x.Name, Type: x.Type, Durable: x.Durable, AutoDelete: x.AutoDelete, Internal: x.Internal, Args: toTable(x.Arguments)}}},
			done: declared(vh)}
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
		var err error
		pol.Priority, err = priority(b["priority"])
		l.policy(pol, true, err)
	}
}

// policies imports the policies one after another.
func (l *stepList) policies(doc *importDoc, vhostOf func(string) string) {
	for _, p := range doc.Policies {
		pol := engine.Policy{Vhost: vhostOf(p.Vhost), Name: p.Name, Pattern: p.Pattern, ApplyTo: p.ApplyTo, Definition: toTable(p.Definition)}
		var err error
		pol.Priority, err = priority(p.Priority)
		l.policy(pol, false, err)
	}
}

// policy adds the step that sets pol, whose priority failed to read when
// err is set: the import stops at a policy that fails.
func (l *stepList) policy(pol engine.Policy, operator bool, err error) {
	if err != nil {
		l.here(func(engineReads) error { return policyImportError(err, pol) })
		return
	}
	l.add(importStep{weight: policyWeight(pol.Vhost), stops: true,
		st: broker.Step{Cmd: engine.CmdSetPolicy{Policy: pol, Operator: operator}},
		done: func(res broker.StepResult) error {
			if res.Err != nil {
				return policyImportError(res.Err, pol)
			}
			return nil
		}})
}

func (l *stepList) queues(doc *importDoc, vhostOf func(string) string) {
	l.concurrent(len(doc.Queues), func(i int) importStep {
		q := doc.Queues[i]
		vh := vhostOf(q.Vhost)
		return importStep{st: broker.Step{Vhost: vh, Unless: queueProbe(q.Name), Cmd: engine.CmdQueueDeclare{Declare: engine.QueueDeclare{
			Queue: q.Name, Durable: q.Durable, AutoDelete: q.AutoDelete, Args: toTable(q.Arguments)}}},
			done: declared(vh)}
	})
}

// bindings imports the bindings, ignoring those that cannot be made (a
// vhost missing included). A binding walks its source's bindings for a
// duplicate, so it weighs more the more its source has.
func (l *stepList) bindings(doc *importDoc, vhostOf func(string) string) {
	for _, b := range doc.Bindings {
		vh := vhostOf(b.Vhost)
		var cmd engine.Command = engine.CmdQueueBind{Bind: engine.QueueBind{Exchange: b.Source, Queue: b.Destination, RoutingKey: b.RoutingKey, Args: toTable(b.Arguments)}}
		if b.DestinationType == "exchange" {
			cmd = engine.CmdExchangeBind{Bind: engine.ExchangeBind{Source: b.Source, Destination: b.Destination, RoutingKey: b.RoutingKey, Args: toTable(b.Arguments)}}
		}
		l.add(importStep{source: &bindingSource{vh, b.Source}, st: broker.Step{Vhost: vh, Cmd: cmd},
			done: func(broker.StepResult) error { return nil }})
	}
}

// noVhost is the import's error for an item in a vhost that does not
// exist.
func noVhost(r engineReads, v string) error {
	if _, ok := r.VhostTotals(v); !ok {
		return badRequest("no_such_vhost: " + v)
	}
	return nil
}

// policyWeight weighs setting a policy in vhost: the command recomputes
// the settings of the vhost's queues up to a batch of them
// (engine.DefaultMaxBatch, which the server's broker keeps), and leaves
// the rest to the engine's continuation, which the broker's owner runs
// between turns.
func policyWeight(vhost string) func(r engineReads) int {
	return func(r engineReads) int {
		t, _ := r.VhostTotals(vhost)
		return 1 + min(t.Queues, engine.DefaultMaxBatch)/queuesPerUnit
	}
}
