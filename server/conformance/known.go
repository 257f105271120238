package main

import (
	"regexp"
	"strings"
)

// verdictKind classifies a known difference.
type verdictKind string

const (
	// kind4x: Warren follows RabbitMQ's current (4.x) documentation where
	// 3.10.8 behaves otherwise (docs/behaviour.md).
	kind4x verdictKind = "intentional (4.x)"
	// kindGap: something docs/behaviour.md says is not modelled yet.
	kindGap verdictKind = "documented gap"
	// kindBug: Warren is wrong.
	kindBug verdictKind = "Warren bug"
)

// verdict explains the diff lines its pattern matches (the line without
// its "+ "/"- " marker).
type verdict struct {
	kind  verdictKind
	why   string
	lines *regexp.Regexp
}

func v(kind verdictKind, pattern, why string) verdict {
	return verdict{kind: kind, why: why, lines: regexp.MustCompile(pattern)}
}

// everywhere explains differences that any scenario may show.
var everywhere = []verdict{
	v(kind4x, `header x-last-death-(exchange|queue|reason)=`,
		"x-last-death-exchange/-queue/-reason headers are set on dead-lettering (4.x); 3.10.8 has only x-first-death-*"),
}

// known explains, per scenario, the differences the suite expects. A
// changed diff line that no verdict matches makes the run fail; a verdict
// that matches nothing is reported as stale.
var known = map[string][]verdict{
	"queue-args-other": {
		v(kindGap, `queue.declare "q05"`,
			"streams are not modelled (docs/behaviour.md): x-queue-type stream is refused as an unsupported type, where 3.10.8 accepts the type and refuses the non-durable declaration (invalid property 'non-durable')"),
	},
	"dlx-published-x-death": {
		v(kind4x, `header x-death\[0\]=|header x-first-death-`,
			"an x-death header published by a client is not read as history (4.0): the first dead-lettering starts a fresh x-death (count 1) and sets x-first-death-*; 3.10.8 increments the forged entry to count 6 and sets no x-first-death-*"),
	},
	"quorum-delivery-limit": {
		v(kind4x, `rounds:|count "q": messages=|basic\.get "dead"|header x-death|header x-first-death-`,
			"quorum queues have a delivery limit of 20 by default (4.x): the 21st return dead-letters the message with reason delivery_limit; 3.10.8 has no default limit and redelivers forever"),
	},
	"quorum-requeue-order": {
		v(kind4x, `dump "q":`,
			"with 4.x's default delivery limit a quorum queue returns nacked messages near the head (quorum-queues.md, Repeated Requeues), so m2 comes first; 3.10.8, without a limit, puts the nacked m2 at the back"),
	},
	"quorum-sac-priority": {
		v(kind4x, `deliver consumer="p-(low|high)"|^wire c[23] ch1: basic\.deliver`,
			"a quorum queue's single active consumer is chosen by consumer priority (4.x), so p-high is active; 3.10.8 keeps the first registered consumer, p-low"),
	},
	"policy-ttl-existing-messages": {
		v(kind4x, `count "q": messages=|dump "q":`,
			"a policy's message TTL applies to messages already queued (4.x ttl page, \"Per-message TTL Applied Retroactively\"): old1 and old2 expire; 3.10.8 keeps their arrival-time expiry (none), and new expires only on reaching the head"),
	},
}

// explanation is how a scenario's diff was accounted for.
type explanation struct {
	used        []verdict // verdicts that matched at least one line
	unexplained []string  // changed lines no verdict matched
}

// worst is the explanation's overall verdict: unexplained, else bug,
// else intentional or documented.
func (e explanation) worst() string {
	switch {
	case len(e.unexplained) > 0:
		return "unexplained"
	case e.has(kindBug):
		return "bug"
	}
	return "explained"
}

func (e explanation) has(k verdictKind) bool {
	for _, u := range e.used {
		if u.kind == k {
			return true
		}
	}
	return false
}

// explain matches every changed line of a diff against the scenario's
// verdicts and the general ones.
func explain(name string, diff []string) explanation {
	cands := append(append([]verdict(nil), known[name]...), everywhere...)
	usedIdx := map[int]bool{}
	var e explanation
	for _, l := range diff {
		if !strings.HasPrefix(l, "+ ") && !strings.HasPrefix(l, "- ") {
			continue
		}
		matched := false
		for i, c := range cands {
			if c.lines.MatchString(l[2:]) {
				usedIdx[i], matched = true, true
				break
			}
		}
		if !matched {
			e.unexplained = append(e.unexplained, l)
		}
	}
	for i, c := range cands {
		if usedIdx[i] {
			e.used = append(e.used, c)
		}
	}
	return e
}
