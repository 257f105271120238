package warren_test

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"testing"
)

// The language of depsRules, Go's own (src/internal/dag, used by
// go/build/deps_test.go): rules separated by semicolons, "#" to the end
// of a line a comment.
//
//	a, b < c, d;     c and d may import a and b, and what those may
//	a < b < c;       b may import a; c may import b and so a
//	a, b !< c, d;    c and d must not depend on a or b, even indirectly
//
// Every name on the right of "<" is defined there, once; every name on
// its left must be defined above it (NONE is defined from the start), so
// the rules read bottom-up and cannot make a cycle. An upper-case name is
// a group, not a package: what it stands for is what it may import.
// Only "!<" takes patterns: "x/..." is x and every package below it (as
// in go list), "*" one path element (as in path.Match), and a group on
// its left stands for its packages.

// policy is depsRules parsed.
type policy struct {
	order   []string                   // every name, as defined
	allowed map[string]map[string]bool // what a name may import, transitively
	never   []neverRule
}

// neverRule is one "a !< b" rule as written, patterns unexpanded.
type neverRule struct {
	less, more []string
	text       string
}

func isGroup(name string) bool { return name == strings.ToUpper(name) && strings.ToLower(name) != name }

func parsePolicy(rules string) (*policy, error) {
	p := &policy{
		allowed: map[string]map[string]bool{"NONE": {}},
	}
	var lines []string
	for _, line := range strings.Split(rules, "\n") {
		line, _, _ = strings.Cut(line, "#")
		lines = append(lines, line)
	}
	for _, rule := range strings.Split(strings.Join(lines, " "), ";") {
		rule = strings.Join(strings.Fields(rule), " ")
		if rule == "" {
			continue
		}
		if less, more, ok := strings.Cut(rule, "!<"); ok {
			l, err := parseList(less)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", rule, err)
			}
			m, err := parseList(more)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", rule, err)
			}
			p.never = append(p.never, neverRule{less: l, more: m, text: rule})
			continue
		}
		parts := strings.Split(rule, "<")
		if len(parts) < 2 {
			return nil, fmt.Errorf("%q: no < in the rule", rule)
		}
		less, err := parseList(parts[0])
		if err != nil {
			return nil, fmt.Errorf("%q: %v", rule, err)
		}
		for _, part := range parts[1:] {
			more, err := parseList(part)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", rule, err)
			}
			for _, x := range less {
				if p.allowed[x] == nil {
					return nil, fmt.Errorf("%q: %s is used before its own rule", rule, x)
				}
			}
			for _, y := range more {
				if p.allowed[y] != nil {
					return nil, fmt.Errorf("%q: %s has a rule already", rule, y)
				}
				set := map[string]bool{}
				for _, x := range less {
					if x == "NONE" {
						continue
					}
					set[x] = true
					for z := range p.allowed[x] {
						set[z] = true
					}
				}
				p.allowed[y] = set
				p.order = append(p.order, y)
			}
			less = more
		}
	}
	return p, nil
}

func parseList(s string) ([]string, error) {
	var names []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("bad list %q", strings.TrimSpace(s))
		}
		names = append(names, name)
	}
	return names, nil
}

// may reports whether the rules let pkg import imp.
func (p *policy) may(pkg, imp string) bool { return p.allowed[pkg][imp] }

// packages is what a name stands for: a package itself, a group the
// packages it may import.
func (p *policy) packages(name string) []string {
	if !isGroup(name) {
		return []string{name}
	}
	var pkgs []string
	for x := range p.allowed[name] {
		if !isGroup(x) {
			pkgs = append(pkgs, x)
		}
	}
	sort.Strings(pkgs)
	return pkgs
}

