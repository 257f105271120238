package engine

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Policy is a RabbitMQ policy or operator policy: a regular expression over
// queue or exchange names, what it applies to, a priority, and a definition.
type Policy struct {
	Vhost      string
	Name       string
	Pattern    string
	ApplyTo    string // "queues", "exchanges", "all", "classic_queues", "quorum_queues"
	Priority   int
	Definition Table
	re         *regexp.Regexp
}

// policyKeys are the definition keys Warren implements, with their checks.
// Operator policies accept only the ones marked op, as RabbitMQ's do.
var policyKeys = map[string]struct {
	check argCheck
	op    bool
}{
	"message-ttl":             {checkMessageTTL, true},
	"expires":                 {checkExpires, true},
	"max-length":              {checkNonNegInt, true},
	"max-length-bytes":        {checkNonNegInt, true},
	"delivery-limit":          {checkInt, true},
	"overflow":                {checkOverflow, false},
	"dead-letter-exchange":    {checkLongstr, false},
	"dead-letter-routing-key": {checkLongstr, false},
	"alternate-exchange":      {checkLongstr, false},
}

func (b *Broker) validatePolicy(p *Policy, operator bool) *Error {
	if _, ok := b.vhosts[p.Vhost]; !ok {
		return &Error{Code: NotFound, Text: fmt.Sprintf("NOT_FOUND - vhost '%s' not found", p.Vhost)}
	}
	bad := func(format string, args ...any) *Error {
		return &Error{Code: PreconditionFailed, Text: "Validation failed\n\n" + fmt.Sprintf(format, args...)}
	}
	if p.Name == "" {
		return bad("policy name must not be empty")
	}
	re, err := regexp.Compile(p.Pattern)
	if err != nil {
		return bad("<<\"%s\">> is not a valid regular expression", p.Pattern)
	}
	p.re = re
	switch p.ApplyTo {
	case "":
		p.ApplyTo = "all"
	case "queues", "exchanges", "all", "classic_queues", "quorum_queues":
	default:
		return bad("<<\"%s\">> is not a valid apply-to value (expected all, exchanges, queues, classic_queues or quorum_queues)", p.ApplyTo)
	}
	if len(p.Definition) == 0 {
		return bad("no policy definition")
	}
	var unknown []string
	for _, k := range p.Definition.Keys() {
		spec, ok := policyKeys[k]
		if !ok || (operator && !spec.op) {
			unknown = append(unknown, k)
			continue
		}
		if term := spec.check(p.Definition[k], p.Definition); term != "" {
			return bad("invalid value %s for %s: %s", FormatValue(p.Definition[k]), k, term)
		}
	}
	if len(unknown) > 0 {
		return bad("[%s] are not recognised policy settings", strings.Join(unknown, ", "))
	}
	return nil
}

// SetPolicy creates or replaces a policy; it takes effect on existing
// queues and exchanges at once.
func (b *Broker) SetPolicy(p Policy) error { return b.setPolicy(p, false) }

// SetOperatorPolicy creates or replaces an operator policy, whose numeric
// limits cap those of user policies and queue arguments.
func (b *Broker) SetOperatorPolicy(p Policy) error { return b.setPolicy(p, true) }

func (b *Broker) setPolicy(p Policy, operator bool) error {
	p.Definition = p.Definition.Clone()
	if e := b.validatePolicy(&p, operator); e != nil {
		return e
	}
	v := b.vhosts[p.Vhost]
	set := v.policies
	if operator {
		set = v.opPolicies
	}
	set[p.Name] = &p
	b.emit(Event{Kind: EvPolicySet, Vhost: v.name, Name: p.Name, Text: p.describe(operator)})
	v.reapplyPolicies()
	b.flush()
	return nil
}

func (p *Policy) describe(operator bool) string {
	kind := "policy"
	if operator {
		kind = "operator-policy"
	}
	return fmt.Sprintf("%s pattern=%s apply-to=%s priority=%d %s", kind, p.Pattern, p.ApplyTo, p.Priority, FormatValue(p.Definition))
}

// ClearPolicy removes a policy.
func (b *Broker) ClearPolicy(vhost, name string) error { return b.clearPolicy(vhost, name, false) }

// ClearOperatorPolicy removes an operator policy.
func (b *Broker) ClearOperatorPolicy(vhost, name string) error {
	return b.clearPolicy(vhost, name, true)
}

func (b *Broker) clearPolicy(vhost, name string, operator bool) error {
	v, ok := b.vhosts[vhost]
	if !ok {
		return &Error{Code: NotFound, Text: fmt.Sprintf("NOT_FOUND - vhost '%s' not found", vhost)}
	}
	set := v.policies
	if operator {
		set = v.opPolicies
	}
	if _, ok := set[name]; !ok {
		return &Error{Code: NotFound, Text: fmt.Sprintf("NOT_FOUND - policy '%s' not found in vhost '%s'", name, vhost)}
	}
	delete(set, name)
	b.emit(Event{Kind: EvPolicyCleared, Vhost: vhost, Name: name})
	v.reapplyPolicies()
	b.flush()
	return nil
}

