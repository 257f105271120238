package mgmt

import (
	"strconv"
	"strings"
	"testing"

	"warren/engine"
)

// pageFixture has queues q1..q5 in "/" holding 3, 1, 4, 1, 5 messages,
// Q6 (upper case) holding none, and queue "a" in vhost v2.
func pageFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.apply(engine.CmdAddVhost{Name: "v2"})
	f.users.SetPermissions("guest", "v2", ".*", ".*", ".*")
	for i, n := range []int{3, 1, 4, 1, 5} {
		q := "q" + strconv.Itoa(i+1)
		f.must(201, "PUT", "/api/queues/%2F/"+q, `{}`)
		f.publish("/", q, strings.Split(strings.Repeat("m", n), "")...)
	}
	f.must(201, "PUT", "/api/queues/%2F/Q6", `{}`)
	f.must(201, "PUT", "/api/queues/v2/a", `{}`)
	return f
}

func itemNames(t *testing.T, items []any) string {
	t.Helper()
	var out []string
	for _, it := range items {
		out = append(out, it.(map[string]any)["name"].(string))
	}
	return strings.Join(out, " ")
}

// TestQueuePagination checks rabbit_mgmt_util's list parameters on
// /api/queues: the paged reply's counts and items, the name filter, the
// sorts, and the exact error replies.
func TestQueuePagination(t *testing.T) {
	f := pageFixture(t)
	for _, tc := range []struct {
		query string
		// names is the items in order; for a paged reply, counts is
		// "total filtered page page_size page_count".
		names, counts string
	}{
		{"", "Q6 q1 q2 q3 q4 q5 a", ""},
		{"?page_size=2", "Q6 q1 q2 q3 q4 q5 a", ""}, // page_size alone does not paginate
		{"?name=q1", "Q6 q1 q2 q3 q4 q5 a", ""},     // nor does a name filter
		{"?page=1", "Q6 q1 q2 q3 q4 q5 a", "7 7 1 100 1"},
		{"?page=1&page_size=2", "Q6 q1", "7 7 1 2 4"},
		{"?page=2&page_size=2", "q2 q3", "7 7 2 2 4"},
		{"?page=4&page_size=2", "a", "7 7 4 2 4"},
		{"?page=2&page_size=7", "", "7 7 2 7 1"}, // just past a full last page: empty
		{"?page=1&page_size=500", "Q6 q1 q2 q3 q4 q5 a", "7 7 1 500 1"},
		{"?page=%2B1&page_size=02", "Q6 q1", "7 7 1 2 4"}, // list_to_integer takes a sign and leading zeros
		{"?page=1&name=Q", "Q6 q1 q2 q3 q4 q5", "7 6 1 100 1"},
		{"?page=1&name=q6", "Q6", "7 1 1 100 1"}, // case-insensitive
		{"?page=1&name=zz", "", "7 0 1 100 0"},
		{"?page=1&name=%5Eq%5B12%5D%24&use_regex=true", "q1 q2", "7 2 1 100 1"}, // ^q[12]$
		{"?page=1&name=%5EQ%5B12%5D%24&use_regex=true", "q1 q2", "7 2 1 100 1"}, // caseless
		{"?page=1&name=%5Eq%5B12%5D%24", "", "7 0 1 100 0"},                     // not a regex without use_regex
		{"?sort=name", "Q6 a q1 q2 q3 q4 q5", ""},
		{"?sort=name&sort_reverse=true", "q5 q4 q3 q2 q1 a Q6", ""},
		{"?sort_reverse=true", "a q5 q4 q3 q2 q1 Q6", ""},
		{"?sort=messages", "Q6 a q2 q4 q1 q3 q5", ""}, // then vhost, name
		{"?sort=messages&sort_reverse=true", "q5 q3 q1 q4 q2 a Q6", ""},
		{"?sort=messages&page=2&page_size=3", "q4 q1 q3", "7 7 2 3 3"},
		{"?sort=messages&page=1&page_size=3&name=q", "Q6 q2 q4", "7 6 1 3 2"},
		{"?sort=arguments.nope", "Q6 q1 q2 q3 q4 q5 a", ""}, // missing everywhere: vhost, name decide
		{"?sort=vhost&sort_reverse=true", "a q5 q4 q3 q2 q1 Q6", ""},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := f.do("GET", "/api/queues"+tc.query, "")
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if tc.counts == "" {
				var items []any
				for _, m := range r.list(t) {
					items = append(items, m)
				}
				if got := itemNames(t, items); got != tc.names {
					t.Errorf("names %q, want %q", got, tc.names)
				}
				return
			}
			p := r.object(t)
			items := p["items"].([]any)
			if got := itemNames(t, items); got != tc.names {
				t.Errorf("names %q, want %q", got, tc.names)
			}
			counts := strings.Join([]string{strconv.Itoa(num(t, p, "total_count")), strconv.Itoa(num(t, p, "filtered_count")),
				strconv.Itoa(num(t, p, "page")), strconv.Itoa(num(t, p, "page_size")), strconv.Itoa(num(t, p, "page_count"))}, " ")
			if counts != tc.counts || num(t, p, "item_count") != len(items) {
				t.Errorf("counts %q item_count %d, want %q and %d", counts, num(t, p, "item_count"), tc.counts, len(items))
			}
		})
	}
}