// expand resolves a "!<" list: names must have rules, patterns must match
// a name that has one.
func (p *policy) expand(list []string) ([]string, error) {
	var out []string
	for _, pat := range list {
		if !strings.Contains(pat, "*") && !strings.HasSuffix(pat, "...") {
			if p.allowed[pat] == nil {
				return nil, fmt.Errorf("%s has no rule", pat)
			}
			out = append(out, pat)
			continue
		}
		n := len(out)
		for _, name := range p.order {
			if !isGroup(name) && matchPattern(pat, name) {
				out = append(out, name)
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s matches no package", pat)
		}
	}
	return out, nil
}

// checkNever checks every "!<" rule against the "<" rules.
func (p *policy) checkNever() []error {
	var errs []error
	for _, rule := range p.never {
		less, err := p.expand(rule.less)
		if err == nil {
			var more []string
			if more, err = p.expand(rule.more); err == nil {
				for _, m := range more {
					for _, l := range less {
						for _, x := range p.packages(l) {
							if p.may(m, x) {
								errs = append(errs, fmt.Errorf("%s may import %s, against %q", m, x, rule.text))
							}
						}
					}
				}
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%q: %v", rule.text, err))
		}
	}
	return errs
}

// matchPattern matches a package name against "x/..." (x and below, as
// go list does; "..." alone is everything) or a path.Match pattern.
func matchPattern(pat, name string) bool {
	if pat == "..." {
		return true
	}
	if prefix, ok := strings.CutSuffix(pat, "/..."); ok {
		return name == prefix || strings.HasPrefix(name, prefix+"/")
	}
	ok, _ := path.Match(pat, name)
	return ok
}

// TestDepsRulesLanguage shows what the language accepts and refuses, so
// that a mistake in depsRules is reported as one rather than passing.
func TestDepsRulesLanguage(t *testing.T) {
	for _, tc := range []struct {
		rules string
		may   string // "pkg imp" pairs that must be allowed
		mayNo string // and pairs that must not
		err   string // a parse error, or a broken "!<" rule
	}{
		{rules: "NONE < a < b < c;", may: "b a, c a, c b", mayNo: "a b, b c"},
		{rules: "NONE < x, y < G; # a group\nG < p;", may: "p x, p y, p G", mayNo: "G p"},
		{rules: "NONE < a; b < c;", err: "b is used before its own rule"},
		{rules: "NONE < a; NONE < a;", err: "a has a rule already"},
		{rules: "NONE < a < b; a < b;", err: "b has a rule already"},
		{rules: "a, b c < d;", err: "bad list"},
		{rules: "NONE < a", err: ""},
		{rules: "NONE < a; a", err: "no < in the rule"},
		{rules: "NONE < t < T; T < e, e/x, e/x/y; T !< e, e/*;", err: `e may import t, against "T !< e, e/*"`},
		{rules: "NONE < t < T; T < e/x/y; T !< e/*;", err: `"T !< e/*": e/* matches no package`},
		{rules: "NONE < s, s/a; s/a < e; s/... !< e;", err: `e may import s/a, against "s/... !< e"`},
		{rules: "NONE < s; s !< q;", err: `"s !< q": q has no rule`},
	} {
		p, err := parsePolicy(tc.rules)
		if err == nil {
			if errs := p.checkNever(); len(errs) > 0 {
				err = errs[0]
			}
		}
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tc.err == "" && got != "" || !strings.Contains(got, tc.err) {
			t.Errorf("%q: error %q, want one with %q", tc.rules, got, tc.err)
			continue
		}
		if err != nil {
			continue
		}
		for _, pair := range strings.Split(tc.may, ",") {
			if f := strings.Fields(pair); len(f) == 2 && !p.may(f[0], f[1]) {
				t.Errorf("%q: %s may not import %s", tc.rules, f[0], f[1])
			}
		}
		for _, pair := range strings.Split(tc.mayNo, ",") {
			if f := strings.Fields(pair); len(f) == 2 && p.may(f[0], f[1]) {
				t.Errorf("%q: %s may import %s", tc.rules, f[0], f[1])
			}
		}
	}
}
