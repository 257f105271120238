package mgmt

import (
	"net/http"

	"warren/engine"
)

type queueJSON struct {
	Arguments                  map[string]any `json:"arguments"`
	AutoDelete                 bool           `json:"auto_delete"`
	Consumers                  int            `json:"consumers"`
	Durable                    bool           `json:"durable"`
	EffectivePolicyDefinition  map[string]any `json:"effective_policy_definition"`
	Exclusive                  bool           `json:"exclusive"`
	ExclusiveConsumerTag       *string        `json:"exclusive_consumer_tag"`
	MessageBytes               int64          `json:"message_bytes"`
	MessageBytesReady          int64          `json:"message_bytes_ready"`
	MessageBytesUnacknowledged int64          `json:"message_bytes_unacknowledged"`
	Messages                   int            `json:"messages"`
	MessagesReady              int            `json:"messages_ready"`
	MessagesUnacknowledged     int            `json:"messages_unacknowledged"`
	Name                       string         `json:"name"`
	Node                       string         `json:"node"`
	OperatorPolicy             *string        `json:"operator_policy"`
	Policy                     *string        `json:"policy"`
	SingleActiveConsumerTag    *string        `json:"single_active_consumer_tag"`
	State                      string         `json:"state"`
	Type                       string         `json:"type"`
	Vhost                      string         `json:"vhost"`
}

// optional is s as a JSON string, or null when empty. It copies s into
// a string of its own only when there is one: taking the parameter's
// address would move it to the heap on every call, empty or not, two
// allocations a queue on every listing.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	p := new(string)
	*p = s
	return p
}

func (ix *vhostIndex) queueJSON(q *engine.QueueView) queueJSON {
	unackedBytes := q.UnackedBytes
	j := queueJSON{Arguments: fromTable(q.Args), AutoDelete: q.AutoDelete, Consumers: len(q.Consumers), Durable: q.Durable,
		EffectivePolicyDefinition: ix.effectiveDefinition(q.Effective), Exclusive: q.Exclusive,
		MessageBytes: q.ReadyBytes + unackedBytes, MessageBytesReady: q.ReadyBytes, MessageBytesUnacknowledged: unackedBytes,
		Messages: q.ReadyCount + q.Unacked, MessagesReady: q.ReadyCount, MessagesUnacknowledged: q.Unacked,
		Name: q.Name, Node: ix.node, OperatorPolicy: optional(q.Effective.OperatorPolicy), Policy: optional(q.Effective.Policy),
		State: "running", Type: q.Type, Vhost: ix.v.Name}
	sac, _ := q.Args["x-single-active-consumer"].(bool)
	for _, c := range q.Consumers {
		if c.Exclusive {
			j.ExclusiveConsumerTag = optional(c.Tag)
		}
		if sac && c.Active {
			j.SingleActiveConsumerTag = optional(c.Tag)
		}
	}
	return j
}

// effectiveDefinition is the policy definition in force: the policy's,
// with the operator policy's keys merged in (the lower number wins, as for
// the limits operator policies cap); {} without either, as RabbitMQ
// 3.10.8 shows a queue no policy matches (observed).
func (ix *vhostIndex) effectiveDefinition(s engine.Settings) map[string]any {
	var def engine.Table
	for _, p := range ix.v.Policies {
		if p.Name == s.Policy {
			def = p.Definition.Clone()
		}
	}
	for _, p := range ix.v.OperatorPolicies {
		if p.Name != s.OperatorPolicy {
			continue
		}
		if def == nil {
			def = engine.Table{}
		}
		for k, v := range p.Definition {
			old, ok := def[k].(int64)
			if n, isInt := v.(int64); ok && isInt && old < n {
				continue
			}
			def[k] = v
		}
	}
	return fromTable(def)
}

func (a *api) listQueues(c *call) (int, any, error) { return list(c, queueLister, true) }

// queueItem is a queue's view with its vhost's policies. It points into
// the slice the engine's read returned rather than copying the view
// (300 bytes), which the collector would otherwise pay for twice on every
// listing of 100,000 queues.
type queueItem struct {
	q  *engine.QueueView
	ix *vhostIndex
}

var queueLister = lister[inVhost, queueItem]{
	index: namesIndex(engineReads.QueueNames),
	name:  func(r inVhost) string { return r.name },
	key:   func(r inVhost, k string) (term, bool) { return vhostNameKey(r.vhost, r.name, k) },
	ref:   func(it queueItem) inVhost { return inVhost{it.ix.v.Name, it.q.Name} },
	views: func(c *call, e engineReads, rs []inVhost) []queueItem {
		b := &c.queueBatch
		out, qs := b.items[:0], b.views[:0]
		for len(rs) > 0 {
			n := sameVhost(rs, func(r inVhost) string { return r.vhost })
			ix := newVhostIndex(policyViews(e, rs[0].vhost), c.api.node)
			from := len(qs)
			b.names = appendNames(b.names[:0], rs[:n])
			qs = e.AppendQueueSummaries(qs, rs[0].vhost, b.names)
			for i := from; i < len(qs); i++ {
				out = append(out, queueItem{nil, ix})
			}
			rs = rs[n:]
		}
		// Pointed to once every vhost's views are in, since an append
		// may have moved them.
		for i := range out {
			out[i].q = &qs[i]
		}
		b.items, b.views = out, qs
		return out
	},
	render: func(_ *call, it queueItem) any { return it.ix.queueJSON(it.q) },
	reuse: func() func(*call, queueItem) any {
		var j queueJSON
		return func(_ *call, it queueItem) any { j = it.ix.queueJSON(it.q); return &j }
	},
}

