package script

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"warren/engine"
)

// recorded is a broker shared as a session shares one: several runners
// and a driver of its own apply commands, and each input's records make
// one entry, as engine/hub does.
type recorded struct {
	b       *engine.Broker
	start   string // the state it started from, base64url
	entries [][]string
}

func newRecorded(t *testing.T, cfg engine.Config) *recorded {
	t.Helper()
	cfg.RecordCommands = true
	b := engine.New(cfg)
	return &recorded{b: b, start: base64.RawURLEncoding.EncodeToString(b.Save())}
}

// commit takes the records the last input made as the next entry.
func (s *recorded) commit() {
	var recs []string
	s.b.DrainCommands(func(rec []byte) { recs = append(recs, base64.RawURLEncoding.EncodeToString(rec)) })
	s.b.DrainEvents(nil)
	s.entries = append(s.entries, recs)
}

// script writes the history, a comment before each entry and the final
// state hash last.
func (s *recorded) script() []string {
	lines := []string{"# a history", "history start 0 " + s.start}
	for i, recs := range s.entries {
		lines = append(lines, fmt.Sprintf("# entry %d", i+1), strings.TrimSpace(fmt.Sprintf("history entry %d %s", i+1, strings.Join(recs, " "))))
	}
	return append(lines, fmt.Sprintf("history hash %d %s", len(s.entries), FormatStateHash(StateHash(s.b))))
}

// TestHistoryReplaysExactly: the records of two participants' lines, a
// driver's own commands (as a real AMQP client's are) and clock moves,
// applied by history lines on a runner whose own broker was configured
// otherwise, give the session's broker byte for byte, and name its
// channels as the session's pages do.
func TestHistoryReplaysExactly(t *testing.T) {
	s := newRecorded(t, engine.Config{Seed: 42, EpochMs: 1_700_000_000_000, MaxQueuesPerVhost: 10})
	ada, bo := NewOn(s.b), NewOn(s.b)
	run := func(r *Runner, line string) {
		t.Helper()
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		s.commit()
	}
	run(ada, "declare queue jobs ttl=5s dlx=")
	run(bo, "declare queue dead")
	run(ada, "publish jobs hello expiration=2s")
	conn, err := s.b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest", Name: "pika"})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := s.b.OpenChannel(conn, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.b.BasicPublish(ch, engine.BasicPublish{RoutingKey: "jobs", Body: []byte("from pika")})
	s.commit()
	run(bo, "consume jobs")
	run(ada, "advance 3s")
	run(bo, "get nosuch") // a 404: the channel closes, in the replay too
	run(ada, "step")
	s.b.CloseConnection(conn)
	s.commit()

	r := New(engine.Config{Seed: 1})
	var trace strings.Builder
	for _, line := range s.script() {
		out, err := r.Exec(line)
		if err != nil {
			t.Fatalf("%.60s: %v", line, err)
		}
		trace.WriteString(out)
	}
	if got, want := r.B.Save(), s.b.Save(); string(got) != string(want) {
		t.Fatalf("the replay's state differs from the session's (%d bytes vs %d)", len(got), len(want))
	}
	if seq, ok := r.HistorySeq(); !ok || seq != uint64(len(s.entries)) {
		t.Fatalf("HistorySeq = %d %v, want %d", seq, ok, len(s.entries))
	}
	for _, want := range []string{"published ch=app x=\"\" key=jobs", "published ch=pika", "error: 404 NOT_FOUND", "consumer.added ch=app"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("the replay's trace lacks %q:\n%s", want, trace.String())
		}
	}
	// The history's records were dropped: the next line logs nothing,
	// and the broker still hashes (Save needs them drained).
	if _, err := r.Exec("declare queue mine"); err != nil {
		t.Fatal(err)
	}
	if r.B.PendingCommands() != 0 {
		t.Fatalf("%d command records left pending after a history", r.B.PendingCommands())
	}
	StateHash(r.B)
}

