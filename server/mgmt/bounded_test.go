package mgmt

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"warren/engine"
)

// The tests here hold the requests whose work grows with the broker's
// bindings or definitions to a bounded amount of work per turn under the
// broker's lock, by counting (readStats.most), not timing; and they
// hold the replies to what one turn would have given.

// bigQueues is enough queues for several turns of readBatch.
const bigQueues = 1300

// bigWorld adds to populate's world, in vhost "/", bigQueues queues bound
// to the fanout exchange "fan" (in a shuffled order, so that sorting
// matters), every seventh also twice to the headers exchange "hdr" with
// the same key and different arguments (so that ties keep their creation
// order), 600 exchanges every other one bound to "dst.x", and an
// exclusive queue.
func bigWorld(t *testing.T, f *fixture) {
	populate(f)
	ch := f.client("/", "big")
	var cmds []engine.Command
	for _, x := range []engine.ExchangeDeclare{{Exchange: "fan", Type: "fanout", Durable: true},
		{Exchange: "hdr", Type: "headers"}, {Exchange: "dst.x", Type: "direct", AutoDelete: true}} {
		cmds = append(cmds, engine.CmdExchangeDeclare{Channel: ch, Declare: x})
	}
	for j := 0; j < bigQueues; j++ {
		i := j * 7 % bigQueues // 7 and bigQueues are coprime
		q := "q" + strconv.Itoa(i)
		cmds = append(cmds, engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: q, Durable: i%2 == 0, Args: engine.Table{"x-max-length": int64(i)}}},
			engine.CmdQueueBind{Channel: ch, Bind: engine.QueueBind{Exchange: "fan", Queue: q, RoutingKey: q}})
		if i%7 == 0 {
			for _, m := range []string{"any", "all"} {
				cmds = append(cmds, engine.CmdQueueBind{Channel: ch, Bind: engine.QueueBind{Exchange: "hdr", Queue: q, Args: engine.Table{"x-match": m, "n": int64(i)}}})
			}
		}
	}
	for i := 599; i >= 0; i-- {
		x := "x" + strconv.Itoa(i)
		cmds = append(cmds, engine.CmdExchangeDeclare{Channel: ch, Declare: engine.ExchangeDeclare{Exchange: x, Type: "topic"}})
		if i%2 == 0 {
			cmds = append(cmds, engine.CmdExchangeBind{Channel: ch, Bind: engine.ExchangeBind{Source: x, Destination: "dst.x", RoutingKey: "k." + strconv.Itoa(i)}})
		}
	}
	f.apply(append(cmds, engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "excl", Exclusive: true}})...)
}

