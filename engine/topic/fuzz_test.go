package topic

import (
	"strings"
	"testing"
)

// FuzzMatch binds each line of patterns (values repeat so that deduplication
// is exercised), matches key, then removes every other binding and matches
// again, comparing both results with the reference.
func FuzzMatch(f *testing.F) {
	f.Add("#\n*\na.#\n#.a", "a")
	f.Add("a.*.#\n\n.", "")
	f.Add("#.#.#.#.#.a\n*.*", "a..b")
	f.Add("a..b\na.*.b\n#.b", "a..b")
	f.Add("a.\n.a\n*.\n.*", "a.")
	f.Fuzz(func(t *testing.T, patterns, key string) {
		lines := strings.Split(patterns, "\n")
		if len(lines) > 64 || len(patterns) > 1024 || len(key) > 256 {
			t.Skip()
		}
		var tr Trie[int]
		bound := make(map[pair]bool)
		for i, p := range lines {
			b := pair{p, i % 5}
			if got := tr.Add(b.pattern, b.v); got == bound[b] {
				t.Fatalf("Add(%q, %d) = %v", b.pattern, b.v, got)
			}
			bound[b] = true
		}
		checkMatch(t, &tr, bound, key)
		for i, p := range lines {
			if i%2 == 1 {
				b := pair{p, i % 5}
				if got := tr.Remove(b.pattern, b.v); got != bound[b] {
					t.Fatalf("Remove(%q, %d) = %v", b.pattern, b.v, got)
				}
				delete(bound, b)
			}
		}
		if tr.Len() != len(bound) {
			t.Fatalf("Len = %d, want %d", tr.Len(), len(bound))
		}
		checkMatch(t, &tr, bound, key)
	})
}
