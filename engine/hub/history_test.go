package hub

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"warren/engine"
	"warren/engine/script"
)

// replayScript runs an exported history's lines on a fresh runner, as
// the offline playground and warren run do, failing the test on any
// script error (a history hash line that differs is one), and returns
// the runner.
func replayScript(t *testing.T, text []byte) *script.Runner {
	t.Helper()
	r := script.New(engine.Config{Seed: 1})
	for i, line := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("line %d (%.70s): %v", i+1, line, err)
		}
	}
	return r
}

// amqp applies what a real client did, as a driver does with Apply, and
// pumps; a command that fails fails the test.
func (h *harness) amqp(conn string, cmds ...engine.Command) []engine.Result {
	h.t.Helper()
	res, err := h.s.Apply(h.nowMs, Origin{Kind: OriginAMQP, Connection: conn}, cmds, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != nil {
			h.t.Fatalf("command %d: %v", i, r.Err)
		}
	}
	h.pump()
	return res
}

// TestHistoryReplaysTheSession: a session with participants' lines
// (declare, publish with a TTL, bind), clock moves (advance, step, mode
// switches, a live clock's ticks), a participant who leaves with a
// consumer open, and a real AMQP client (open, declare, publish, get,
// ack), run far past the hub's snapshot interval, exports as a script
// that a fresh runner replays to the session's state hash, with every
// entry's origin in its comment.
func TestHistoryReplaysTheSession(t *testing.T) {
	h := newHarness(t, Config{SnapshotEvery: 8, HashEvery: 5, Engine: engine.Config{Seed: 7}})
	h.history = NewHistory(h.s, HistoryLimits{})
	ada := h.join("Ada", Editor)
	bo := h.join("Bo", Editor)
	h.cmd(ada, "declare exchange orders topic")
	h.cmd(ada, "declare queue jobs ttl=30m dlx= dlrk=dead")
	h.cmd(bo, "declare queue dead")
	h.cmd(ada, "bind jobs orders eu.*")
	h.cmd(ada, "publish orders eu.paris hello expiration=5s")
	h.cmd(bo, "consume dead")

	var ch engine.ChannelID
	conn := h.amqp("c1", engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "guest", Name: "pika"}})[0].Conn
	ch = h.amqp("c1", engine.CmdOpenChannel{Conn: conn, Num: 1})[0].Channel
	h.s.ConnectionOpened(Connection{ID: "c1", Client: "pika 1.3.2", Address: "10.0.0.5:50122", User: "s-1"})
	h.pump()
	cmds := []engine.Command{engine.CmdQueueDeclare{Channel: ch, Declare: engine.QueueDeclare{Queue: "work"}}}
	for i := range 3 {
		cmds = append(cmds, engine.CmdBasicPublish{Channel: ch, Publish: engine.BasicPublish{RoutingKey: "work", Body: []byte(fmt.Sprint("job ", i))}})
	}
	h.amqp("c1", cmds...)
	got := h.amqp("c1", engine.CmdBasicGet{Channel: ch, Get: engine.BasicGet{Queue: "work"}})[0]
	if !got.Got {
		t.Fatal("basic.get found nothing")
	}
	h.amqp("c1", engine.CmdBasicAck{Channel: ch, DeliveryTag: got.Get.DeliveryTag})

	h.send(ada, Inbound{Type: InClock, AdvanceMs: 2000})
	h.send(bo, Inbound{Type: InClock, Step: true}) // hello's 5s expiration: dead-lettered to Bo's consumer
	h.cmd(ada, "advance 1m")
	for i := range 12 { // past SnapshotEvery, with hashed entries among them
		h.cmd(ada, fmt.Sprintf("publish jobs tick-%d", i))
	}
	h.send(ada, Inbound{Type: InClock, Mode: "live"})
	h.nowMs += 1500
	h.s.Tick(h.nowMs)
	h.pump()
	h.send(bo, Inbound{Type: InClock, Mode: "manual"})
	h.s.Leave(h.nowMs, bo.id) // Bo's consumer's connection closes
	delete(h.pages, bo.id)
	h.pump()
	if err := h.s.Advance(h.nowMs, 0); err != nil { // the server steps: jobs' 30m TTL
		t.Fatal(err)
	}
	h.pump()
	h.amqp("c1", engine.CmdCloseConnection{Conn: ch.Conn})
	h.s.ConnectionClosed("c1")
	h.pump()

	if h.s.Seq() < 30 || h.s.snap.Seq == 0 {
		t.Fatalf("the session made %d entries, snapshot at %d: the test does not pass the hub's snapshot", h.s.Seq(), h.s.snap.Seq)
	}
	if h.history.First() != 0 || h.history.Last() != h.s.Seq() || h.history.Len() != int(h.s.Seq()) {
		t.Fatalf("the history holds entries %d..%d (%d), the session is at %d", h.history.First(), h.history.Last(), h.history.Len(), h.s.Seq())
	}
	text := h.history.Script(h.s, Export{Name: "Tuesday class", At: "2025-01-02T10:00:00Z"})
	r := replayScript(t, text)
	if got, want := script.StateHash(r.B), HashState(h.s.b); got != want {
		t.Fatalf("the replay's state hash is %s, the session's %s", FormatHash(got), FormatHash(want))
	}
	lines := strings.Split(string(text), "\n")
	last := lines[len(lines)-2]
	if want := fmt.Sprintf("history hash %d %s", h.s.Seq(), FormatHash(HashState(h.s.b))); last != want {
		t.Fatalf("the last line is %q, want %q", last, want)
	}
	for _, want := range []string{
		`# Warren: the history of the shared session "Tuesday class"`,
		"# Exported 2025-01-02T10:00:00Z, after entry " + fmt.Sprint(h.s.Seq()) + "; the session's clock is manual.",
		"# The session's broker: seed 7,",
		"history start 0 ",
		"# 1 @0s Ada: declare exchange orders topic\nhistory entry 1 ",
		// Presence knew c1 only after its first entry; the script names
		// its client on every one.
		"# 7 @0s AMQP connection c1 (pika 1.3.2, 10.0.0.5:50122)\nhistory entry 7 ",
		" Ada: advance 2s\n",
		" Bo: step\n",
		" Ada: clock live\n",
		" the live clock moved\n",
		" Bo: clock manual\nhistory entry ",
		" Bo left; their connections closed\n",
		" the server: step\n",
		"\nhistory hash 5 ",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the script lacks %q:\n%.3000s", want, text)
		}
	}
	if strings.Contains(string(text), "The server keeps at most") {
		t.Error("a whole history says it was cut")
	}
	zh := string(h.history.Script(h.s, Export{Lang: "zh-CN", At: "2025-01-02T10:00:00Z"}))
	for _, want := range []string{"# Warren：一个共享会话的历史", " Bo 离开了；其连接已关闭\n", " 服务器：step\n"} {
		if !strings.Contains(zh, want) {
			t.Errorf("the Chinese script lacks %q", want)
		}
	}
	if got := script.StateHash(replayScript(t, []byte(zh)).B); got != HashState(h.s.b) {
		t.Fatal("the Chinese script replays to another state")
	}
}

