package engine

import "testing"

// TestViaString: a Via prints as EXCHANGE:WHAT-MATCHED, quoting a part
// that is empty or would split the trace's word.
func TestViaString(t *testing.T) {
	for _, c := range []struct {
		v    Via
		want string
	}{
		{Via{Exchange: "animals", Type: KindTopic, Key: "*.orange.*"}, "animals:*.orange.*"},
		{Via{Exchange: "jobs", Type: KindDirect, Key: ""}, `jobs:""`},
		{Via{Type: KindDirect, Key: "orders"}, "(default):orders"},
		{Via{Exchange: "logs", Type: KindFanout, Key: "ignored"}, "logs"},
		{Via{Exchange: "h", Type: KindHeaders, Args: Table{"x-match": "any", "a": int64(1)}}, "h:{a:1,x-match:any}"},
		{Via{Exchange: "h", Type: KindHeaders, Args: Table{"lang": "en gb"}}, `h:"{lang:en gb}"`},
		{Via{Exchange: "my x", Type: KindDirect, Key: "a=b"}, `"my x":"a=b"`},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.v, got, c.want)
		}
	}
}