func TestPaginationErrors(t *testing.T) {
	f := pageFixture(t)
	invalid := func(reason string) string {
		return `{"error":"invalid_pagination_parameters","reason":"Invalid pagination parameters: ` + reason + `"}`
	}
	const notInt = `{"error":"bad_request","reason":"Pagination parameters are invalid"}`
	for _, tc := range []struct{ query, body string }{
		{"?page=0", invalid("page number 0, page size undefined")},
		{"?page=-1&page_size=10", invalid("page number -1, page size 10")},
		{"?page=1&page_size=0", invalid("page number 1, page size 0")},
		{"?page=1&page_size=501", invalid("page number 1, page size 501")},
		{"?page=1&page_size=99999999999999999999999", invalid("page number 1, page size 99999999999999999999999")},
		{"?page=abc", notInt},
		{"?page=", notInt},
		{"?page=+1", notInt}, // "+" is a space in a query
		{"?page=1.5", notInt},
		{"?page=1&page_size=ten", notInt},
		{"?page_size=abc", notInt}, // read even without page
		{"?page=1&name=(&use_regex=true", notInt},
		{"?page=5&page_size=2", `{"error":"page_out_of_range","reason":"Page out of range, page: 5 page size: 2, len: 7"}`},
		{"?page=2&name=zz", `{"error":"page_out_of_range","reason":"Page out of range, page: 2 page size: 100, len: 0"}`},
		{"?page=99999999999999999999999", `{"error":"page_out_of_range","reason":"Page out of range, page: 99999999999999999999999 page size: 100, len: 7"}`},
	} {
		t.Run(tc.query, func(t *testing.T) { f.wantError(f.do("GET", "/api/queues"+tc.query, ""), 400, tc.body) })
	}
	// An invalid expression fails only when there is a name to match it
	// against.
	f.apply(engine.CmdAddVhost{Name: "empty"})
	f.users.SetPermissions("guest", "empty", ".*", ".*", ".*")
	f.must(200, "GET", "/api/queues/empty?page=1&name=(&use_regex=true", "")
}

// TestPagedReplyShape checks the paged reply's exact keys and order.
func TestPagedReplyShape(t *testing.T) {
	f := pageFixture(t)
	r := f.must(200, "GET", "/api/queues/v2?page=1&page_size=1", "")
	const head = `{"total_count":1,"item_count":1,"filtered_count":1,"page":1,"page_size":1,"page_count":1,"items":[{`
	if !strings.HasPrefix(r.body, head) {
		t.Errorf("body %s\nwant it to begin %s", r.body, head)
	}
	r = f.must(200, "GET", "/api/queues/v2?page=1&name=zz", "")
	if want := `{"total_count":1,"item_count":0,"filtered_count":0,"page":1,"page_size":100,"page_count":0,"items":[]}`; r.body != want {
		t.Errorf("body %s, want %s", r.body, want)
	}
}

