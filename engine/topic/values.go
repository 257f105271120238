package topic

// Values returns the values bound under exactly pattern, in the order
// Match reports them (a function of the Add/Remove history). A saved
// exchange keeps this order, so that a broker loaded from it, which adds
// them again in this order, routes in the same order as the original.
func (t *Trie[V]) Values(pattern string) []V {
	if t.root == nil {
		return nil
	}
	n := t.root
	for _, w := range split(pattern) {
		if n = n.lookup(w); n == nil {
			return nil
		}
	}
	out := make([]V, len(n.vals))
	for i, e := range n.vals {
		out[i] = e.v
	}
	return out
}
