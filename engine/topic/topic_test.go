package topic

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"
)

// words splits s the way RabbitMQ does; the reference matcher uses it
// independently of the package's own split so that a bug there shows up.
func words(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ".")
}

// refMatch is the specification: a direct recursive reading of the topic
// rules over word slices. It is memoised on (pattern, key) positions only so
// that many-"#" inputs from the fuzzer stay fast; the recursion is unchanged.
func refMatch(pattern, key string) bool {
	p, k := words(pattern), words(key)
	memo := make(map[[2]int]bool)
	var match func(i, j int) bool
	match = func(i, j int) bool {
		at := [2]int{i, j}
		if r, ok := memo[at]; ok {
			return r
		}
		var r bool
		switch {
		case i == len(p):
			r = j == len(k)
		case p[i] == "#":
			r = match(i+1, j) || (j < len(k) && match(i, j+1))
		case j == len(k):
			r = false
		case p[i] == "*":
			r = match(i+1, j+1)
		default:
			r = p[i] == k[j] && match(i+1, j+1)
		}
		memo[at] = r
		return r
	}
	return match(0, 0)
}

func TestSemantics(t *testing.T) {
	tests := []struct {
		pattern, key string
		want         bool
	}{
		{"", "", true},
		{"", "a", false},
		{"", ".", false},
		{"#", "", true},
		{"#", "a", true},
		{"#", "a.b.c", true},
		{"#", ".", true},
		{"*", "", false},
		{"*", "a", true},
		{"*", "a.b", false},
		{"*", ".", false},
		{"*.*", ".", true},
		{"#.#", "", true},
		{"#.#", "a", true},
		{"#.#", "a.b.c", true},
		{"a.#", "a", true},
		{"a.#", "a.b", true},
		{"a.#", "a.b.c", true},
		{"a.#", "b", false},
		{"#.a", "a", true},
		{"#.a", "b.a", true},
		{"#.a", "a.b", false},
		{"a.*.#", "a.b", true},
		{"a.*.#", "a.b.c", true},
		{"a.*.#", "a", false},
		{"a.*", "a.", true},
		{"*.a", ".a", true},
		{"a.*.b", "a..b", true},
		{"a.b", "a..b", false},
		{"a..b", "a..b", true},
		{"a.", "a", false},
		{"a.", "a.", true},
		{".", "", false},
		{".", ".", true},
		{"*", "*", true},
		{"#", "#", true},
		{"a", "A", false},
		{"A.b", "A.b", true},
		{"a.#.b", "a.b", true},
		{"a.#.b", "a.x.y.b", true},
		{"a.#.b", "a.x.y.c", false},
		{"#.b.#", "b", true},
		{"#.b.#", "a.c", false},
		{"*.#.*", "a", false},
		{"*.#.*", "a.b", true},
		{"stock.*.nyse", "stock.ABC.nyse", true},
		{"stock.*.nyse", "stock.ABC.nasdaq", false},
	}
	for _, tt := range tests {
		if got := refMatch(tt.pattern, tt.key); got != tt.want {
			t.Errorf("reference: %q vs %q = %v, want %v", tt.pattern, tt.key, got, tt.want)
		}
		var tr Trie[int]
		tr.Add(tt.pattern, 1)
		got := len(tr.Match(tt.key, nil)) == 1
		if got != tt.want {
			t.Errorf("Trie: %q vs %q = %v, want %v", tt.pattern, tt.key, got, tt.want)
		}
	}
}

func TestAddRemoveLen(t *testing.T) {
	var tr Trie[string]
	if tr.Remove("a", "x") {
		t.Fatal("Remove on empty Trie reported true")
	}
	if got := tr.Match("a", nil); len(got) != 0 {
		t.Fatalf("Match on empty Trie = %v", got)
	}
	if !tr.Add("a.*", "x") || tr.Add("a.*", "x") {
		t.Fatal("Add must report true once, then false for the same pair")
	}
	if !tr.Add("a.*", "y") || !tr.Add("a.#", "x") {
		t.Fatal("Add of a new pair reported false")
	}
	if tr.Len() != 3 {
		t.Fatalf("Len = %d, want 3", tr.Len())
	}
	// x is bound twice but must be delivered once.
	if got := tr.Match("a.b", nil); !slices.Equal(got, []string{"x", "y"}) {
		t.Fatalf("Match = %v, want [x y]", got)
	}
	if tr.Remove("a.b", "x") || tr.Remove("a.*", "z") {
		t.Fatal("Remove of an absent pair reported true")
	}
	for _, r := range []struct{ p, v string }{{"a.*", "x"}, {"a.*", "y"}, {"a.#", "x"}} {
		if !tr.Remove(r.p, r.v) {
			t.Fatalf("Remove(%q, %q) reported false", r.p, r.v)
		}
	}
	if tr.Len() != 0 || !tr.root.empty() {
		t.Fatalf("after removing everything: Len = %d, root empty = %v", tr.Len(), tr.root.empty())
	}
	if len(tr.entries) != 0 {
		t.Fatalf("value records leaked: %d", len(tr.entries))
	}
}