// TestHistoryBounds: a history past its bounds starts again from the
// hub's latest snapshot, says so and from which entry, and still replays
// to the session's state; so does one a driver starts late.
func TestHistoryBounds(t *testing.T) {
	h := newHarness(t, Config{SnapshotEvery: 4})
	h.history = NewHistory(h.s, HistoryLimits{MaxEntries: 10})
	a := h.join("Ada", Editor)
	h.cmd(a, "declare queue q ttl=1h")
	for i := range 25 {
		h.cmd(a, fmt.Sprintf("publish q m%d", i))
	}
	late := NewHistory(h.s, HistoryLimits{})
	if h.history.First() == 0 || h.history.Len() > 10 || h.history.Last() != h.s.Seq() {
		t.Fatalf("the history holds entries %d..%d (%d), bound 10, session at %d", h.history.First(), h.history.Last(), h.history.Len(), h.s.Seq())
	}
	for _, hist := range []*History{h.history, late} {
		text := hist.Script(h.s, Export{At: "now"})
		want := fmt.Sprintf("this one starts from the session's state after entry %d,", hist.First())
		if !strings.Contains(string(text), want) || !strings.Contains(string(text), fmt.Sprintf("\nhistory start %d ", hist.First())) {
			t.Fatalf("a cut history does not say where it starts (%q):\n%.1500s", want, text)
		}
		if got := script.StateHash(replayScript(t, text).B); got != HashState(h.s.b) {
			t.Fatal("a cut history replays to another state")
		}
	}
	// The bytes bound too.
	h2 := newHarness(t, Config{SnapshotEvery: 4})
	h2.history = NewHistory(h2.s, HistoryLimits{MaxBytes: 200})
	b := h2.join("Bo", Editor)
	h2.cmd(b, "declare queue q")
	for range 10 {
		h2.cmd(b, "publish q "+strings.Repeat("x", 50))
	}
	if h2.history.First() == 0 || h2.history.bytes > 200+60 {
		t.Fatalf("the history holds %d record bytes from entry %d, bound 200", h2.history.bytes, h2.history.First())
	}
	if got := script.StateHash(replayScript(t, h2.history.Script(h2.s, Export{})).B); got != HashState(h2.s.b) {
		t.Fatal("a history cut by bytes replays to another state")
	}
}