// Policies lists a vhost's policies (or operator policies) by name.
func (b *Broker) Policies(vhost string, operator bool) []Policy {
	v, ok := b.vhosts[vhost]
	if !ok {
		return nil
	}
	set := v.policies
	if operator {
		set = v.opPolicies
	}
	out := make([]Policy, 0, len(set))
	for _, p := range set {
		c := *p
		c.Definition = p.Definition.Clone()
		c.re = nil
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (p *Policy) appliesTo(name string, isQueue, quorum bool) bool {
	switch p.ApplyTo {
	case "exchanges":
		if isQueue {
			return false
		}
	case "queues":
		if !isQueue {
			return false
		}
	case "classic_queues":
		if !isQueue || quorum {
			return false
		}
	case "quorum_queues":
		if !isQueue || !quorum {
			return false
		}
	}
	return p.re.MatchString(name)
}

// pick returns the matching policy with the highest priority; ties go to
// the lowest name, so the choice never depends on map order.
func pick(set map[string]*Policy, name string, isQueue, quorum bool) *Policy {
	var best *Policy
	for _, p := range set {
		if !p.appliesTo(name, isQueue, quorum) {
			continue
		}
		if best == nil || p.Priority > best.Priority || (p.Priority == best.Priority && p.Name < best.Name) {
			best = p
		}
	}
	return best
}

func (v *vhost) policyFor(name string, isQueue, quorum bool) *Policy {
	return pick(v.policies, name, isQueue, quorum)
}

// resolveSettings combines arguments, policy and operator policy as
// RabbitMQ does: for message-ttl, expires, max-length, max-length-bytes and
// delivery-limit the lowest value wins; for dead-letter-exchange,
// dead-letter-routing-key and overflow the queue argument wins over the
// policy ("the one specified in arguments overrules the one specified in
// policy").
func (q *queue) resolveSettings() queueSettings {
	v := q.vhost
	pol := v.policyFor(q.name, true, q.quorum)
	op := pick(v.opPolicies, q.name, true, q.quorum)
	s := queueSettings{ttlMs: -1, expiresMs: -1, maxLen: -1, maxBytes: -1, deliveryLimit: -1, overflow: OverflowDropHead}
	if pol != nil {
		s.policy = pol.Name
	}
	if op != nil {
		s.opPolicy = op.Name
	}
	minOf := func(arg, key string) int64 {
		r := int64(-1)
		take := func(t Table, k string) {
			if t == nil {
				return
			}
			if n, ok := asInt64(t[k]); ok && (r < 0 || n < r) {
				r = n
			}
		}
		take(q.args, arg)
		if pol != nil {
			take(pol.Definition, key)
		}
		if op != nil {
			take(op.Definition, key)
		}
		return r
	}
	s.ttlMs = minOf("x-message-ttl", "message-ttl")
	s.expiresMs = minOf("x-expires", "expires")
	s.maxLen = minOf("x-max-length", "max-length")
	s.maxBytes = minOf("x-max-length-bytes", "max-length-bytes")
	if q.quorum {
		// RabbitMQ 4.0 made 20 the default delivery limit of quorum
		// queues; a negative value means unlimited.
		s.deliveryLimit = minOf("x-delivery-limit", "delivery-limit")
		if _, set := q.args["x-delivery-limit"]; !set && (pol == nil || pol.Definition["delivery-limit"] == nil) && (op == nil || op.Definition["delivery-limit"] == nil) {
			s.deliveryLimit = 20
		}
	}
	argOrPolicy := func(arg, key string) (string, bool) {
		if x, ok := q.args[arg].(string); ok {
			return x, true
		}
		if pol != nil {
			if x, ok := pol.Definition[key].(string); ok {
				return x, true
			}
		}
		return "", false
	}
	if o, ok := argOrPolicy("x-overflow", "overflow"); ok {
		s.overflow = o
	}
	if q.quorum && s.overflow == OverflowRejectPublishDLX {
		// rabbit_quorum_queue:overflow/3 accepts reject-publish-dlx but
		// logs "Invalid overflow strategy" and uses drop-head (observed,
		// RabbitMQ 3.10.8: both publishes confirmed, the head
		// dead-lettered with reason maxlen).
		s.overflow = OverflowDropHead
	}
	s.dlx, s.hasDLX = argOrPolicy("x-dead-letter-exchange", "dead-letter-exchange")
	s.dlrk, s.hasDLRK = argOrPolicy("x-dead-letter-routing-key", "dead-letter-routing-key")
	if n, ok := asInt64(q.args["x-max-priority"]); ok && !q.quorum {
		s.maxPriority = int(n)
	}
	return s
}

// reapplyPolicies recomputes every queue's settings after a policy change
// and applies the difference to queued messages: a new message TTL applies
// retroactively, a lower length limit drops from the head, a new x-expires
// lease starts now.
func (v *vhost) reapplyPolicies() {
	for _, q := range v.sortedQueues() {
		old := q.set
		q.set = q.resolveSettings()
		q.set.maxPriority = old.maxPriority
		if old.policy != q.set.policy || old.opPolicy != q.set.opPolicy {
			v.b.emit(Event{Kind: EvQueuePolicyChanged, Vhost: v.name, Queue: q.name, Name: q.set.policy, Text: opPolicyText(q.set.opPolicy)})
		}
		if old.ttlMs != q.set.ttlMs {
			// A copy's expiry is fixed when it is enqueued, so a new
			// message TTL applies only to messages enqueued from now on
			// (observed, RabbitMQ 3.10.8: a policy TTL does not expire
			// messages already queued, and a message enqueued under a
			// policy TTL still expires after the policy is cleared).
			// RabbitMQ does drop expired messages at the head on any
			// policy change.
			q.expireDue()
		}
		if old.expiresMs != q.set.expiresMs {
			q.touchLease()
		}
		if old.maxLen != q.set.maxLen || old.maxBytes != q.set.maxBytes || old.overflow != q.set.overflow {
			q.dropHeadOverflow()
			q.rearmExpiry()
		}
	}
}

func opPolicyText(name string) string {
	if name == "" {
		return ""
	}
	return "operator-policy=" + name
}
