// Package topic implements the routing rules of an AMQP topic exchange.
//
// Binding patterns and routing keys are sequences of words separated by '.'.
// In a pattern, "*" matches exactly one word and "#" matches zero or more
// words; every other word matches only itself, byte for byte. Splitting
// follows RabbitMQ so that routing decisions agree with it exactly: the empty
// string has no words at all, while any other string is split at every '.',
// which makes "a." the two words "a" and "" (empty words are real words that
// "*" can match).
//
// Patterns are stored in a trie so that a routing key is matched against all
// bindings at once. Matching simulates the trie as a nondeterministic
// automaton, advancing the set of live nodes one word at a time. Because each
// node is visited at most once per word, the cost is bounded by
// words × nodes even for patterns such as "#.#.#.a", for which a naive
// backtracking matcher takes exponential time.
package topic

import "strings"

// Trie maps topic binding patterns to values and matches routing keys against them.
//
// The zero value is an empty Trie ready to use. A Trie must not be copied
// after first use. Match keeps scratch state inside the Trie so that routing
// does not allocate; as a result no method, Match included, may run
// concurrently with any other method on the same Trie.
type Trie[V comparable] struct {
	root *node[V]

	// bindings records every (node, value) pair together with the value's
	// position in node.vals, so that Add can reject duplicates and Remove can
	// delete in constant time however many values share a pattern.
	bindings map[binding[V]]int

	// entries holds one shared record per distinct bound value, so that
	// Match can deduplicate values bound under several patterns by stamping
	// the record instead of using a set that would need clearing.
	entries map[V]*entry[V]

	// epoch is bumped before each marking pass of Match; a node or entry
	// whose mark equals the current epoch has been seen in that pass. It is
	// 64 bits wide so that it never wraps in practice.
	epoch uint64

	// cur and next are the live node sets of Match, kept between calls so
	// that their storage is reused.
	cur, next []*node[V]
}

// node is one trie position: the end of some pattern prefix.
type node[V comparable] struct {
	words map[string]*node[V] // children reached by a literal word
	star  *node[V]            // child reached by "*"
	hash  *node[V]            // child reached by "#"

	// isHash reports that this node is its parent's "#" child. Such a node
	// may consume any number of further words while staying in place.
	isHash bool

	vals []*entry[V] // values whose pattern ends here
	mark uint64      // epoch in which Match last added this node to a set
}

// binding identifies one (pattern, value) pair by the node its pattern ends at.
type binding[V comparable] struct {
	n *node[V]
	v V
}

// entry is the shared record of one distinct value.
type entry[V comparable] struct {
	v    V
	refs int    // number of patterns the value is bound under
	mark uint64 // epoch in which Match last emitted the value
}

// split returns the words of s with RabbitMQ's rules: no words for the empty
// string, otherwise one word per '.'-separated field, empty fields included.
func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ".")
}

// Add binds v under pattern. It reports false, changing nothing, if v was
// already bound under exactly that pattern.
func (t *Trie[V]) Add(pattern string, v V) bool {
	if t.root == nil {
		t.root = &node[V]{}
		t.bindings = make(map[binding[V]]int)
		t.entries = make(map[V]*entry[V])
	}
	n := t.root
	for _, w := range split(pattern) {
		n = n.child(w)
	}
	b := binding[V]{n, v}
	if _, ok := t.bindings[b]; ok {
		return false
	}
	e := t.entries[v]
	if e == nil {
		e = &entry[V]{v: v}
		t.entries[v] = e
	}
	e.refs++
	t.bindings[b] = len(n.vals)
	n.vals = append(n.vals, e)
	return true
}

// child returns the child of n along word w, creating it if necessary.
func (n *node[V]) child(w string) *node[V] {
	switch w {
	case "*":
		if n.star == nil {
			n.star = &node[V]{}
		}
		return n.star
	case "#":
		if n.hash == nil {
			n.hash = &node[V]{isHash: true}
		}
		return n.hash
	}
	c := n.words[w]
	if c == nil {
		if n.words == nil {
			n.words = make(map[string]*node[V])
		}
		c = &node[V]{}
		n.words[w] = c
	}
	return c
}