// TestReadyEntriesWithNoOneThere: entries reach Ready.Entries, and so
// the history, while no participant is there to get them (a real
// client's actions, the server's clock moves).
func TestReadyEntriesWithNoOneThere(t *testing.T) {
	h := newHarness(t, Config{})
	h.history = NewHistory(h.s, HistoryLimits{})
	solo := h.amqp("c9", engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "guest", Name: "go"}})[0].Conn
	soloCh := engine.ChannelID{Conn: solo, Num: 1}
	h.amqp("c9", engine.CmdOpenChannel{Conn: solo, Num: 1},
		engine.CmdQueueDeclare{Channel: soloCh, Declare: engine.QueueDeclare{Queue: "solo", Args: engine.Table{"x-message-ttl": int64(1000)}}},
		engine.CmdBasicPublish{Channel: soloCh, Publish: engine.BasicPublish{RoutingKey: "solo", Body: []byte("x")}})
	if len(h.last.Entries) != 1 || len(h.last.Messages) != 0 {
		t.Fatalf("Ready has %d entries and %d messages, want 1 and 0", len(h.last.Entries), len(h.last.Messages))
	}
	h.s.Advance(h.nowMs, 0)
	h.pump()
	if h.history.Len() != 3 { // the client's two turns, the clock's step
		t.Fatalf("the history holds %d entries, want 3", h.history.Len())
	}
	text := h.history.Script(h.s, Export{})
	if got := script.StateHash(replayScript(t, text).B); got != HashState(h.s.b) {
		t.Fatal("the replay differs")
	}
	if !strings.Contains(string(text), "# 1 @0s AMQP connection c9\n") || !strings.Contains(string(text), "# 3 @1s the server: step\n") {
		t.Fatalf("the origins of a client presence never showed and of the server:\n%s", text)
	}
}

