package mgmt

import (
	"encoding/json"
	"testing"
)

// TestStreamedQueuesRenderAsItems checks that GET /api/queues, streamed
// with one reused item (queueLister.reuse), is byte for byte the array
// of the items render gives one by one, in the reply's own order, and
// that the reused render does hand out one variable.
func TestStreamedQueuesRenderAsItems(t *testing.T) {
	f := newFixture(t)
	bigWorld(t, f)
	body := f.must(200, "GET", "/api/queues", "").body
	var got []struct {
		Vhost string `json:"vhost"`
		Name  string `json:"name"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	refs := make([]inVhost, len(got))
	for i, q := range got {
		refs[i] = inVhost{q.Vhost, q.Name}
	}
	c := &call{api: f.api}
	items := []any{}
	reused := queueLister.reuse()
	var shared any
	if err := eachView(c, queueLister, refs, func(it queueItem) {
		items = append(items, queueLister.render(c, it))
		if r := reused(c, it); shared == nil {
			shared = r
		} else if r != shared {
			t.Fatalf("the reused render gave a new item for %s", it.q.Name)
		}
	}); err != nil {
		t.Fatal(err)
	}
	want, err := marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 2*readBatch || body != string(want) {
		t.Fatalf("%d queues; streamed reply differs from the items rendered one by one:\n got %.300s\nwant %.300s", len(got), body, want)
	}
}

// TestNoFieldsStayEmpty checks, after the listings that share it have
// been rendered and sorted, that nobody wrote into the empty rendering
// every table without fields shares.
func TestNoFieldsStayEmpty(t *testing.T) {
	f := newFixture(t)
	bigWorld(t, f)
	for _, path := range []string{"/api/queues", "/api/queues?page=1&sort=arguments", "/api/bindings", "/api/exchanges", "/api/definitions", "/api/connections", "/api/policies"} {
		f.must(200, "GET", path, "")
	}
	if len(noFields) != 0 {
		t.Fatalf("noFields was written: %v", noFields)
	}
}