// Remove unbinds v from pattern. It reports false if v was not bound under
// that pattern. Nodes left with no values and no children are deleted so that
// churn in bindings does not grow the trie or slow down Match.
func (t *Trie[V]) Remove(pattern string, v V) bool {
	if t.root == nil {
		return false
	}
	words := split(pattern)
	path := make([]*node[V], 1, len(words)+1)
	path[0] = t.root
	for _, w := range words {
		c := path[len(path)-1].lookup(w)
		if c == nil {
			return false
		}
		path = append(path, c)
	}
	n := path[len(path)-1]
	b := binding[V]{n, v}
	i, ok := t.bindings[b]
	if !ok {
		return false
	}
	delete(t.bindings, b)

	// Move the last value into the freed slot; order within a node only has
	// to be a function of the Add/Remove history, which this still is.
	last := len(n.vals) - 1
	if i != last {
		n.vals[i] = n.vals[last]
		t.bindings[binding[V]{n, n.vals[i].v}] = i
	}
	n.vals[last] = nil
	n.vals = n.vals[:last]

	e := t.entries[v]
	e.refs--
	if e.refs == 0 {
		delete(t.entries, v)
	}

	for d := len(words); d > 0 && path[d].empty(); d-- {
		path[d-1].unlink(words[d-1])
	}
	return true
}

// lookup returns the child of n along pattern word w, or nil.
func (n *node[V]) lookup(w string) *node[V] {
	switch w {
	case "*":
		return n.star
	case "#":
		return n.hash
	}
	return n.words[w]
}

// unlink drops the child of n along pattern word w.
func (n *node[V]) unlink(w string) {
	switch w {
	case "*":
		n.star = nil
	case "#":
		n.hash = nil
	default:
		delete(n.words, w)
	}
}

// empty reports whether n binds nothing and leads nowhere, so it can be pruned.
func (n *node[V]) empty() bool {
	return len(n.vals) == 0 && len(n.words) == 0 && n.star == nil && n.hash == nil
}

// Len returns the number of (pattern, value) pairs in the Trie.
func (t *Trie[V]) Len() int {
	return len(t.bindings)
}

// Match appends to out every value whose pattern matches key and returns the extended slice.
//
// Each value is appended at most once per call, however many of its patterns
// match, because a message is delivered once per destination. The order is a
// function of the trie's Add/Remove history and the key only, so routing is
// reproducible. Match allocates only when out or its internal scratch space
// must grow.
func (t *Trie[V]) Match(key string, out []V) []V {
	if t.root == nil {
		return out
	}
	cur, next := t.cur[:0], t.next[:0]
	t.epoch++
	cur = t.enter(cur, t.root)

	// Walk the words of key by index rather than with strings.Split, which
	// would allocate on every call. The empty key has no words.
	for i := 0; key != "" && len(cur) > 0; {
		j := strings.IndexByte(key[i:], '.')
		if j < 0 {
			j = len(key)
		} else {
			j += i
		}
		w := key[i:j]

		t.epoch++
		next = next[:0]
		for _, n := range cur {
			if c := n.words[w]; c != nil {
				next = t.enter(next, c)
			}
			if n.star != nil {
				next = t.enter(next, n.star)
			}
			if n.isHash {
				next = t.enter(next, n)
			}
		}
		cur, next = next, cur

		if j == len(key) {
			break
		}
		i = j + 1
	}

	t.epoch++
	for _, n := range cur {
		for _, e := range n.vals {
			if e.mark != t.epoch {
				e.mark = t.epoch
				out = append(out, e.v)
			}
		}
	}
	t.cur, t.next = cur[:0], next[:0]
	return out
}

// enter adds n to the live set unless it is already there, together with the
// chain of "#" children below it, since "#" may match zero words and so is
// live wherever its parent is. A node that is already marked had its chain
// added with it, so the walk can stop there.
func (t *Trie[V]) enter(set []*node[V], n *node[V]) []*node[V] {
	for n != nil && n.mark != t.epoch {
		n.mark = t.epoch
		set = append(set, n)
		n = n.hash
	}
	return set
}