func TestMatchAppends(t *testing.T) {
	var tr Trie[int]
	tr.Add("a", 1)
	out := tr.Match("a", []int{7})
	if !slices.Equal(out, []int{7, 1}) {
		t.Fatalf("Match = %v, want [7 1]", out)
	}
}

func TestNoAllocs(t *testing.T) {
	tr := benchTrie(1000)
	out := make([]int, 0, 1024)
	keys := benchKeys(64)
	for _, k := range keys { // let the scratch space reach its final size
		tr.Match(k, out[:0])
	}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		tr.Match(keys[i%len(keys)], out[:0])
		i++
	})
	if allocs != 0 {
		t.Fatalf("Match allocates %v times per call", allocs)
	}
}

// TestManyHashes guards against backtracking blow-up: a naive matcher needs
// on the order of C(words+hashes, hashes) steps here.
func TestManyHashes(t *testing.T) {
	var tr Trie[int]
	tr.Add("#.#.#.#.#.a", 1)
	tr.Add(strings.Repeat("#.", 40)+"a", 2)
	key := strings.Repeat("x.", 200) + "b"
	start := time.Now()
	if got := tr.Match(key, nil); len(got) != 0 {
		t.Fatalf("Match = %v, want nothing", got)
	}
	if got := tr.Match(strings.Repeat("x.", 30)+"a", nil); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("Match = %v, want [1 2]", got)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("matching took %v", d)
	}
}

// randWords builds a '.'-joined string of up to max words from alphabet. It
// returns "" for zero words, which is also how a single empty word is
// spelled, so both cases get exercised.
func randWords(r *rand.Rand, alphabet []string, max int) string {
	n := r.Intn(max + 1)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = alphabet[r.Intn(len(alphabet))]
	}
	return strings.Join(ws, ".")
}

var (
	patternAlphabet = []string{"a", "b", "", "*", "#", "#", "*"}
	keyAlphabet     = []string{"a", "b", "", "c", "*", "#"}
)

type pair struct {
	pattern string
	v       int
}

// expect computes the reference answer for key over the bound pairs.
func expect(bound map[pair]bool, key string) []int {
	var want []int
	for p := range bound {
		if refMatch(p.pattern, key) && !slices.Contains(want, p.v) {
			want = append(want, p.v)
		}
	}
	slices.Sort(want)
	return want
}

// checkMatch compares one Match call against the reference as sets and also
// checks that no value was delivered twice.
func checkMatch(t *testing.T, tr *Trie[int], bound map[pair]bool, key string) []int {
	t.Helper()
	got := tr.Match(key, nil)
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	if len(slices.Compact(slices.Clone(sorted))) != len(sorted) {
		t.Fatalf("Match(%q) returned duplicates: %v", key, got)
	}
	if want := expect(bound, key); !slices.Equal(sorted, want) {
		t.Fatalf("Match(%q) = %v, want %v (bindings %v)", key, sorted, want, bound)
	}
	return got
}

func TestRandomAgainstReference(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		var tr, twin Trie[int]
		bound := make(map[pair]bool)
		var history []pair
		for op := 0; op < 200; op++ {
			var p pair
			if len(history) > 0 && r.Intn(3) == 0 {
				p = history[r.Intn(len(history))]
			} else {
				p = pair{randWords(r, patternAlphabet, 5), r.Intn(6)}
				history = append(history, p)
			}
			if r.Intn(2) == 0 {
				if got, want := tr.Add(p.pattern, p.v), !bound[p]; got != want {
					t.Fatalf("Add(%q, %d) = %v, want %v", p.pattern, p.v, got, want)
				}
				twin.Add(p.pattern, p.v)
				bound[p] = true
			} else {
				if got, want := tr.Remove(p.pattern, p.v), bound[p]; got != want {
					t.Fatalf("Remove(%q, %d) = %v, want %v", p.pattern, p.v, got, want)
				}
				twin.Remove(p.pattern, p.v)
				delete(bound, p)
			}
			if tr.Len() != len(bound) {
				t.Fatalf("Len = %d, want %d", tr.Len(), len(bound))
			}
			for range 3 {
				key := randWords(r, keyAlphabet, 6)
				got := checkMatch(t, &tr, bound, key)
				// The same history must give the same order.
				if again := twin.Match(key, nil); !slices.Equal(got, again) {
					t.Fatalf("order differs for identical histories: %v vs %v", got, again)
				}
			}
		}
		for p := range bound {
			tr.Remove(p.pattern, p.v)
		}
		if tr.Len() != 0 || (tr.root != nil && !tr.root.empty()) || len(tr.entries) != 0 {
			t.Fatal("Trie not empty after removing every binding")
		}
	}
}
