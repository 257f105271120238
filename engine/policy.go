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
// Operator policies accept only the ones marked op, as RabbitMQ's do
// (overflow since RabbitMQ 3.12: policies.md lists it for operator
// policies; 3.10.8 still refused it).
// Each names what the value must be, as rabbit_policies's validation
// errors do: "-1 is not a valid message TTL".
//
// The exchange names and the routing key must be short names (see
// shortstr.go): RabbitMQ takes any string, but a message dead-lettered with
// a routing key over 255 bytes could never be delivered.
var policyKeys = map[string]struct {
	check argCheck
	op    bool
	what  string
}{
	"message-ttl":             {policyInts.messageTTL, true, "message TTL"},
	"expires":                 {policyInts.expires, true, "queue expiry"},
	"max-length":              {policyInts.nonNegative, true, "maximum length"},
	"max-length-bytes":        {policyInts.nonNegative, true, "maximum length in bytes"},
	"delivery-limit":          {policyInts.integer, true, "delivery limit"},
	"overflow":                {checkOverflow, true, "overflow value"},
	"dead-letter-exchange":    {checkShortName, false, "dead letter exchange name"},
	"dead-letter-routing-key": {checkShortName, false, "dead letter routing key"},
	"alternate-exchange":      {checkShortName, false, "alternate exchange name"},
}

// erlangTerm prints a policy value as Erlang's ~p does in RabbitMQ's
// validation errors: strings as binaries (<<"abc">>), numbers and booleans
// plainly.
func erlangTerm(v any) string {
	switch x := v.(type) {
	case string:
		return "<<\"" + x + "\">>"
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprintf("%.1f", x)
		}
		return fmt.Sprint(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = erlangTerm(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return FormatValue(v)
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
		// RabbitMQ 3.10.8 (observed): "apply-to 'bogus' unrecognised;
		// should be 'queues', 'exchanges' or 'all'", here with the values
		// Warren knows.
		return bad("apply-to '%s' unrecognised; should be 'queues', 'classic_queues', 'quorum_queues', 'exchanges' or 'all'", p.ApplyTo)
	}
	if len(p.Definition) == 0 {
		return bad("no policy definition")
	}
	// Values are checked first, then unknown keys are reported together
	// (rabbit_policy:validation0/2), in RabbitMQ's words (observed,
	// RabbitMQ 3.10.8: "-1 is not a valid message TTL",
	// "[{<<\"foo\">>,1}] are not recognised policy settings").
	var unknown []string
	for _, k := range p.Definition.Keys() {
		spec, ok := policyKeys[k]
		if !ok || (operator && !spec.op) {
			unknown = append(unknown, "{<<\""+k+"\">>,"+erlangTerm(p.Definition[k])+"}")
			continue
		}
		if term := spec.check(p.Definition[k], p.Definition); term != "" {
			if s, isStr := p.Definition[k].(string); isStr && term == ShortStringProblem(s) {
				return bad("%s is not a valid %s: %s", erlangTerm(clip(s)), spec.what, term)
			}
			return bad("%s is not a valid %s", erlangTerm(p.Definition[k]), spec.what)
		}
	}
	if len(unknown) > 0 {
		return bad("[%s] are not recognised policy settings", strings.Join(unknown, ","))
	}
	return nil
}

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
	if b.dlog != nil {
		b.addDurable(CmdDurablePolicy{Policy: p, Operator: operator})
	}
	b.emit(Event{Kind: EvPolicySet, Vhost: v.name, Name: p.Name, Detail: &EventDetail{Definition: p.describe(operator)}})
	v.policiesChanged()
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
	if b.dlog != nil {
		b.addDurable(CmdDurablePolicy{Policy: Policy{Vhost: vhost, Name: name}, Operator: operator, Clear: true})
	}
	b.emit(Event{Kind: EvPolicyCleared, Vhost: vhost, Name: name})
	v.policiesChanged()
	b.flush()
	return nil
}

// Policies lists a vhost's policies by name.
func (b *Broker) Policies(vhost string) []Policy { return b.policyList(vhost, false) }

// OperatorPolicies lists a vhost's operator policies by name.
func (b *Broker) OperatorPolicies(vhost string) []Policy { return b.policyList(vhost, true) }

