package mgmt

import (
	"reflect"
	"sort"
	"strings"
	"sync"
)

// term is a sort key's value, ordered as Erlang orders the term it comes
// from in RabbitMQ (rabbit_mgmt_util:sort_list sorts with lists:sort):
// numbers, then atoms (false, null, true), then objects (maps), then
// arrays (lists), then strings (binaries, byte by byte). A field an item
// lacks is 0, "nothing" sorting first (get_dotted_value's default).
//
// Sort keys are computed once per item, into terms that compare without
// allocating, because a list of 100,000 queues is sorted on every request.
type term struct {
	rank int // termNumber ... termString
	num  float64
	str  string // a string's bytes, or an atom's name
	val  any    // an object or array, compared with compareTerms
}

const (
	termNumber = iota
	termAtom
	termObject
	termArray
	termString
)

func stringTerm(s string) term { return term{rank: termString, str: s} }

func numberTerm(n float64) term { return term{rank: termNumber, num: n} }

// compareTerm orders two terms (see term).
func compareTerm(a, b term) int {
	if a.rank != b.rank {
		return a.rank - b.rank
	}
	switch a.rank {
	case termNumber:
		switch {
		case a.num < b.num:
			return -1
		case a.num > b.num:
			return 1
		}
		return 0
	case termAtom, termString:
		return strings.Compare(a.str, b.str)
	}
	return compareTerms(a.val, b.val)
}

// termOf converts a decoded JSON value (or one about to be encoded).
func termOf(v any) term {
	switch x := v.(type) {
	case nil:
		return term{rank: termAtom, str: "null"}
	case bool:
		if x {
			return term{rank: termAtom, str: "true"}
		}
		return term{rank: termAtom, str: "false"}
	case string:
		return stringTerm(x)
	case map[string]any:
		return term{rank: termObject, val: x}
	case []any:
		return term{rank: termArray, val: x}
	}
	return valueTerm(reflect.ValueOf(v))
}

// compareTerms orders decoded JSON values as terms (objects: by size, then
// keys, then values; arrays element by element).
func compareTerms(a, b any) int {
	ta, tb := termOfValue(a), termOfValue(b)
	if ta.rank != tb.rank || ta.rank < termObject {
		return compareTerm(ta, tb)
	}
	switch x := a.(type) {
	case []any:
		y := b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := compareTerms(x[i], y[i]); c != 0 {
				return c
			}
		}
		return len(x) - len(y)
	case map[string]any:
		y := b.(map[string]any)
		if len(x) != len(y) {
			return len(x) - len(y)
		}
		kx, ky := sortedKeys(x), sortedKeys(y)
		for i := range kx {
			if c := strings.Compare(kx[i], ky[i]); c != 0 {
				return c
			}
		}
		for _, k := range kx {
			if c := compareTerms(x[k], y[k]); c != 0 {
				return c
			}
		}
	}
	return 0
}

// termOfValue is termOf for a value of any Go type an item holds.
func termOfValue(v any) term {
	switch v.(type) {
	case nil, bool, string, map[string]any, []any:
		return termOf(v)
	}
	return valueTerm(reflect.ValueOf(v))
}

func valueTerm(v reflect.Value) term {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return term{rank: termAtom, str: "null"}
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Bool:
		return termOf(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return numberTerm(float64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return numberTerm(float64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		return numberTerm(v.Float())
	case reflect.String:
		return stringTerm(v.String())
	case reflect.Map, reflect.Struct:
		return term{rank: termObject, val: asFields(v.Interface())}
	case reflect.Slice, reflect.Array:
		var l []any
		if m := asFields(struct{ L any }{v.Interface()}); m != nil {
			l, _ = m["L"].([]any)
		}
		return term{rank: termArray, val: l}
	}
	return numberTerm(0)
}

// termAt is get_dotted_value on a rendered item: the term at a dotted
// path of JSON field names ("arguments.x-max-length"), 0 when absent.
func termAt(item any, key string) term {
	v := reflect.ValueOf(item)
	for _, part := range strings.Split(key, ".") {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return numberTerm(0)
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Struct:
			idx, ok := jsonField(v.Type(), part)
			if !ok {
				return numberTerm(0)
			}
			v = v.FieldByIndex(idx)
		case reflect.Map:
			if v.Type().Key().Kind() != reflect.String {
				return numberTerm(0)
			}
			if v = v.MapIndex(reflect.ValueOf(part)); !v.IsValid() {
				return numberTerm(0)
			}
		default:
			return numberTerm(0)
		}
	}
	return valueTerm(v)
}

// jsonFields caches, per struct type, the field index of each JSON name,
// promoted fields of embedded structs included.
var jsonFields sync.Map // reflect.Type → map[string][]int

func jsonField(t reflect.Type, name string) ([]int, bool) {
	if m, ok := jsonFields.Load(t); ok {
		idx, found := m.(map[string][]int)[name]
		return idx, found
	}
	m := map[string][]int{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch tag {
		case "-":
			continue
		case "":
			tag = f.Name
		}
		if _, dup := m[tag]; !dup || len(f.Index) < len(m[tag]) {
			m[tag] = f.Index
		}
	}
	jsonFields.Store(t, m)
	idx, found := m[name]
	return idx, found
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
