package topic

import (
	"fmt"
	"math/rand"
	"testing"
)

// benchSymbol returns the ticker symbol used for binding or key number i,
// shaped like "ABC123".
func benchSymbol(i int) string {
	return fmt.Sprintf("%c%c%c%03d", 'A'+i%26, 'A'+i/26%26, 'A'+i/676%26, i%1000)
}

// benchSymbols is the size of the symbol pool; keys draw from the same pool
// as bindings so that most keys hit a few bindings, as in real routing.
const benchSymbols = 5000

// benchTrie builds a Trie with n bindings mixing the common shapes of topic
// bindings: fixed-length with "*", "*" then "#", leading "#", and random
// combinations of literals and wildcards.
func benchTrie(n int) *Trie[int] {
	r := rand.New(rand.NewSource(42))
	mixWords := []string{"stock", "bond", "nyse", "nasdaq", "*", "#"}
	var tr Trie[int]
	for i := 0; tr.Len() < n; i++ {
		sym := benchSymbol(r.Intn(benchSymbols))
		var p string
		switch i % 4 {
		case 0:
			p = "stock." + sym + ".*"
		case 1:
			p = "*." + sym + ".#"
		case 2:
			p = "#." + sym
		default:
			p = mixWords[r.Intn(len(mixWords))] + "." + sym
			for range r.Intn(3) {
				p += "." + mixWords[r.Intn(len(mixWords))]
			}
		}
		tr.Add(p, i)
	}
	return &tr
}

// benchKeys returns n routing keys like "stock.ABC123.nyse".
func benchKeys(n int) []string {
	r := rand.New(rand.NewSource(7))
	markets := []string{"nyse", "nasdaq", "lse"}
	keys := make([]string, n)
	for i := range keys {
		kind := "stock"
		if r.Intn(4) == 0 {
			kind = "bond"
		}
		keys[i] = kind + "." + benchSymbol(r.Intn(benchSymbols)) + "." + markets[r.Intn(len(markets))]
	}
	return keys
}

func BenchmarkMatch10kBindings(b *testing.B) {
	tr := benchTrie(10000)
	keys := benchKeys(4096)
	out := make([]int, 0, 1024)
	matched := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = tr.Match(keys[i&(len(keys)-1)], out[:0])
		matched += len(out)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "routes/s")
	b.ReportMetric(float64(matched)/float64(b.N), "values/route")
}
