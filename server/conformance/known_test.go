package main

import "testing"

// TestKnownNamesScenarios catches a verdict filed under a scenario name
// that does not exist (a typo would leave it unused and its difference
// unexplained).
func TestKnownNamesScenarios(t *testing.T) {
	names := map[string]bool{}
	for _, sc := range allScenarios() {
		if names[sc.name] {
			t.Errorf("scenario %q is defined twice", sc.name)
		}
		names[sc.name] = true
	}
	for name := range known {
		if !names[name] {
			t.Errorf("known.go explains %q, which is no scenario", name)
		}
	}
}

func TestExplain(t *testing.T) {
	// A scenario of the test's own, with one bug verdict, beside a real
	// 4.x verdict; removed again afterwards.
	known["explain-test"] = append([]verdict{
		v(kindBug, `c2\.10: queue\.unbind`, "a bug for the test"),
	}, known["ttl-queue"]...)
	defer delete(known, "explain-test")
	diff := []string{
		"  same line",
		"+ c1.1:     header x-last-death-queue=longstr:\"q\"",
		"- c2.10: queue.unbind \"q\" \"x\" key=\"\": ok",
		"+ something new",
	}
	e := explain("explain-test", diff)
	if len(e.unexplained) != 1 || e.unexplained[0] != "+ something new" {
		t.Errorf("unexplained %q", e.unexplained)
	}
	if len(e.used) != 2 || e.worst() != "unexplained" {
		t.Errorf("used %d verdicts, worst %q", len(e.used), e.worst())
	}
	if e := explain("explain-test", diff[:3]); e.worst() != "bug" {
		t.Errorf("worst %q, want bug", e.worst())
	}
	if e := explain("ttl-queue", diff[:2]); e.worst() != "explained" {
		t.Errorf("worst %q, want explained", e.worst())
	}
}
