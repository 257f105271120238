package mgmt

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"warren/engine"
)

// The tests here hold the requests whose work grows with the broker's
// bindings or definitions to a bounded amount of work per turn of the
// broker goroutine, by counting (readStats.most), not timing; and they
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
	f.engine(func(e *engine.Broker) {
		for _, x := range []engine.ExchangeDeclare{{Exchange: "fan", Type: "fanout", Durable: true},
			{Exchange: "hdr", Type: "headers"}, {Exchange: "dst.x", Type: "direct", AutoDelete: true}} {
			if err := e.ExchangeDeclare(ch, x); err != nil {
				t.Fatal(err)
			}
		}
		for j := 0; j < bigQueues; j++ {
			i := j * 7 % bigQueues // 7 and bigQueues are coprime
			q := "q" + strconv.Itoa(i)
			if _, err := e.QueueDeclare(ch, engine.QueueDeclare{Queue: q, Durable: i%2 == 0, Args: engine.Table{"x-max-length": int64(i)}}); err != nil {
				t.Fatal(err)
			}
			if err := e.QueueBind(ch, engine.QueueBind{Exchange: "fan", Queue: q, RoutingKey: q}); err != nil {
				t.Fatal(err)
			}
			if i%7 == 0 {
				for _, m := range []string{"any", "all"} {
					if err := e.QueueBind(ch, engine.QueueBind{Exchange: "hdr", Queue: q, Args: engine.Table{"x-match": m, "n": int64(i)}}); err != nil {
						t.Fatal(err)
					}
				}
			}
			e.DrainEvents(nil)
		}
		for i := 599; i >= 0; i-- {
			x := "x" + strconv.Itoa(i)
			if err := e.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: x, Type: "topic"}); err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				if err := e.ExchangeBind(ch, engine.ExchangeBind{Source: x, Destination: "dst.x", RoutingKey: "k." + strconv.Itoa(i)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := e.QueueDeclare(ch, engine.QueueDeclare{Queue: "excl", Exclusive: true}); err != nil {
			t.Fatal(err)
		}
		e.DrainEvents(nil)
	})
}

// oneTurnBindings is the binding list as it was read before it took many
// turns: every binding of the vhosts at once.
func oneTurnBindings(t *testing.T, f *fixture, vhosts []string, keep func(engine.BindingView) bool) string {
	out := []bindingJSON{}
	f.engine(func(e *engine.Broker) {
		for _, v := range vhosts {
			names := concat(e.QueueNames(v))
			slices.Sort(names)
			for _, b := range vhostBindings(names, e.Bindings(v)) {
				if keep(b) {
					out = append(out, toBindingJSON(v, b))
				}
			}
		}
	})
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
	hdr := func(b engine.BindingView) bool { return b.Source == "hdr" && b.Destination == "q7" && !b.DestinationIsExchange }
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
		{"/api/bindings/%2F/e/fan/q/q7", []string{"/"}, func(b engine.BindingView) bool { return b.Source == "fan" && b.Destination == "q7" && !b.DestinationIsExchange }, 2},
		{"/api/bindings/%2F/e/hdr/q/q7", []string{"/"}, hdr, 2},
		{"/api/bindings/%2F/e/amq.default/q/q7", []string{"/"}, func(b engine.BindingView) bool { return b.Source == "" && b.Destination == "q7" && !b.DestinationIsExchange }, 2},
		{"/api/bindings/%2F/e/x4/e/dst.x", []string{"/"}, func(b engine.BindingView) bool { return b.Source == "x4" && b.Destination == "dst.x" && b.DestinationIsExchange }, 2},
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
}
