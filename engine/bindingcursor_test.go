package engine_test

import (
	"reflect"
	"strconv"
	"testing"

	"warren/engine"
)

// cursorWorld is a broker with fanout exchanges a, b and c in vhost "/",
// each bound to queues q0..q(n-1), and a channel to change it with.
type cursorWorld struct {
	t  *testing.T
	b  *engine.Broker
	ch engine.ChannelID
}

func newCursorWorld(t *testing.T, n int) cursorWorld {
	t.Helper()
	b := engine.New(engine.Config{Seed: 1})
	conn, err := b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest"})
	ok(t, err)
	ch, err := b.OpenChannel(conn, 1)
	ok(t, err)
	w := cursorWorld{t, b, ch}
	for _, x := range []string{"a", "b", "c"} {
		ok(t, b.ExchangeDeclare(ch, engine.ExchangeDeclare{Exchange: x, Type: "fanout"}))
	}
	for i := 0; i < n; i++ {
		_, err := b.QueueDeclare(ch, engine.QueueDeclare{Queue: "q" + strconv.Itoa(i)})
		ok(t, err)
		for _, x := range []string{"a", "b", "c"} {
			w.bind(x, "q"+strconv.Itoa(i), "k")
		}
	}
	b.DrainEvents(nil)
	return w
}

func (w cursorWorld) bind(x, q, key string) {
	w.t.Helper()
	ok(w.t, w.b.QueueBind(w.ch, engine.QueueBind{Exchange: x, Queue: q, RoutingKey: key}))
}

func (w cursorWorld) unbind(x, q, key string) {
	w.t.Helper()
	ok(w.t, w.b.QueueUnbind(w.ch, engine.QueueBind{Exchange: x, Queue: q, RoutingKey: key}))
}

// names renders bindings as "source>destination:key".
func bindingNames(bs []engine.BindingView) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Source + ">" + b.Destination + ":" + b.RoutingKey
	}
	return out
}