// TestPaginatedEndpoints checks which lists paginate, as in RabbitMQ
// 3.10.8: queues, exchanges, connections, channels and vhosts do; the
// per-vhost connection and channel lists only sort.
func TestPaginatedEndpoints(t *testing.T) {
	f := pageFixture(t)
	f.client("/", "10.0.0.1:1000 -> 127.0.0.1:5672")
	f.client("/", "10.0.0.2:2000 -> 127.0.0.1:5672")
	f.client("v2", "10.0.0.3:3000 -> 127.0.0.1:5672")
	for _, tc := range []struct {
		path        string
		paged       bool
		total       int
		first, last string // names on pages 1 and 2 of page_size 2, or of the whole list
	}{
		{"/api/queues", true, 7, "Q6 q1", "q2 q3"},
		{"/api/queues/%2F", true, 6, "Q6 q1", "q2 q3"},
		{"/api/exchanges", true, 14, " amq.direct", "amq.fanout amq.headers"},
		{"/api/exchanges/v2", true, 7, " amq.direct", "amq.fanout amq.headers"},
		{"/api/connections", true, 3, "10.0.0.1:1000 -> 127.0.0.1:5672 10.0.0.2:2000 -> 127.0.0.1:5672", "10.0.0.3:3000 -> 127.0.0.1:5672"},
		{"/api/channels", true, 3, "10.0.0.1:1000 -> 127.0.0.1:5672 (1) 10.0.0.2:2000 -> 127.0.0.1:5672 (1)", "10.0.0.3:3000 -> 127.0.0.1:5672 (1)"},
		{"/api/vhosts", true, 2, "/ v2", ""},
		{"/api/vhosts/%2F/connections", false, 2, "10.0.0.1:1000 -> 127.0.0.1:5672 10.0.0.2:2000 -> 127.0.0.1:5672", ""},
		{"/api/vhosts/%2F/channels", false, 2, "10.0.0.1:1000 -> 127.0.0.1:5672 (1) 10.0.0.2:2000 -> 127.0.0.1:5672 (1)", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			for page, want := range []string{tc.first, tc.last} {
				r := f.do("GET", tc.path+"?page="+strconv.Itoa(page+1)+"&page_size=2", "")
				if r.status != 200 {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				if !tc.paged {
					var items []any
					for _, m := range r.list(t) {
						items = append(items, m)
					}
					if got := itemNames(t, items); got != want || len(items) != tc.total {
						t.Errorf("unpaged list %q (%d), want %q (%d)", got, len(items), want, tc.total)
					}
					return
				}
				p := r.object(t)
				if got := itemNames(t, p["items"].([]any)); got != want || num(t, p, "total_count") != tc.total {
					t.Errorf("page %d: %q of %d, want %q of %d", page+1, got, num(t, p, "total_count"), want, tc.total)
				}
			}
		})
	}
	// Sorting applies to the unpaginated lists too.
	r := f.must(200, "GET", "/api/vhosts/%2F/connections?sort=name&sort_reverse=true", "")
	var items []any
	for _, m := range r.list(t) {
		items = append(items, m)
	}
	if got := itemNames(t, items); got != "10.0.0.2:2000 -> 127.0.0.1:5672 10.0.0.1:1000 -> 127.0.0.1:5672" {
		t.Errorf("reversed %q", got)
	}
}

// TestListReadsOnlyThePage counts the queue views a request builds on the
// broker goroutine: a page of a list builds at most page_size, an overview
// or a vhost none, one queue one, whatever the broker holds.
func TestListReadsOnlyThePage(t *testing.T) {
	f := newFixture(t)
	const n = 3_000
	ch := f.client("/", "declarer")
	f.declareQueues(ch, 100000, n)
	for _, tc := range []struct {
		path      string
		views     int64
		turnsUpTo int64
	}{
		{"/api/overview", 0, 1},
		{"/api/vhosts", 1, 2},
		{"/api/vhosts/%2F", 0, 1},
		{"/api/queues?page=3&page_size=50", 50, 2},
		{"/api/queues/%2F?page=1&page_size=500", 500, 2},
		{"/api/queues?page=1&page_size=100&name=q10001", 10, 2},
		{"/api/queues/%2F/q100007", 1, 1},
		{"/api/queues/%2F/q100007/bindings", 0, 2}, // the indexes, then the declared bindings
		{"/api/exchanges?page=1&page_size=5", 5, 2},
		{"/api/connections?page=1", 1, 2},
		{"/api/channels?page=1", 1, 2},
	} {
		views, turns := f.api.reads.views.Load(), f.api.reads.turns.Load()
		f.must(200, "GET", tc.path, "")
		if got := f.api.reads.views.Load() - views; got != tc.views {
			t.Errorf("%s built %d views on the broker goroutine, want %d", tc.path, got, tc.views)
		}
		if got := f.api.reads.turns.Load() - turns; got > tc.turnsUpTo {
			t.Errorf("%s took %d turns of the broker goroutine, want at most %d", tc.path, got, tc.turnsUpTo)
		}
	}
	// The whole list takes every view, but readBatch per turn.
	views, turns := f.api.reads.views.Load(), f.api.reads.turns.Load()
	f.must(200, "GET", "/api/queues", "")
	if got, gotTurns := f.api.reads.views.Load()-views, f.api.reads.turns.Load()-turns; got != n || gotTurns != 1+n/readBatch {
		t.Errorf("the whole list built %d views in %d turns, want %d in %d", got, gotTurns, n, 1+n/readBatch)
	}
}

// TestListWhileQueuesChange lists pages while queues come and go on the
// broker goroutine: the borrowed name index must read as it was lent
// (run with -race to check that no write reaches it).
func TestListWhileQueuesChange(t *testing.T) {
	f := newFixture(t)
	ch := f.client("/", "churn")
	f.declareQueues(ch, 0, 3000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 300; i++ {
			f.b.Apply([]engine.Command{engine.CmdQueueDelete{Channel: ch, Delete: engine.QueueDelete{Queue: "q" + strconv.Itoa(i)}},
				engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "new" + strconv.Itoa(i)}}}, nil)
		}
	}()
	for i := 0; i < 30; i++ {
		r := f.do("GET", "/api/queues?page=1&page_size=10&sort=name", "")
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if p := r.object(t); num(t, p, "total_count") != 3000 {
			t.Fatalf("total_count %d, want 3000 (one deleted for each declared)", num(t, p, "total_count"))
		}
	}
	<-done
}