func (a *api) getQueue(c *call) (int, any, error) {
	vhost, name := c.r.PathValue("vhost"), c.r.PathValue("name")
	var qs []engine.QueueView
	var ix *vhostIndex
	var err error
	rerr := a.read(func(e engineReads) {
		if _, err = c.scopeNames(e.Vhosts()); err != nil {
			return
		}
		if qs = e.QueueSummaries(vhost, []string{name}); len(qs) == 0 {
			return
		}
		v := policyViews(e, vhost)
		var ids []engine.ConnID
		for _, cv := range qs[0].Consumers {
			ids = append(ids, cv.Channel.Conn)
		}
		v.Connections = e.ConnectionSummaries(ids)
		ix = newVhostIndex(v, a.node)
	})
	if rerr != nil {
		return 0, nil, rerr
	}
	if err != nil {
		return 0, nil, err
	}
	if len(qs) == 0 {
		return 0, nil, errNotFound
	}
	a.reads.views.Add(1)
	return http.StatusOK, struct {
		ConsumerDetails []consumerJSON `json:"consumer_details"`
		queueJSON
		Deliveries []any `json:"deliveries"`
		Incoming   []any `json:"incoming"`
	}{ix.consumers(&qs[0]), ix.queueJSON(&qs[0]), []any{}, []any{}}, nil
}

// queueProbe is a passive declare, needing no permission: it finds
// whether the queue exists. That renews an x-expires lease, as any
// declare does; the callers act on the queue in the same turn.
func queueProbe(name string) engine.Command {
	return engine.CmdQueueDeclare{Declare: engine.QueueDeclare{Queue: name, Passive: true}}
}

// putQueue is PUT /api/queues/{vhost}/{name} with {"durable": ..,
// "auto_delete": .., "arguments": {..}}: queue.declare, 201 when created,
// 204 when an equivalent one existed. An exclusive queue cannot be
// declared here: its owner would be the request's own connection.
func (a *api) putQueue(c *call) (int, any, error) {
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	d := engine.QueueDeclare{Queue: c.r.PathValue("name")}
	if e := checkName("queue", d.Queue); e != nil {
		return 0, nil, e
	}
	if d.Durable, err = b.boolean("durable", false); err != nil {
		return 0, nil, err
	}
	if d.AutoDelete, err = b.boolean("auto_delete", false); err != nil {
		return 0, nil, err
	}
	if d.Args, err = b.table("arguments"); err != nil {
		return 0, nil, err
	}
	vhost := c.r.PathValue("vhost")
	existed := false
	err = a.do(c.user.Name, func(s *session) error {
		if err := c.writeTo(s, vhost); err != nil {
			return err
		}
		var r engine.Result
		if existed, r, err = s.probed(vhost, queueProbe(d.Queue), engine.CmdQueueDeclare{Declare: d}); err != nil {
			return err
		}
		return r.Err
	})
	if err != nil {
		return 0, nil, err
	}
	if existed {
		return http.StatusNoContent, nil, nil
	}
	return http.StatusCreated, nil, nil
}

// deleteQueue is DELETE /api/queues/{vhost}/{name}[?if-unused=true]
// [&if-empty=true]; a failed condition is 400 "queue 'q' in vhost '/' not
// empty" (or "in use").
func (a *api) deleteQueue(c *call) (int, any, error) {
	vhost := c.r.PathValue("vhost")
	q := c.r.URL.Query()
	d := engine.QueueDelete{Queue: c.r.PathValue("name"), IfUnused: q.Get("if-unused") == "true", IfEmpty: q.Get("if-empty") == "true"}
	err := a.do(c.user.Name, func(s *session) error {
		if err := c.writeTo(s, vhost); err != nil {
			return err
		}
		return s.probedDelete(vhost, queueProbe(d.Queue), engine.CmdQueueDelete{Delete: d})
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}

// purgeQueue is DELETE /api/queues/{vhost}/{name}/contents. A missing
// queue is 404 before any permission check (observed, RabbitMQ 3.10.8).
func (a *api) purgeQueue(c *call) (int, any, error) {
	vhost, name := c.r.PathValue("vhost"), c.r.PathValue("name")
	err := a.do(c.user.Name, func(s *session) error {
		if err := c.writeTo(s, vhost); err != nil {
			return err
		}
		return s.probedDelete(vhost, queueProbe(name), engine.CmdQueuePurge{Queue: name})
	})
	if isEngineCode(err, engine.NotFound) {
		err = errNotFound
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}