// TestHistoryLeavesBacklogs: a history entry does not settle, so that a
// backlog the session's driver left for later (a consumer attaching to
// more messages than one batch delivers) stays as it was, and the hashes
// agree.
func TestHistoryLeavesBacklogs(t *testing.T) {
	s := newRecorded(t, engine.Config{Seed: 3, MaxBatch: 2})
	r := NewOn(s.b)
	if _, err := r.Exec("declare queue q"); err != nil {
		t.Fatal(err)
	}
	s.commit()
	if _, err := r.Exec("publish q x count=5"); err != nil {
		t.Fatal(err)
	}
	s.commit()
	// A driver's consumer: one AdvanceTo delivers a batch and leaves the
	// rest due.
	conn, _ := s.b.OpenConnection(engine.ConnectionOpen{Vhost: "/", User: "guest", Name: "c"})
	ch, _ := s.b.OpenChannel(conn, 1)
	s.b.BasicConsume(ch, engine.BasicConsume{Queue: "q", NoAck: true})
	s.b.AdvanceTo(s.b.Now())
	s.commit()
	if _, ok := s.b.NextDeadline(); !ok {
		t.Fatal("no continuation is due: the test does not leave a backlog")
	}
	replay := New(engine.Config{})
	for _, line := range s.script() {
		if _, err := replay.Exec(line); err != nil {
			t.Fatalf("%.60s: %v", line, err)
		}
	}
}

// freshState is a new broker's state, base64url, for history start.
func freshState() string {
	return base64.RawURLEncoding.EncodeToString(engine.New(engine.Config{Seed: 9, RecordCommands: true}).Save())
}

// freshHash is that state's hash.
func freshHash() string {
	b := engine.New(engine.Config{Seed: 9, RecordCommands: true})
	return FormatStateHash(StateHash(b))
}

func init() {
	start := "history start 0 " + freshState()
	_, loadErr := engine.Load([]byte{0, 0, 0})
	_, decodeErr := engine.DecodeCommand([]byte{0, 0, 0})
	rec, err := engine.AppendCommand(nil, engine.CmdOpenConnection{Open: engine.ConnectionOpen{Vhost: "/", User: "guest", Name: "x"}})
	if err != nil {
		panic(err)
	}
	valid := base64.RawURLEncoding.EncodeToString(rec)
	extra := New(engine.Config{})
	for _, l := range []string{start, "declare queue extra"} {
		if _, err := extra.Exec(l); err != nil {
			panic(err)
		}
	}
	got := FormatStateHash(StateHash(extra.B))
	errorCases = append(errorCases,
		errorCase{hook: func(r *Runner) { r.ownsBroker = false }, line: "history start 0 AAAA", want: errOf(KeyHistoryShared, "verb", "history start"),
			text: "history start: this broker is a shared session's, which others use too; a history replays only into a broker of its own, as the offline playground's"},
		errorCase{line: "history entry 1", want: errOf(KeyHistoryNotStarted, "verb", "history entry"),
			text: "history entry: no history is being replayed (a history begins with history start)"},
		errorCase{line: "history start -1 AAAA", want: errOf(KeyHistoryBadSeq, "value", `"-1"`), text: `an entry number is 0, 1, 2, ... got "-1"`},
		errorCase{line: "history start 0 AA!A", want: errOf(KeyHistoryStateBase64, "offset", "2"),
			text: "history start: the state is not unpadded base64url (bad byte at 2)"},
		errorCase{line: "history start 0 AAAA", want: errOf(KeyHistoryBadState, "detail", loadErr.Error()),
			text: "history start: the state does not load: " + loadErr.Error()},
		errorCase{setup: []string{start}, line: "history entry 1 " + valid + " A+AA", want: errOf(KeyHistoryRecordBase64, "seq", "1", "n", "2", "offset", "1"),
			text: "history entry 1: record 2 is not unpadded base64url (bad byte at 1)"},
		errorCase{setup: []string{start}, line: "history entry 1 AAAA", want: errOf(KeyHistoryBadRecord, "seq", "1", "n", "1", "detail", decodeErr.Error()),
			text: "history entry 1: record 1 is not an engine command: " + decodeErr.Error()},
		errorCase{setup: []string{start, "history entry 1"}, line: "history entry 3", want: errOf(KeyHistoryGap, "seq", "3", "last", "1"),
			text: "history entry 3 does not follow entry 1: entries apply one after another, in order"},
		errorCase{setup: []string{start}, line: "history hash 1 " + freshHash(), want: errOf(KeyHistoryHashSeq, "seq", "1", "last", "0"),
			text: "history hash 1: the last entry applied is 0"},
		errorCase{setup: []string{start}, line: "history hash 0 xyz", want: errOf(KeyHistoryBadHash, "value", `"xyz"`),
			text: `a state hash is 16 hexadecimal digits, got "xyz"`},
		errorCase{setup: []string{start, "declare queue extra"}, line: "history hash 0 " + freshHash(),
			want: errOf(KeyHistoryDiverged, "seq", "0", "got", got, "want", freshHash()),
			text: "after entry 0 the state hash is " + got + ", the session's was " + freshHash() + ": this replay differs from the session (a line changed, left out, or run in between)"},
	)
}