func (b *Broker) policyList(vhost string, operator bool) []Policy {
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
// RabbitMQ does: for message-ttl, expires, max-length and max-length-bytes
// the lowest value wins; for dead-letter-exchange and
// dead-letter-routing-key the queue argument wins over the policy ("the one
// specified in arguments overrules the one specified in policy"); overflow
// and delivery-limit have their own rules (resolveOverflow,
// resolveDeliveryLimit).
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
		s.deliveryLimit = q.resolveDeliveryLimit(pol, op)
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
	if o, ok := q.resolveOverflow(pol, op); ok {
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

// resolveOverflow picks the overflow mode. An operator policy's value wins
// over a user policy's (policies.md, operator policy conflicts: overflow
// takes the "operator policy value"). Against the x-overflow argument the
// argument wins for a classic queue (rabbit_amqqueue_process resolves
// overflow with res_arg; observed, RabbitMQ 3.10.8), the policy for a quorum
// queue (policies.md: "The exception to this rule are ... (x-)overflow for
// quorum queues where the policy takes precedence").
func (q *queue) resolveOverflow(pol, op *Policy) (string, bool) {
	var fromPolicy string
	for _, p := range []*Policy{op, pol} {
		if p == nil {
			continue
		}
		if x, ok := p.Definition["overflow"].(string); ok {
			fromPolicy = x
			break
		}
	}
	arg, hasArg := q.args["x-overflow"].(string)
	switch {
	case fromPolicy != "" && (q.quorum || !hasArg):
		return fromPolicy, true
	case hasArg:
		return arg, true
	}
	return "", false
}

// resolveDeliveryLimit is a quorum queue's delivery limit: 20 unless set
// (RabbitMQ 4.0 blog: "Quorum queues now have the delivery limit set to 20 by
// default"). The policy value is the lower of the user and operator
// policies' (rabbit_policies:merge_policy_value); against the argument the
// lower wins too, except that a negative value, meaning unlimited, loses to
// a limit (rabbit_quorum_queue:resolve_delivery_limit/2 takes the max when
// either is negative).
func (q *queue) resolveDeliveryLimit(pol, op *Policy) int64 {
	var pv int64
	hasPolicy := false
	for _, p := range []*Policy{pol, op} {
		if p == nil {
			continue
		}
		if n, ok := asInt64(p.Definition["delivery-limit"]); ok {
			if !hasPolicy || n < pv {
				pv = n
			}
			hasPolicy = true
		}
	}
	av, hasArg := asInt64(q.args["x-delivery-limit"])
	switch {
	case hasPolicy && hasArg && (pv < 0 || av < 0):
		return max(pv, av)
	case hasPolicy && hasArg:
		return min(pv, av)
	case hasPolicy:
		return pv
	case hasArg:
		return av
	}
	return 20
}

// takeUpPolicies resolves the queue's settings again (its priority levels
// stay what they were declared with) and re-times its ready copies by
// them: all a policy change does to the queue but what it does to
// messages, which is all a replay of the durable log does
// (CmdDurableRetime).
func (q *queue) takeUpPolicies() {
	old := q.set
	q.set = q.resolveSettings()
	q.set.maxPriority = old.maxPriority
	q.retime()
}

// applyPolicy recomputes the queue's settings after a policy change
// (queuewalk.go) and applies the difference to queued messages: a new
// message TTL applies retroactively, a lower length limit drops from the
// head, a new x-expires lease starts now.
func (q *queue) applyPolicy() {
	v := q.vhost
	q.policyGen = v.policyGen
	// What expired under the old settings dies by them (backlog.go).
	q.catchUp()
	old := q.set
	q.takeUpPolicies()
	if v.b.dlog != nil && q.durable && !q.deleted && !v.deleted {
		// Its replay does the same; what follows has records.
		v.b.addDurable(CmdDurableRetime{Vhost: v.name, Queue: q.name})
	}
	if old.policy != q.set.policy || old.opPolicy != q.set.opPolicy {
		v.b.emit(Event{Kind: EvQueuePolicyChanged, Vhost: v.name, Queue: q.name, Detail: &EventDetail{Policy: q.set.policy, OperatorPolicy: q.set.opPolicy}})
	}
	// The TTL documentation has a section "Per-message TTL Applied
	// Retroactively (to an Existing Queue)": queues that got a TTL
	// while holding messages "will discard the messages when specific
	// events occur", and classic queues dead-letter expired messages
	// "when the queue is notified of a policy change that affects it".
	// Warren follows the documentation: a lower TTL re-times queued
	// messages from their enqueue time and expired ones at the head go
	// at once. (Observed RabbitMQ 3.10.8 differs: it keeps each
	// message's expiry as computed at enqueue; see message_ttl.txt.)
	// Every policy change re-times (takeUpPolicies), so messages that
	// were unacked at the last change catch up; expired ones at the
	// head go now.
	q.expireDue()
	if old.expiresMs != q.set.expiresMs {
		q.touchLease()
	}
	if old.maxLen != q.set.maxLen || old.maxBytes != q.set.maxBytes || old.overflow != q.set.overflow {
		q.dropHeadOverflow()
		q.rearmExpiry()
	}
}
