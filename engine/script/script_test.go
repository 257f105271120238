package script

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"warren/engine"
)

// word is a token as the tests write it: text, and whether it is key=value
// and quoted.
type word struct {
	text   string
	kv     bool
	quoted bool
}

func words(toks []token) []word {
	out := []word{}
	for _, t := range toks {
		out = append(out, word{t.text, t.isKV(), t.quoted})
	}
	return out
}

func TestLex(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []word
	}{
		{"", []word{}},
		{"   \t ", []word{}},
		{"a b\t c", []word{{"a", false, false}, {"b", false, false}, {"c", false, false}}},
		// Quotes group words; double quotes escape with a backslash.
		{`publish q "hello world"`, []word{{"publish", false, false}, {"q", false, false}, {"hello world", false, true}}},
		{`"say \"hi\" \\ \n"`, []word{{`say "hi" \ n`, false, true}}},
		{`'{"message-ttl":60000}'`, []word{{`{"message-ttl":60000}`, false, true}}},
		{`'a\b'`, []word{{`a\b`, false, true}}},
		{`a"b c"d`, []word{{"ab cd", false, true}}},
		{`"" x`, []word{{"", false, true}, {"x", false, false}}},
		// key=value: an unquoted = after the first character.
		{"ttl=5s", []word{{"ttl=5s", true, false}}},
		{`body="two words"`, []word{{"body=two words", true, true}}},
		{"a=b=c", []word{{"a=b=c", true, false}}},
		{`"a=b"`, []word{{"a=b", false, true}}},
		{`x"y"=z`, []word{{"xy=z", false, true}}},
		{"=b", []word{{"=b", false, false}}},
		// Comments: # at the start of a word, outside quotes.
		{"# a comment", []word{}},
		{"publish q # the rest", []word{{"publish", false, false}, {"q", false, false}}},
		{"a#b", []word{{"a#b", false, false}}},
		{`"#" x`, []word{{"#", false, true}, {"x", false, false}}},
		// A topic pattern needs no quotes: a # that ends the line or
		// starts a longer word is a word (a learner typing bind q x #
		// got an empty binding key).
		{"bind q x #", []word{{"bind", false, false}, {"q", false, false}, {"x", false, false}, {"#", false, false}}},
		{"bind q x #.error", []word{{"bind", false, false}, {"q", false, false}, {"x", false, false}, {"#.error", false, false}}},
		{"#.x", []word{}},
	} {
		toks, err := lex(tc.line)
		if err != nil {
			t.Errorf("lex(%q): %v", tc.line, err)
			continue
		}
		if got := words(toks); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("lex(%q) = %+v, want %+v", tc.line, got, tc.want)
		}
	}
}

func TestLexKeyValue(t *testing.T) {
	toks, err := lex(`x-match=all header.k="v w"`)
	if err != nil {
		t.Fatal(err)
	}
	if k, v := toks[0].key(), toks[0].value(); k != "x-match" || v != "all" {
		t.Errorf("got %q=%q", k, v)
	}
	if k, v := toks[1].key(), toks[1].value(); k != "header.k" || v != "v w" {
		t.Errorf("got %q=%q", k, v)
	}
}