// TestBindingCursorResumes walks the bindings in calls of every size from
// 1 to more than there are: each call does at most its units of work, and
// the calls together return what Bindings does, in the same order.
func TestBindingCursorResumes(t *testing.T) {
	w := newCursorWorld(t, 5)
	want := w.b.Bindings("/")
	if len(want) != 15 {
		t.Fatalf("%d bindings, want 15", len(want))
	}
	// "" and amq.direct have no declared bindings; "zz" does not exist.
	sources := []string{"", "a", "amq.direct", "b", "c", "zz"}
	units := 15 + len(sources) // each binding and each exchange left
	for limit := 1; limit <= 25; limit++ {
		c := engine.NewBindingCursor("/", sources)
		var got []engine.BindingView
		calls, total := 0, 0
		for !c.Done() {
			bs, work := w.b.AppendBindings(nil, c, limit)
			if work > limit || work < 1 || len(bs) > work {
				t.Fatalf("limit %d: a call returned %d bindings for %d units", limit, len(bs), work)
			}
			got = append(got, bs...)
			total += work
			if calls++; calls > 100 {
				t.Fatalf("limit %d: the walk does not end", limit)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("limit %d: walked %q, want %q", limit, bindingNames(got), bindingNames(want))
		}
		// A call that ends at the end of an exchange leaves it to the
		// next: at most one unit more per call.
		if total < units || total > units+calls {
			t.Errorf("limit %d: %d units in %d calls, want %d to %d", limit, total, calls, units, units+calls)
		}
	}
	if bs, _ := w.b.AppendBindings(nil, engine.NewBindingCursor("/", nil), 10); bs != nil {
		t.Error("a walk over no exchanges returned bindings")
	}
}

// TestBindingCursorBoundsLookups checks that exchanges without bindings
// count as work: 3,000 of them take 3,000 / limit calls, not one.
func TestBindingCursorBoundsLookups(t *testing.T) {
	w := newCursorWorld(t, 0)
	var sources []string
	for i := 0; i < 3000; i++ {
		sources = append(sources, "none"+strconv.Itoa(i))
	}
	c := engine.NewBindingCursor("/", sources)
	calls := 0
	for !c.Done() {
		w.b.AppendBindings(nil, c, 100)
		calls++
	}
	if calls != 30 {
		t.Errorf("%d calls, want 30", calls)
	}
}

// TestBindingCursorAcrossChanges changes the bindings between two calls
// of a walk and checks each rule of BindingCursor's contract.
func TestBindingCursorAcrossChanges(t *testing.T) {
	w := newCursorWorld(t, 4) // a, b, c each bound to q0..q3
	c := engine.NewBindingCursor("/", []string{"a", "b", "c"})
	// 4 bindings, a left behind, 2 bindings: 7 units. The cursor stands
	// in b after q1.
	firstBs, _ := w.b.AppendBindings(nil, c, 7)
	first := bindingNames(firstBs)
	if want := []string{"a>q0:k", "a>q1:k", "a>q2:k", "a>q3:k", "b>q0:k", "b>q1:k"}; !reflect.DeepEqual(first, want) {
		t.Fatalf("first call: %q, want %q", first, want)
	}
	w.unbind("a", "q3", "k") // passed: was returned (rule 2)
	w.bind("a", "q0", "new") // its source is passed: not returned (rule 3)
	w.unbind("b", "q1", "k") // passed
	w.unbind("b", "q2", "k") // ahead: not returned (rule 2)
	w.bind("b", "q0", "new") // the cursor's source: returned (rule 3)
	w.bind("c", "q1", "new") // ahead: returned (rule 3)
	w.unbind("b", "q0", "k") // passed, removed before the bindings after it
	var rest []string
	for !c.Done() {
		bs, _ := w.b.AppendBindings(nil, c, 2)
		rest = append(rest, bindingNames(bs)...)
	}
	want := []string{"b>q3:k", "b>q0:new", "c>q0:k", "c>q1:k", "c>q2:k", "c>q3:k", "c>q1:new"}
	if !reflect.DeepEqual(rest, want) {
		t.Fatalf("after the changes: %q, want %q", rest, want)
	}

	// An exchange deleted ahead of the cursor contributes nothing; one
	// deleted and declared again is read as it now is (rule 4).
	c = engine.NewBindingCursor("/", []string{"a", "b", "c"})
	w.b.AppendBindings(nil, c, 2) // in a, after q0
	ok(t, w.b.ExchangeDelete(w.ch, engine.ExchangeDelete{Exchange: "a"}))
	ok(t, w.b.ExchangeDeclare(w.ch, engine.ExchangeDeclare{Exchange: "a", Type: "fanout"}))
	w.bind("a", "q2", "again")
	ok(t, w.b.ExchangeDelete(w.ch, engine.ExchangeDelete{Exchange: "c"}))
	rest = nil
	for !c.Done() {
		bs, _ := w.b.AppendBindings(nil, c, 3)
		rest = append(rest, bindingNames(bs)...)
	}
	want = []string{"a>q2:again", "b>q3:k", "b>q0:new"}
	if !reflect.DeepEqual(rest, want) {
		t.Fatalf("after deleting exchanges: %q, want %q", rest, want)
	}

	// The vhost's deletion ends a walk (rule 5).
	ok(t, w.b.AddVhost("v"))
	c = engine.NewBindingCursor("v", []string{"amq.direct", "amq.fanout"})
	w.b.AppendBindings(nil, c, 1)
	ok(t, w.b.DeleteVhost("v"))
	if bs, _ := w.b.AppendBindings(nil, c, 10); bs != nil || !c.Done() {
		t.Errorf("after the vhost's deletion: %v, done %v", bs, c.Done())
	}
}

// TestBindingCount counts an exchange's bindings as source.
func TestBindingCount(t *testing.T) {
	w := newCursorWorld(t, 3)
	w.bind("a", "q0", "other")
	for x, want := range map[string]int{"a": 4, "b": 3, "amq.direct": 0, "none": 0} {
		if got := w.b.BindingCount("/", x); got != want {
			t.Errorf("BindingCount(/, %s) = %d, want %d", x, got, want)
		}
	}
	if got := w.b.BindingCount("nope", "a"); got != 0 {
		t.Errorf("BindingCount in a missing vhost = %d", got)
	}
}

// TestBindingsBetween lists the bindings between two ends, in creation
// order, and nothing for ends that do not exist.
func TestBindingsBetween(t *testing.T) {
	w := newCursorWorld(t, 3)
	w.bind("a", "q1", "second")
	ok(t, w.b.ExchangeBind(w.ch, engine.ExchangeBind{Source: "a", Destination: "b", RoutingKey: "q1"}))
	for _, tc := range []struct {
		ends engine.BindingEnds
		want []string
	}{
		{engine.BindingEnds{Source: "a", Destination: "q1"}, []string{"a>q1:k", "a>q1:second"}},
		{engine.BindingEnds{Source: "a", Destination: "b", ToExchange: true}, []string{"a>b:q1"}},
		{engine.BindingEnds{Source: "a", Destination: "b"}, []string{}},
		{engine.BindingEnds{Source: "none", Destination: "q1"}, []string{}},
	} {
		if got := bindingNames(w.b.BindingsBetween("/", tc.ends)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.ends, got, tc.want)
		}
	}
	if got := w.b.BindingsBetween("nope", engine.BindingEnds{Source: "a", Destination: "q1"}); got != nil {
		t.Errorf("in a missing vhost: %v", got)
	}
}

// TestAppendBindingsAllocatesNothing: given room, a call that copies 500
// bindings allocates nothing, whatever the bindings' arguments (shared,
// read-only): a management listing's turn gives the collector nothing to
// make the engine's owner assist with.
func TestAppendBindingsAllocatesNothing(t *testing.T) {
	w := newCursorWorld(t, 300)
	for i := 0; i < 300; i++ {
		ok(t, w.b.QueueBind(w.ch, engine.QueueBind{Exchange: "a", Queue: "q" + strconv.Itoa(i), RoutingKey: "args",
			Args: engine.Table{"x-note": "n" + strconv.Itoa(i)}}))
	}
	buf := make([]engine.BindingView, 0, 500)
	cursors := make([]*engine.BindingCursor, 21)
	for i := range cursors {
		cursors[i] = engine.NewBindingCursor("/", []string{"a", "b", "c"})
	}
	i := 0
	allocs := testing.AllocsPerRun(20, func() {
		if bs, _ := w.b.AppendBindings(buf, cursors[i], 500); len(bs) != 500 {
			t.Fatalf("%d bindings, want 500", len(bs))
		}
		i++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations a call", allocs)
	}
	bs, _ := w.b.AppendBindings(nil, engine.NewBindingCursor("/", []string{"a"}), 1000)
	for _, b := range bs {
		if b.RoutingKey == "args" && b.Args["x-note"] != "n"+b.Destination[1:] {
			t.Fatalf("%s: arguments %v", b.Destination, b.Args)
		}
	}
}
