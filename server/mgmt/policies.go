package mgmt

import (
	"encoding/json"
	"net/http"

	"warren/engine"
)

// policies serves /api/policies or, with operator, /api/operator-policies:
// the same shapes, different sets.
type policies struct {
	a        *api
	path     string
	operator bool
}

type policyJSON struct {
	Vhost      string         `json:"vhost"`
	Name       string         `json:"name"`
	Pattern    string         `json:"pattern"`
	ApplyTo    string         `json:"apply-to"`
	Definition map[string]any `json:"definition"`
	Priority   int            `json:"priority"`
}

func toPolicyJSON(p engine.Policy) policyJSON {
	return policyJSON{Vhost: p.Vhost, Name: p.Name, Pattern: p.Pattern, ApplyTo: p.ApplyTo, Definition: fromTable(p.Definition), Priority: p.Priority}
}

func (p *policies) list(c *call) (int, any, error) {
	var pols []engine.Policy
	var err error
	if rerr := p.a.read(func(e engineReads) {
		var vhosts []string
		if vhosts, err = c.scopeNames(e.Vhosts()); err != nil {
			return
		}
		for _, v := range vhosts {
			pols = append(pols, p.listIn(e, v)...)
		}
	}); rerr != nil {
		return 0, nil, rerr
	}
	if err != nil {
		return 0, nil, err
	}
	out := []policyJSON{}
	for _, pol := range pols {
		out = append(out, toPolicyJSON(pol))
	}
	return http.StatusOK, out, nil
}

// listIn lists vhost's policies of p's kind.
func (p *policies) listIn(e engineReads, vhost string) []engine.Policy {
	if p.operator {
		return e.OperatorPolicies(vhost)
	}
	return e.Policies(vhost)
}

// find looks a policy up.
func (p *policies) find(s *session, vhost, name string) (engine.Policy, bool) {
	for _, pol := range p.listIn(s.r, vhost) {
		if pol.Name == name {
			return pol, true
		}
	}
	return engine.Policy{}, false
}

func (p *policies) get(c *call) (int, any, error) {
	vhost, name := c.r.PathValue("vhost"), c.r.PathValue("name")
	if err := c.requireSee(vhost); err != nil {
		return 0, nil, err
	}
	var pol engine.Policy
	err := p.a.do(c.user.Name, func(s *session) error {
		var ok bool
		if pol, ok = p.find(s, vhost, name); !ok {
			return errNotFound
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, toPolicyJSON(pol), nil
}

// put is PUT /api/policies/{vhost}/{name} with {"pattern": .., "definition":
// {..}, "priority": N, "apply-to": ..}. The definition's JSON numbers reach
// the engine as int64 when integral (see toValue), which is what its
// validation and limits expect. The engine's validation errors are
// RabbitMQ's: 400 "Validation failed\n\n-1 is not a valid message TTL\n".
func (p *policies) put(c *call) (int, any, error) {
	vhost, name := c.r.PathValue("vhost"), c.r.PathValue("name")
	if err := c.requirePolicyTags(p.operator); err != nil {
		return 0, nil, err
	}
	if e := checkName("policy", name); e != nil {
		return 0, nil, e
	}
	b, err := readBody(c.r)
	if err != nil {
		return 0, nil, err
	}
	for _, k := range []string{"pattern", "definition"} {
		if _, ok := b[k]; !ok {
			return 0, nil, keyMissing(k)
		}
	}
	pol := engine.Policy{Vhost: vhost, Name: name}
	if pol.Pattern, err = b.str("pattern", ""); err != nil {
		return 0, nil, err
	}
	if pol.ApplyTo, err = b.str("apply-to", "all"); err != nil {
		return 0, nil, err
	}
	if pol.Definition, err = b.table("definition"); err != nil {
		return 0, nil, err
	}
	if pol.Priority, err = priority(b["priority"]); err != nil {
		return 0, nil, err
	}
	existed := false
	err = p.a.do(c.user.Name, func(s *session) error {
		if err := c.writeTo(s, vhost); err != nil {
			return err
		}
		_, existed = p.find(s, vhost, name)
		_, err := s.apply(engine.CmdSetPolicy{Policy: pol, Operator: p.operator})
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	if existed {
		return http.StatusNoContent, nil, nil
	}
	return http.StatusCreated, nil, nil
}

// priority reads a policy priority: an integer, 0 when absent. Anything
// else fails validation with RabbitMQ's words (observed, 3.10.8: "priority
// should be a number, actually was <<\"3\">>").
func priority(v any) (int, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case json.Number:
		if n, err := x.Int64(); err == nil && n == int64(int32(n)) {
			return int(n), nil
		}
	}
	term := ""
	switch x := v.(type) {
	case string:
		term = `<<"` + x + `">>`
	default:
		term = quote(x)
	}
	return 0, badRequest("Validation failed\n\npriority should be a number, actually was " + term + "\n")
}

func (p *policies) delete(c *call) (int, any, error) {
	vhost, name := c.r.PathValue("vhost"), c.r.PathValue("name")
	if err := c.requirePolicyTags(p.operator); err != nil {
		return 0, nil, err
	}
	err := p.a.do(c.user.Name, func(s *session) error {
		if err := c.writeTo(s, vhost); err != nil {
			return err
		}
		if _, ok := p.find(s, vhost, name); !ok {
			return errNotFound
		}
		_, err := s.apply(engine.CmdClearPolicy{Vhost: vhost, Name: name, Operator: p.operator})
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}