func TestLexErrors(t *testing.T) {
	for _, line := range []string{`publish q "unterminated`, `'`, `a "b\"`} {
		if _, err := lex(line); err == nil || !strings.Contains(err.Error(), "unterminated quote") {
			t.Errorf("lex(%q) = %v, want an unterminated quote error", line, err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"5000", 5000}, {"250ms", 250}, {"5s", 5000}, {"1.5s", 1500},
		{"2m", 120_000}, {"1h", 3_600_000}, {"1d", 86_400_000}, {"1m30s", 90_000},
		{"1h2m3.456s", 3_723_456}, {"0.0004s", 0}, {"0.0006s", 1},
	} {
		got, err := parseDuration(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseDuration(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "-5", "-5s", "5x", "s", "5 s", "1.2.3s", "5S", "ms"} {
		if got, err := parseDuration(in); err == nil {
			t.Errorf("parseDuration(%q) = %d, want an error", in, got)
		}
	}
}

// TestDurationRoundTrip: what the output prints, a script can read back.
func TestDurationRoundTrip(t *testing.T) {
	for _, ms := range []int64{0, 1, 999, 1000, 1500, 1001, 59_999, 60_000, 90_000, 3_723_456, 86_400_000, 90_061_001} {
		s := engine.FormatDuration(ms)
		got, err := parseDuration(s)
		if err != nil || got != ms {
			t.Errorf("parseDuration(FormatDuration(%d) = %q) = %d, %v", ms, s, got, err)
		}
	}
}

func TestParseValue(t *testing.T) {
	for _, tc := range []struct {
		in     string
		quoted bool
		want   any
	}{
		{"5", false, int64(5)},
		{"-3", false, int64(-3)},
		{"true", false, true},
		{"false", false, false},
		{"1.5", false, 1.5},
		{"2e3", false, 2000.0},
		{"abc", false, "abc"},
		{"True", false, "True"},
		{"queue.name", false, "queue.name"},
		{"1.2.3", false, "1.2.3"},
		{"[a,1,true]", false, []any{"a", int64(1), true}},
		{"[]", false, []any{}},
		{"5", true, "5"},
		{"true", true, "true"},
		{"[a]", true, "[a]"},
		{"", false, ""},
	} {
		if got := parseValue(tc.in, tc.quoted); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseValue(%q, quoted=%v) = %#v, want %#v", tc.in, tc.quoted, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	c, err := Parse(`@c1.2 publish amq.topic a.b "hi there" mandatory priority=3 header.x="y z" # why`)
	if err != nil {
		t.Fatal(err)
	}
	want := &Command{
		Line:    `@c1.2 publish amq.topic a.b "hi there" mandatory priority=3 header.x="y z" # why`,
		Channel: "c1.2",
		Verb:    "publish",
		Args:    []string{"amq.topic", "a.b", "hi there"},
		Flags:   map[string]bool{"mandatory": true},
		Opts:    []Opt{{Key: "priority", Value: "3"}, {Key: "header.x", Value: "y z", Quoted: true}},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", c, want)
	}
	if v, ok := c.Opt("priority"); v != "3" || !ok {
		t.Errorf("Opt(priority) = %q, %v", v, ok)
	}
	if _, ok := c.Opt("expiration"); ok {
		t.Error("Opt(expiration) should be absent")
	}
}

func TestParseShapes(t *testing.T) {
	for _, tc := range []struct {
		line  string
		verb  string
		args  []string
		flags []string
	}{
		{"declare queue", "declare queue", nil, nil},
		{"declare queue q durable x-queue-mode=lazy", "declare queue", []string{"q"}, []string{"durable"}},
		{"bind exchange dst src key", "bind exchange", []string{"dst", "src", "key"}, nil},
		{"bind q amq.direct", "bind", []string{"q", "amq.direct"}, nil},
		// A quoted flag word is an argument.
		{`publish q "persistent"`, "publish", []string{"q", "persistent"}, nil},
		{"publish q persistent", "publish", []string{"q"}, []string{"persistent"}},
		{"tx commit", "tx commit", nil, nil},
		{"show timers", "show timers", nil, nil},
		{"expect queue q ready=0", "expect queue", []string{"q"}, nil},
		// Policy verbs take rabbitmqctl's words as they are.
		{`set_policy -p v ttl "^q" '{"message-ttl":1}' --priority 2`, "set_policy",
			[]string{"-p", "v", "ttl", "^q", `{"message-ttl":1}`, "--priority", "2"}, nil},
		{"advance to 5s", "advance", []string{"to", "5s"}, nil},
	} {
		c, err := Parse(tc.line)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.line, err)
			continue
		}
		var flags []string
		for f := range c.Flags {
			flags = append(flags, f)
		}
		if c.Verb != tc.verb || !reflect.DeepEqual(c.Args, tc.args) || !reflect.DeepEqual(flags, tc.flags) {
			t.Errorf("Parse(%q) = verb %q args %q flags %q; want %q %q %q", tc.line, c.Verb, c.Args, flags, tc.verb, tc.args, tc.flags)
		}
	}
}

func TestParseNothing(t *testing.T) {
	for _, line := range []string{"", "  ", "# just a comment", "\t# indented"} {
		if c, err := Parse(line); c != nil || err != nil {
			t.Errorf("Parse(%q) = %+v, %v; want nil, nil", line, c, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string
	}{
		{"frobnicate q", `unknown command "frobnicate"`},
		{"declare", "declare what? expected one of: queue, exchange"},
		{"declare topic x", "declare what?"},
		{"show", "show what?"},
		{"consume q foo=1", `consume: unknown option "foo" (options: prefetch, priority, tag)`},
		{"get q requeue=true", `get: unknown option "requeue"`},
		{"consume", "usage: consume QUEUE"},
		{"publish", "usage: publish [EXCHANGE] ROUTING-KEY [BODY]"},
		{"publish x k body extra", "usage: publish"},
		{"advance", "usage: advance DURATION"},
		{"advance 1s 2s 3s", "usage: advance"},
		{"declare exchange", "usage: declare exchange NAME"},
		{"delete queue a b", "usage: delete queue NAME"},
		{"@", "empty channel name after @"},
		{"@c1", "missing command after @c1"},
		{`publish q "open`, "unterminated quote"},
	} {
		c, err := Parse(tc.line)
		if err == nil {
			t.Errorf("Parse(%q) = %+v, want error %q", tc.line, c, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error %q, want it to contain %q", tc.line, err, tc.want)
		}
	}
}

// TestUsageNamesVerb keeps Help honest: each usage line starts with its
// verb, the overview names every verb under a group, and help VERB shows
// its usage.
func TestUsageNamesVerb(t *testing.T) {
	for name, v := range verbs {
		if !strings.HasPrefix(v.usage, name) {
			t.Errorf("verb %q has usage %q", name, v.usage)
		}
		if !regexp.MustCompile(`(: +|, )` + regexp.QuoteMeta(name) + `(,|\n)`).MatchString(Help()) {
			t.Errorf("the help overview does not name %q", name)
		}
		if got, err := HelpFor(name); err != nil || !strings.Contains(got, v.usage) {
			t.Errorf("HelpFor(%q) = %q, %v; want it to hold %q", name, got, err, v.usage)
		}
	}
	for _, v := range Verbs() {
		if v.Group == "" {
			t.Errorf("verb %q is in no help group", v.Name)
		}
	}
}

// TestHelp is what a learner types: the overview fits on a page that shows
// 40 lines, help VERB shows one verb (the page used to hide publish, get,
// nack, reject, set_policy, purge and qos in the middle of a cut list),
// help PREFIX every verb starting with it, and a wrong name is an error.
func TestHelp(t *testing.T) {
	r := New(engine.Config{Seed: 1})
	out, err := r.Exec("help")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "\n"); n > 12 {
		t.Errorf("the help overview is %d lines, want at most 12:\n%s", n, out)
	}
	for _, c := range []struct {
		line  string
		lines int
		want  string
	}{
		{"help publish", 1, "publish [EXCHANGE] ROUTING-KEY [BODY]"},
		{"help get", 1, "get QUEUE [no-ack]"},
		{"help nack", 1, "nack TAG|last|all [multiple] [requeue=false]"},
		{"help reject", 1, "reject TAG|last [requeue=false]"},
		{"help set_policy", 1, "set_policy [-p VHOST] NAME PATTERN"},
		{"help purge", 1, "purge QUEUE"},
		{"help qos", 1, "qos PREFETCH-COUNT"},
		{"help show queue", 1, "show queue NAME"},
		{"help declare", 2, "declare exchange NAME"},
		{"help show", len(twoWordVerbs["show"]), "show timers"},
	} {
		out, err := r.Exec(c.line)
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if n := strings.Count(out, "\n"); n != c.lines || !strings.Contains(out, c.want) {
			t.Errorf("%s printed %d lines, want %d holding %q:\n%s", c.line, n, c.lines, c.want, out)
		}
	}
	if _, err := r.Exec("help frobnicate"); err == nil || !strings.Contains(err.Error(), `no command "frobnicate"`) {
		t.Errorf("help frobnicate: %v, want an error naming it", err)
	}
}

// TestDocCoversEveryVerb keeps doc.go's grammar in step with the verbs: a
// verb added without documentation fails here.
func TestDocCoversEveryVerb(t *testing.T) {
	data, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for name := range verbs {
		if !strings.Contains(doc, "//\t"+name) && !strings.Contains(doc, "| "+name) {
			t.Errorf("doc.go does not document the verb %q in a usage block", name)
		}
	}
}

// TestShowIsBounded: show lists at most ShowLimit items and says how many
// it left out, so that showing a queue of 100,000 messages costs what the
// page shows (a learner's show queue of 20,000 ran the in-page engine out
// of memory building its output), and the messages past the list can
// still be inspected by index.
func TestShowIsBounded(t *testing.T) {
	const n = 100000
	r := New(engine.Config{Seed: 1})
	for _, line := range []string{"declare queue q", "publish q m count=100000", "consume q tag=c", "declare queue big", "publish big x count=100000"} {
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	for _, c := range []struct{ line, cut string }{
		{"show queue big", fmt.Sprintf("... %d more messages not shown", n-ShowLimit)},
		{"show channels", fmt.Sprintf("... %d more deliveries not shown", n-ShowLimit)},
	} {
		out, err := r.Exec(c.line)
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if lines := strings.Count(out, "\n"); lines > ShowLimit+3 || !strings.Contains(out, c.cut) {
			t.Errorf("%s printed %d lines, want at most %d ending with %q", c.line, lines, ShowLimit+3, c.cut)
		}
	}
	for _, line := range []string{"expect queue big ready=100000 messages=100000", "expect msg big 99999 body=x", "show msg big 99999"} {
		if _, err := r.Exec(line); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	if _, err := r.Exec("expect msg big 100000"); err == nil || !strings.Contains(err.Error(), "has 100000 ready messages, no index 100000") {
		t.Errorf("expect msg past the end: %v", err)
	}
}

// TestAMQPErrorOutput: an AMQP error prints readably. rabbitmqctl's
// several-line validation text shows its lines, not a literal \n, and no
// blank line (which would end a scenario's output); an error that closed
// the channel or the connection says so and that the next command reopens
// it, which it does.
func TestAMQPErrorOutput(t *testing.T) {
	r := New(engine.Config{Seed: 1})
	for _, c := range []struct{ line, want string }{
		{`set_policy P ".*" '{"message-ttl":-1}'`,
			"error: 406 Validation failed\n  -1 is not a valid message TTL\n"},
		// publish KEY BODY is the default exchange: this one names an
		// exchange, and the body, to get the 404.
		{"publish nosuch k body",
			"channel.closed ch=app code=404 text=\"NOT_FOUND - no exchange 'nosuch' in vhost '/'\"\n" +
				"error: 404 NOT_FOUND - no exchange 'nosuch' in vhost '/'\n" +
				"note: channel app closed; the next command on it reopens it\n"},
		{"declare queue q", "queue.declared ch=app q=q\n"},
		{"publish q m expiration=99999999999999999999",
			"channel.closed ch=app code=406 text=\"PRECONDITION_FAILED - invalid expiration '99999999999999999999': {value_too_large,\\n" +
				strings.Repeat(" ", 44) + "99999999999999999999}\"\n" +
				"error: 406 PRECONDITION_FAILED - invalid expiration '99999999999999999999': {value_too_large,\n" +
				"  99999999999999999999}\n" +
				"note: channel app closed; the next command on it reopens it\n"},
		{"declare exchange e bogus",
			"channel.closed ch=app code=200\n" +
				"connection.closed ch=app code=503 text=\"COMMAND_INVALID - unknown exchange type 'bogus'\"\n" +
				"error: 503 COMMAND_INVALID - unknown exchange type 'bogus'\n" +
				"note: connection app closed, with its channels; the next command on one reconnects\n"},
		{"publish q m", "published ch=app x=\"\" key=q msg=1\nenqueued q=q msg=1 via=(default):q\n"},
		// Two words are KEY BODY on the default exchange: a key no queue
		// has is dropped, and the trace says so.
		{"publish nosuch k", "published ch=app x=\"\" key=nosuch msg=2\ndropped ch=app x=\"\" msg=2 cause=\"routed to no queue\"\n"},
	} {
		out, err := r.Exec(c.line)
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if out != c.want {
			t.Errorf("%s printed\n%s\nwant\n%s", c.line, out, c.want)
		}
	}
}

var rewrite = flag.Bool("rewrite", false, "rewrite testdata expectations with the actual output")

// TestScenarios runs testdata/*.txt, scenario files of the script's own
// verbs; -rewrite regenerates their expected output.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.txt")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases, err := ParseCases(string(data))
			if err != nil {
				t.Fatal(err)
			}
			outs := RunCases(cases, engine.Config{Seed: 1})
			if *rewrite {
				if err := os.WriteFile(f, []byte(FormatCases(cases, outs)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for i, c := range cases {
				if outs[i] != c.Expected {
					t.Errorf("%s:%d: output differs\n--- got\n%s--- want\n%s", f, c.Line, outs[i], c.Expected)
				}
			}
		})
	}
}

// TestPublisherRecord: a multiple confirm covers every tag up to its own,
// confirms with one outcome share a run, and the record stays bounded,
// saying so when a tag is older than it keeps.
func TestPublisherRecord(t *testing.T) {
	p := &publisherRecord{floor: 1}
	p.confirm(1, false, false)
	p.confirm(4, true, false) // acks 2, 3 and 4
	p.confirm(5, false, true)
	p.confirm(5, false, false) // a second confirm of 5 changes nothing
	for tag, want := range map[uint64]string{1: "ack", 3: "ack", 4: "ack", 5: "nack", 6: ""} {
		if got, _ := p.outcome(tag); got != want {
			t.Errorf("outcome(%d) = %q, want %q", tag, got, want)
		}
	}
	if len(p.confirms) != 2 {
		t.Errorf("runs %+v, want 2", p.confirms)
	}
	for tag := uint64(6); tag < 1_000_000; tag++ {
		p.confirm(tag, false, true)
	}
	if len(p.confirms) != 2 {
		t.Errorf("a million nacks take %d runs, want 1 more", len(p.confirms))
	}
	q := &publisherRecord{floor: 1}
	for tag := uint64(1); tag <= 3*maxConfirmRuns; tag++ {
		q.confirm(tag, false, tag%2 == 0)
	}
	if len(q.confirms) != maxConfirmRuns {
		t.Errorf("%d runs kept, want %d", len(q.confirms), maxConfirmRuns)
	}
	if _, forgotten := q.outcome(1); !forgotten {
		t.Error("tag 1 is still known after 3072 alternating confirms")
	}
	if got, forgotten := q.outcome(3 * maxConfirmRuns); got != "nack" || forgotten {
		t.Errorf("the last tag: %q forgotten=%v", got, forgotten)
	}

	r := New(engine.Config{Seed: 1})
	for _, line := range []string{"declare exchange x", "publish x k b count=150 mandatory"} {
		if _, err := r.Exec(line); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.pubs) != 1 {
		t.Fatalf("%d publisher records, want 1", len(r.pubs))
	}
	for _, rec := range r.pubs {
		if len(rec.returns) != maxReturns {
			t.Errorf("%d returns kept, want %d", len(rec.returns), maxReturns)
		}
	}
}

// TestShowTellsTypesApart: a headers exchange compares values with their
// types, so show and the trace must not print the string "1" and the
// integer 1 alike, nor the float 1.0 as 1 (a learner of the headers lesson
// could not see the difference being taught).
func TestShowTellsTypesApart(t *testing.T) {
	r := New(engine.Config{Seed: 1})
	for _, line := range []string{"declare queue q", "publish q m header.n=1 header.s='1' header.f=1.0 header.b='true' header.w=word"} {
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	out, err := r.Exec("show msg q 0")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"header.n: 1\n", "header.s: '1'", "header.f: 1.0", "header.b: 'true'", "header.w: word"} {
		if !strings.Contains(out, want) {
			t.Errorf("show msg lacks %q:\n%s", want, out)
		}
	}
}

// TestTraceIsBounded: with MaxTraceBytes set, a command that makes 200,000
// events prints about that many bytes of them and says it cut them, and
// the events it did not print still count ("ack last" acks the last
// delivery).
func TestTraceIsBounded(t *testing.T) {
	r := New(engine.Config{Seed: 1})
	r.MaxTraceBytes = 1000
	for _, line := range []string{"declare queue q", "publish q m count=100000", "consume q tag=c"} {
		out, err := r.Exec(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if len(out) > r.MaxTraceBytes+200 {
			t.Errorf("%s printed %d bytes, want about %d", line, len(out), r.MaxTraceBytes)
		}
	}
	if !r.TraceCut() {
		t.Error("TraceCut is false after a cut trace")
	}
	for _, line := range []string{"ack last", "expect queue q unacked=99999"} {
		if _, err := r.Exec(line); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	if r.TraceCut() {
		t.Error("TraceCut is still true after a short trace")
	}
}