// TestHistoryScriptDetectsEdits: a script whose entry was left out fails
// with the gap, and one run with a line in between fails at the next
// hash line, naming the entry.
func TestHistoryScriptDetectsEdits(t *testing.T) {
	h := newHarness(t, Config{})
	h.history = NewHistory(h.s, HistoryLimits{})
	a := h.join("Ada", Editor)
	h.cmd(a, "declare queue q")
	h.cmd(a, "publish q x")
	lines := strings.Split(strings.TrimSpace(string(h.history.Script(h.s, Export{}))), "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "history entry 1 ") })
	edited := slices.Delete(slices.Clone(lines), at, at+1)
	r := script.New(engine.Config{})
	var err error
	for _, l := range edited {
		if _, err = r.Exec(l); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "history entry 2 does not follow entry 0") {
		t.Fatalf("a script without entry 1: %v", err)
	}
	inserted := slices.Insert(slices.Clone(lines), at+1, "publish q sneaky")
	r = script.New(engine.Config{})
	for _, l := range inserted {
		if _, err = r.Exec(l); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "after entry 2 the state hash is") {
		t.Fatalf("a script with a line in between: %v", err)
	}
}

// TestHashStateIsTheScripts: the hub's state hash and the script's are
// one function, so that a replayed history's hash compares with the
// session's.
func TestHashStateIsTheScripts(t *testing.T) {
	h := newHarness(t, Config{})
	a := h.join("Ada", Editor)
	h.cmd(a, "declare queue q")
	if HashState(h.s.b) != script.StateHash(h.s.b) {
		t.Fatal("hub.HashState and script.StateHash differ")
	}
	if FormatHash(HashState(h.s.b)) != script.FormatStateHash(HashState(h.s.b)) {
		t.Fatal("the two write a hash differently")
	}
}

// TestExportPhrases: every language has every phrase, with the same
// named values.
func TestExportPhrases(t *testing.T) {
	names := func(s string) []string {
		var out []string
		for rest := s; ; {
			i := strings.IndexByte(rest, '{')
			if i < 0 {
				break
			}
			j := strings.IndexByte(rest[i:], '}')
			out = append(out, rest[i:i+j+1])
			rest = rest[i+j+1:]
		}
		slices.Sort(out)
		return out
	}
	en := exportPhrases["en"]
	for _, lang := range ExportLangs {
		phrases := exportPhrases[lang]
		if len(phrases) != len(en) {
			t.Errorf("%s has %d phrases, en %d", lang, len(phrases), len(en))
		}
		for k, v := range en {
			if !slices.Equal(names(phrases[k]), names(v)) {
				t.Errorf("%s.%s names %v, en %v", lang, k, names(phrases[k]), names(v))
			}
		}
	}
}

// TestSeedRefusesHistoryLines: a page that opened a history and shares
// it live cannot seed a session with its history lines, which replace
// or replay into a broker of their own; the seed says which line, and
// why, rather than start a session that is not the page's.
func TestSeedRefusesHistoryLines(t *testing.T) {
	h := newHarness(t, Config{})
	err := h.s.Seed(h.nowMs, []string{"# a history", "history start 0 AAAA", "declare queue q"})
	var he *Error
	if !errors.As(err, &he) || he.Key != KeySeedLine || he.Args["n"] != "2" || !strings.Contains(he.Args["reason"], "history start: this broker is a shared session's") {
		t.Fatalf("seeding with a history line: %v", err)
	}
	if h.s.Seq() != 0 {
		t.Fatalf("a refused seed made %d entries", h.s.Seq())
	}
}

// TestHistoryOfASeededSession: a session Share live started from a
// page's log keeps the seed's entries, of origin server, and replays.
func TestHistoryOfASeededSession(t *testing.T) {
	h := newHarness(t, Config{})
	h.history = NewHistory(h.s, HistoryLimits{})
	if err := h.s.Seed(h.nowMs, []string{"declare queue q", "consume q", "publish q hi"}); err != nil {
		t.Fatal(err)
	}
	h.pump()
	text := string(h.history.Script(h.s, Export{}))
	if !strings.Contains(text, "# 1 @0s the server: declare queue q\n") || !strings.Contains(text, "# 4 @0s the server\n") {
		t.Fatalf("the seed's entries:\n%s", text)
	}
	if got := script.StateHash(replayScript(t, []byte(text)).B); got != HashState(h.s.b) {
		t.Fatal("a seeded session's history replays to another state")
	}
}