// oneTurnBindings is the binding list as it was read before it took many
// turns: every binding of the vhosts at once.
func oneTurnBindings(t *testing.T, f *fixture, vhosts []string, keep func(engine.BindingView) bool) string {
	out := []bindingJSON{}
	r := f.reads()
	for _, v := range vhosts {
		names := concat(r.QueueNames(v))
		slices.Sort(names)
		for _, b := range vhostBindings(names, [][]engine.BindingView{r.Bindings(v)}) {
			if keep(b) {
				out = append(out, toBindingJSON(v, b))
			}
		}
	}
	data, err := marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// bounded sends a GET and checks that no turn handled more than limit
// items, and that it took at least minTurns turns.
func (f *fixture) bounded(path string, limit, minTurns int64) string {
	f.t.Helper()
	r := &f.api.reads
	r.most.Store(0)
	turns := r.turns.Load()
	body := f.must(200, "GET", path, "").body
	if most := r.most.Load(); most > limit {
		f.t.Errorf("%s: a turn handled %d items, want at most %d", path, most, limit)
	}
	if got := r.turns.Load() - turns; got < minTurns {
		f.t.Errorf("%s: %d turns, want at least %d", path, got, minTurns)
	}
	return body
}

// TestBindingListsInBoundedTurns checks every binding list against the
// one-turn read, and that none copies more than readBatch bindings in a
// turn.
func TestBindingListsInBoundedTurns(t *testing.T) {
	f := newFixture(t)
	bigWorld(t, f)
	all := func(engine.BindingView) bool { return true }
	hdr := func(b engine.BindingView) bool {
		return b.Source == "hdr" && b.Destination == "q7" && !b.DestinationIsExchange
	}
	for _, tc := range []struct {
		path     string
		vhosts   []string
		keep     func(engine.BindingView) bool
		minTurns int64
	}{
		{"/api/bindings", []string{"/", "v1"}, all, 4},
		{"/api/bindings/%2F", []string{"/"}, all, 4},
		{"/api/bindings/v1", []string{"v1"}, all, 2},
		{"/api/exchanges/%2F/fan/bindings/source", []string{"/"}, func(b engine.BindingView) bool { return b.Source == "fan" }, 3},
		{"/api/exchanges/%2F/dst.x/bindings/destination", []string{"/"}, func(b engine.BindingView) bool { return b.DestinationIsExchange && b.Destination == "dst.x" }, 4},
		{"/api/exchanges/%2F/amq.default/bindings/source", []string{"/"}, func(b engine.BindingView) bool { return b.Source == "" }, 2},
		{"/api/queues/%2F/q7/bindings", []string{"/"}, func(b engine.BindingView) bool { return !b.DestinationIsExchange && b.Destination == "q7" }, 4},
		{"/api/bindings/%2F/e/fan/q/q7", []string{"/"}, func(b engine.BindingView) bool {
			return b.Source == "fan" && b.Destination == "q7" && !b.DestinationIsExchange
		}, 2},
		{"/api/bindings/%2F/e/hdr/q/q7", []string{"/"}, hdr, 2},
		{"/api/bindings/%2F/e/amq.default/q/q7", []string{"/"}, func(b engine.BindingView) bool {
			return b.Source == "" && b.Destination == "q7" && !b.DestinationIsExchange
		}, 2},
		{"/api/bindings/%2F/e/x4/e/dst.x", []string{"/"}, func(b engine.BindingView) bool {
			return b.Source == "x4" && b.Destination == "dst.x" && b.DestinationIsExchange
		}, 2},
	} {
		got := f.bounded(tc.path, readBatch, tc.minTurns)
		if want := oneTurnBindings(t, f, tc.vhosts, tc.keep); got != want {
			t.Errorf("%s differs from the one-turn read:\n%.600s\nwant\n%.600s", tc.path, got, want)
		}
	}
	// The two headers bindings of q7 keep their creation order, and each
	// is found by its properties key.
	list := f.must(200, "GET", "/api/bindings/%2F/e/hdr/q/q7", "").list(t)
	if len(list) != 2 || list[0]["arguments"].(map[string]any)["x-match"] != "any" {
		t.Fatalf("headers bindings of q7: %v", list)
	}
	for _, b := range list {
		one := f.must(200, "GET", "/api/bindings/%2F/e/hdr/q/q7/"+url.PathEscape(b["properties_key"].(string)), "").object(t)
		if one["properties_key"] != b["properties_key"] || fmt.Sprint(one["arguments"]) != fmt.Sprint(b["arguments"]) {
			t.Errorf("binding by key: %v, want %v", one, b)
		}
	}
	// Deleting one compares only its source's bindings (BindingsBetween).
	f.must(204, "DELETE", "/api/bindings/%2F/e/hdr/q/q7/"+url.PathEscape(list[1]["properties_key"].(string)), "")
	if got, want := f.bounded("/api/bindings/%2F/e/hdr/q/q7", readBatch, 2), oneTurnBindings(t, f, []string{"/"}, hdr); got != want || strings.Contains(got, `"all"`) {
		t.Errorf("after deleting one: %s, want %s", got, want)
	}
}

// oneTurnDefinitions is the definitions export as it was made before it
// took many turns: from one snapshot (vhost "" for the whole broker).
func oneTurnDefinitions(t *testing.T, f *fixture, vhost string) string {
	var snap engine.Snapshot
	snap = f.reads().SnapshotLimit(1)
	var d any
	if vhost != "" {
		v, _ := vhostView(&snap, vhost)
		vd := vhostDefinitions{RabbitVersion: rabbitVersion, topology: newTopology()}
		vd.add(v, false)
		d = vd
	} else {
		a := f.api
		tp := newTopology()
		all := definitions{RabbitVersion: rabbitVersion, RabbitMQVersion: rabbitVersion, ProductName: productName, ProductVersion: productVersion,
			Users: []userJSON{}, Vhosts: []vhostDef{}, Permissions: a.users.Permissions(), TopicPermissions: a.users.TopicPermissions(), GlobalParameters: []any{}}
		for _, u := range a.users.Users() {
			all.Users = append(all.Users, toUserJSON(u))
		}
		for i := range snap.Vhosts {
			all.Vhosts = append(all.Vhosts, vhostDef{snap.Vhosts[i].Name})
			tp.add(&snap.Vhosts[i], true)
		}
		all.Parameters, all.Policies, all.Queues, all.Exchanges, all.Bindings = tp.Parameters, tp.Policies, tp.Queues, tp.Exchanges, tp.Bindings
		d = all
	}
	data, err := marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestDefinitionsExportInBoundedTurns checks that the export is, byte for
// byte, the one-turn export, and builds at most readBatch views or copies
// at most readBatch bindings per turn.
func TestDefinitionsExportInBoundedTurns(t *testing.T) {
	f := newFixture(t)
	bigWorld(t, f)
	f.must(201, "PUT", "/api/policies/%2F/cap", `{"pattern":"^q1","definition":{"max-length":7},"apply-to":"queues"}`)
	got := f.bounded("/api/definitions", readBatch, 8)
	if want := oneTurnDefinitions(t, f, ""); got != want {
		t.Errorf("export differs from the one-turn export:\n%.800s\nwant\n%.800s", got, want)
	}
	if !strings.Contains(got, `"name":"q1299"`) || strings.Contains(got, `"excl"`) {
		t.Errorf("export: %.400s", got)
	}
	for _, v := range []string{"%2F", "v1"} {
		name, _ := url.PathUnescape(v)
		if got, want := f.bounded("/api/definitions/"+v, readBatch, 4), oneTurnDefinitions(t, f, name); got != want {
			t.Errorf("export of %s differs from the one-turn export:\n%.800s\nwant\n%.800s", name, got, want)
		}
	}
	f.wantError(f.do("GET", "/api/definitions/nope", ""), 404, `{"error":"Object Not Found","reason":"Not Found"}`)
}

// TestDefinitionsImportInBoundedTurns imports a big export into an empty
// broker: no turn applies more than importBatch units of weight, and the
// broker then exports the same document. A policy that recomputes more
// queues than a batch takes a turn of its own.
func TestDefinitionsImportInBoundedTurns(t *testing.T) {
	a := newFixture(t)
	bigWorld(t, a)
	doc := a.must(200, "GET", "/api/definitions", "").body

	b := newFixture(t)
	r := &b.api.reads
	turns := r.turns.Load()
	b.must(204, "POST", "/api/definitions", doc)
	if most := r.most.Load(); most > importBatch {
		t.Errorf("a turn applied %d units, want at most %d", most, importBatch)
	}
	// 1,300 queues, 600 exchanges and 1,700 bindings weigh at least 3,600.
	if got := r.turns.Load() - turns; got < 3600/importBatch {
		t.Errorf("the import took %d turns", got)
	}
	if again := b.must(200, "GET", "/api/definitions", "").body; again != doc {
		t.Errorf("the imported broker exports another document:\n%.800s\nwant\n%.800s", again, doc)
	}

	// A policy over the 1,301 queues of "/" recomputes a batch of 1,024
	// of them in its command, and weighs 1,025: alone in its turn.
	var queues int
	tot, _ := b.reads().VhostTotals("/")
	queues = tot.Queues
	r.most.Store(0)
	b.must(204, "POST", "/api/definitions/%2F", `{"queues":[{"name":"a1","durable":true,"auto_delete":false,"arguments":{}}],
		"policies":[{"name":"all","pattern":".*","definition":{"max-length":9},"priority":0,"apply-to":"queues"}]}`)
	if most, want := r.most.Load(), int64(1+engine.DefaultMaxBatch/queuesPerUnit); most != want || queues != bigQueues+1 {
		t.Errorf("the policy's turn applied %d units, want %d", most, want)
	}
}

// TestDefinitionsImportBindingWeights imports 3,000 bindings to one
// exchange: each binding walks the exchange's bindings, so later ones
// weigh more and fewer fit in a turn, and no turn exceeds importBatch.
func TestDefinitionsImportBindingWeights(t *testing.T) {
	f := newFixture(t)
	const n = 3000
	var doc strings.Builder
	doc.WriteString(`{"exchanges":[{"name":"fan","vhost":"/","type":"fanout","durable":true,"auto_delete":false,"internal":false,"arguments":{}}],"queues":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"name":"q%d","vhost":"/","durable":true,"auto_delete":false,"arguments":{}}`, i)
	}
	doc.WriteString(`],"bindings":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `{"source":"fan","vhost":"/","destination":"q%d","destination_type":"queue","routing_key":"k","arguments":{}}`, i)
	}
	doc.WriteString(`]}`)
	r := &f.api.reads
	turns := r.turns.Load()
	f.must(204, "POST", "/api/definitions", doc.String())
	if most := r.most.Load(); most > importBatch {
		t.Errorf("a turn applied %d units, want at most %d", most, importBatch)
	}
	// Binding the i-th weighs 1 + i/1024: 3,000 + 1,024·(1+2)/2·... in all;
	// at least the 6 turns of unit weights, and more for the heavier ones.
	weight := 0
	for i := 0; i < n; i++ {
		weight += 2 + i/bindingsPerUnit // the queue, then its binding
	}
	if got, least := r.turns.Load()-turns, int64(weight/importBatch); got < least {
		t.Errorf("the import took %d turns, want at least %d", got, least)
	}
	if got := len(f.must(200, "GET", "/api/exchanges/%2F/fan/bindings/source", "").list(t)); got != n {
		t.Errorf("%d bindings imported, want %d", got, n)
	}
}

// TestDefinitionsImportFailures checks what an import that fails in a
// later turn leaves behind: as in RabbitMQ 3.10.8 (observed), the other
// items of a failing queue's category are still imported, the categories
// before it stay, those after it are not imported, and the error is the
// one-turn import's.
func TestDefinitionsImportFailures(t *testing.T) {
	f := newFixture(t)
	var doc strings.Builder
	doc.WriteString(`{"exchanges":[{"name":"x","vhost":"/","type":"fanout","durable":true,"auto_delete":false,"internal":false,"arguments":{}}],"queues":[`)
	for i := 0; i < 1200; i++ {
		if i > 0 {
			doc.WriteString(",")
		}
		args := "{}"
		if i == 1100 || i == 1150 {
			args = `{"x-max-length":"ten"}`
		}
		fmt.Fprintf(&doc, `{"name":"q%d","vhost":"/","durable":true,"auto_delete":false,"arguments":%s}`, i, args)
	}
	doc.WriteString(`],"bindings":[{"source":"x","vhost":"/","destination":"q1","destination_type":"queue","routing_key":"k","arguments":{}}]}`)
	f.wantError(f.do("POST", "/api/definitions", doc.String()), 400,
		`{"error":"bad_request","reason":"invalid arg 'x-max-length' for queue 'q1100' in vhost '/': \"expected integer, got longstr\""}`)
	var queues, exchanges int
	tot, _ := f.reads().VhostTotals("/")
	queues, exchanges = tot.Queues, tot.Exchanges
	if queues != 1198 || exchanges != 8 {
		t.Errorf("%d queues and %d exchanges after the failed import, want 1,198 and 8", queues, exchanges)
	}
	if l := f.must(200, "GET", "/api/exchanges/%2F/x/bindings/source", "").list(t); len(l) != 0 {
		t.Errorf("bindings after the failed queue category: %v", l)
	}

	// Bindings that cannot be made are skipped, the others made.
	f.must(204, "POST", "/api/definitions", `{"bindings":[
		{"source":"x","vhost":"/","destination":"nope","destination_type":"queue","routing_key":"k","arguments":{}},
		{"source":"nox","vhost":"/","destination":"q1","destination_type":"queue","routing_key":"k","arguments":{}},
		{"source":"x","vhost":"novh","destination":"q1","destination_type":"queue","routing_key":"k","arguments":{}},
		{"source":"amq.headers","vhost":"/","destination":"q1","destination_type":"queue","routing_key":"k","arguments":{"x-match":"bogus"}},
		{"source":"x","vhost":"/","destination":"q2","destination_type":"queue","routing_key":"k","arguments":{}}]}`)
	if l := f.must(200, "GET", "/api/exchanges/%2F/x/bindings/source", "").list(t); len(l) != 1 || l[0]["destination"] != "q2" {
		t.Errorf("bindings made: %v", l)
	}

	// Exchanges come before policies, operator policies after them in a
	// whole-broker import and before them in a vhost's.
	policies := `"policies":[{"vhost":"/","name":"bad","pattern":"x","definition":{"message-ttl":-3},"priority":0,"apply-to":"all"}],
		"parameters":[{"vhost":"/","component":"operator_policy","name":"op","value":{"pattern":".*","definition":{"max-length":9},"apply-to":"queues","priority":0}}]`
	f.wantError(f.do("POST", "/api/definitions", `{`+policies+`,
		"exchanges":[{"name":"x2","vhost":"/","type":"fanout","durable":true,"auto_delete":false,"internal":false,"arguments":{}}],
		"queues":[{"name":"after","vhost":"/","durable":true,"auto_delete":false,"arguments":{}}]}`),
		400, `{"error":"bad_request","reason":"Validation failed\n\n-3 is not a valid message TTL\n (//bad)"}`)
	f.must(200, "GET", "/api/exchanges/%2F/x2", "")
	f.must(404, "GET", "/api/queues/%2F/after", "")
	f.must(404, "GET", "/api/operator-policies/%2F/op", "")
	f.wantError(f.do("POST", "/api/definitions/%2F", `{`+policies+`}`),
		400, `{"error":"bad_request","reason":"Validation failed\n\n-3 is not a valid message TTL\n (//bad)"}`)
	f.must(200, "GET", "/api/operator-policies/%2F/op", "")

	// A permission in a vhost that does not exist fails its category;
	// the others of the category are granted, later categories not.
	f.users.AddUser("app", "pw", nil)
	f.wantError(f.do("POST", "/api/definitions", `{"permissions":[
		{"user":"app","vhost":"novh","configure":".*","write":".*","read":".*"},
		{"user":"app","vhost":"/","configure":"^c","write":"^w","read":"^r"}],
		"topic_permissions":[{"user":"app","vhost":"/","exchange":"x","write":".*","read":".*"}]}`),
		400, `{"error":"bad_request","reason":"no_such_vhost: novh"}`)
	if p := f.must(200, "GET", "/api/permissions/%2F/app", "").object(t); p["configure"] != "^c" {
		t.Errorf("permission granted: %v", p)
	}
	f.must(404, "GET", "/api/topic-permissions/%2F/app", "")
}

// writeLog is a ResponseWriter that records each write's size and how
// many turns the API had taken when it came.
type writeLog struct {
	*httptest.ResponseRecorder
	reads *readStats
	sizes []int
	turns []int64
}

func (w *writeLog) Write(b []byte) (int, error) {
	w.sizes = append(w.sizes, len(b))
	w.turns = append(w.turns, w.reads.turns.Load())
	return w.ResponseRecorder.Write(b)
}

// TestLongRepliesAreStreamed checks that the whole-list replies go out in
// pieces of about streamChunk bytes, never whole, each piece encoded
// outside the engine's turns; that the definitions document is sent while
// it is read (its first piece before its last turn); and that they are
// the bytes the one-turn reads give, with no turn over readBatch items.
func TestLongRepliesAreStreamed(t *testing.T) {
	f := newFixture(t)
	bigWorld(t, f)
	r := &f.api.reads
	for _, tc := range []struct {
		path       string
		want       func() string
		whileRead  bool // the first piece goes out before the last turn
		minPieces  int
		largestOne int // bytes of the largest item, beyond streamChunk
	}{
		{"/api/bindings", func() string {
			return oneTurnBindings(t, f, []string{"/", "v1"}, func(engine.BindingView) bool { return true })
		}, false, 3, 1 << 10},
		{"/api/definitions", func() string { return oneTurnDefinitions(t, f, "") }, true, 2, 1 << 10},
		{"/api/queues", nil, true, 3, 2 << 10},
	} {
		req := httptest.NewRequest("GET", tc.path, nil)
		req.RemoteAddr = "127.0.0.1:40000"
		req.SetBasicAuth("guest", "guest")
		w := &writeLog{ResponseRecorder: httptest.NewRecorder(), reads: r}
		r.most.Store(0)
		f.h.ServeHTTP(w, req)
		last := r.turns.Load()
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", tc.path, w.Code, w.Body)
		}
		if most := r.most.Load(); most > readBatch {
			t.Errorf("%s: a turn handled %d items, want at most %d", tc.path, most, readBatch)
		}
		if len(w.sizes) < tc.minPieces {
			t.Errorf("%s: written in %d pieces (%v), want at least %d", tc.path, len(w.sizes), w.sizes, tc.minPieces)
		}
		for _, n := range w.sizes {
			if n > streamChunk+tc.largestOne {
				t.Errorf("%s: a piece of %d bytes, want at most %d", tc.path, n, streamChunk+tc.largestOne)
			}
		}
		if tc.whileRead && len(w.turns) > 0 && w.turns[0] >= last {
			t.Errorf("%s: the first piece went out after the last of %d turns", tc.path, last)
		}
		if tc.want != nil {
			if want := tc.want(); w.Body.String() != want {
				t.Errorf("%s differs from the one-turn read:\n%.600s\nwant\n%.600s", tc.path, w.Body.String(), want)
			}
		}
	}
}
