package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"warren/engine"
)

// errorCase is a line that fails after setup lines ran (and hook, when
// the state it needs is quicker made by hand): the *Error it must return,
// and that error's English text.
type errorCase struct {
	setup []string
	hook  func(r *Runner)
	line  string
	want  *Error
	text  string
}

func errOf(key string, nameValues ...string) *Error { return newError(key, nameValues...) }

func failed(cause *Error) *Error { return fail(cause) }

func withMismatches(e *Error, ms ...Mismatch) *Error {
	e.Mismatches = ms
	return e
}

// jsonDetail is the encoding/json error the policy definition text gives,
// as parseDefinition decodes it.
func jsonDetail(text string) string {
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var raw map[string]any
	return dec.Decode(&raw).Error()
}

var errorCases = []errorCase{
	// Parsing.
	{line: "@ publish q", want: errOf(KeyEmptyChannel), text: "empty channel name after @"},
	{line: "@c1", want: errOf(KeyMissingCommand, "channel", "c1"), text: "missing command after @c1"},
	{line: "declare foo", want: errOf(KeyWhichVerb, "verb", "declare", "choices", "queue, exchange"), text: "declare what? expected one of: queue, exchange"},
	{line: "frobnicate q", want: errOf(KeyUnknownCommand, "command", `"frobnicate"`), text: `unknown command "frobnicate" (try "help")`},
	{line: `'fro"b' q`, want: errOf(KeyUnknownCommand, "command", `"fro\"b"`), text: `unknown command "fro\"b" (try "help")`},
	{line: "consume q foo=1", want: errOf(KeyUnknownOption, "verb", "consume", "option", `"foo"`, "options", "prefetch, priority, tag"),
		text: `consume: unknown option "foo" (options: prefetch, priority, tag)`},
	{line: "consume", want: errOf(KeyUsage, "usage", "consume QUEUE [tag=TAG] [no-ack] [exclusive] [priority=N] [prefetch=N]", "aside", ""),
		text: "usage: consume QUEUE [tag=TAG] [no-ack] [exclusive] [priority=N] [prefetch=N]"},
	{line: "confirm now", want: errOf(KeyUsage, "usage", "confirm", "aside", "   (confirm.select on the channel)"),
		text: "usage: confirm   (confirm.select on the channel)"},
	{line: "set_policy a b c d", want: errOf(KeyUsage, "usage", "set_policy [-p VHOST] NAME PATTERN DEFINITION-JSON [--priority N] [--apply-to queues|exchanges|all|classic_queues|quorum_queues]", "aside", "   (rabbitmqctl syntax)"),
		text: "usage: set_policy [-p VHOST] NAME PATTERN DEFINITION-JSON [--priority N] [--apply-to queues|exchanges|all|classic_queues|quorum_queues]   (rabbitmqctl syntax)"},
	{line: `publish q "hi`, want: errOf(KeyUnterminatedQuote, "line", `"publish q \"hi"`), text: `unterminated quote in "publish q \"hi"`},
	{line: "help frob nicate", want: errOf(KeyNoHelpTopic, "topic", `"frob nicate"`), text: `no command "frob nicate" (try "help")`},

	// Values and options.
	{line: `advance ""`, want: errOf(KeyEmptyDuration), text: "empty duration"},
	{line: "advance -5", want: errOf(KeyNegativeDuration, "value", `"-5"`), text: `negative duration "-5"`},
	{line: "advance soon", want: errOf(KeyBadDuration, "value", `"soon"`), text: `bad duration "soon" (use e.g. 250ms, 5s, 1.5s, 2m, 1h)`},
	{line: "advance 1.2.3s", want: errOf(KeyBadDurationNumber, "value", `"1.2.3s"`), text: `bad duration "1.2.3s"`},
	{line: "advance 5x", want: errOf(KeyBadDurationUnit, "unit", `"x"`, "value", `"5x"`), text: `bad duration unit "x" in "5x" (use ms, s, m, h or d)`},
	{line: "publish q b priority=300", want: errOf(KeyBadPriority, "value", `"300"`), text: `priority must be 0..255, got "300"`},
	{line: "publish q b count=0", want: errOf(KeyBadCount, "value", `"0"`), text: `count must be 1..1000000, got "0"`},
	{line: "publish q b timestamp=x", want: errOf(KeyBadTimestamp, "value", `"x"`), text: `timestamp must be seconds, got "x"`},
	{line: "publish q b foo=1", want: errOf(KeyPublishOption, "option", `"foo"`), text: `publish: unknown option "foo" (headers are header.NAME=VALUE)`},
	{line: "publish q b headers=x", want: errOf(KeyBadHeaders, "value", `"x"`, "empty", "{}"), text: `headers= takes only {} (empty headers; set a header with header.NAME=VALUE), got "x"`},
	{line: "publish q b delivery-mode=256", want: errOf(KeyBadDeliveryMode, "value", `"256"`), text: `delivery-mode must be 0..255, got "256"`},
	{hook: func(r *Runner) { r.ownsBroker = false }, line: "reload", want: errOf(KeyReloadShared, "verb", "reload"),
		text: "reload: this broker is a shared session's, which others use too; only a broker of its own, as the offline playground's, is saved and loaded back"},
	{hook: func(r *Runner) {
		r.B = engine.New(engine.Config{RecordCommands: true})
		r.B.AddVhost("v") // a command record no driver has taken
	}, line: "reload", want: errOf(KeyReloadPending), text: "reload: the broker has command records its driver has not taken yet; they must be taken before a save"},
	{line: "consume q prefetch=x", want: errOf(KeyBadPrefetch, "value", `"x"`), text: `prefetch must be 0..65535, got "x"`},
	{line: "qos x", want: errOf(KeyBadPrefetchCount, "value", `"x"`), text: `prefetch count must be 0..65535, got "x"`},
	{line: "qos 1 size=x", want: errOf(KeyBadPrefetchSize, "value", `"x"`), text: `prefetch size must be 0..4294967295, got "x"`},
	{line: "ack x", want: errOf(KeyBadDeliveryTag, "value", `"x"`), text: `delivery tag must be a number, last or all, got "x"`},
	{line: "nack 1 requeue=maybe", want: errOf(KeyBadRequeue, "value", `"maybe"`), text: `requeue must be true or false, got "maybe"`},
	{line: "set_policy --frob a b {}", want: errOf(KeyUnknownFlag, "flag", "--frob"), text: "unknown flag --frob"},
	{line: "set_policy a b {} --priority", want: errOf(KeyFlagNeedsValue, "flag", "--priority"), text: "flag --priority needs a value"},
	{line: "set_policy a b [1]", want: errOf(KeyBadDefinition, "detail", jsonDetail("[1]")), text: "policy definition is not a JSON object: " + jsonDetail("[1]")},
	{line: "set_policy a b {} --priority x", want: errOf(KeyBadPolicyPriority, "value", `"x"`), text: `priority must be an integer, got "x"`},
	{line: "step 0", want: errOf(KeyBadStepCount, "value", `"0"`, "max", "100000"), text: `step count must be a whole number from 1 to 100000, got "0"`},
	{line: "step 100001", want: errOf(KeyBadStepCount, "value", `"100001"`, "max", "100000"), text: `step count must be a whole number from 1 to 100000, got "100001"`},
	{line: "step 99999999999999999999", want: errOf(KeyBadStepCount, "value", `"99999999999999999999"`, "max", "100000"), text: `step count must be a whole number from 1 to 100000, got "99999999999999999999"`},
	{line: "step -3", want: errOf(KeyBadStepCount, "value", `"-3"`, "max", "100000"), text: `step count must be a whole number from 1 to 100000, got "-3"`},

	// The state a command needs.
	{setup: []string{"open c1"}, line: "open c1", want: errOf(KeyChannelAlreadyOpen, "channel", "c1"), text: "channel c1 is already open"},
	{line: "close nope", want: errOf(KeyChannelNotOpen, "channel", "nope"), text: "channel nope is not open"},
	{line: "disconnect nope", want: errOf(KeyConnectionNotOpen, "connection", "nope"), text: "connection nope is not open"},
	{line: "show queue nope", want: errOf(KeyNoQueue, "queue", `"nope"`), text: `no queue "nope"`},
	{setup: []string{"declare queue q"}, line: "show msg q x", want: errOf(KeyBadIndex, "value", `"x"`), text: `message index must be 0, 1, ... got "x"`},
	{setup: []string{"declare queue q"}, line: "show msg q 0", want: errOf(KeyNoIndex, "queue", "q", "ready", "0", "index", "0"), text: "queue q has 0 ready messages, no index 0"},
	{setup: []string{"advance 5s"}, line: "advance to 1s", want: errOf(KeyBackInTime, "target", "1s", "now", "5s"), text: "cannot go back in time to 1s (now 5s)"},
	// A clock move is at most 100 years (engine.MaxAdvanceMs) and never
	// wraps engine time (issue 26): a huge number, just over 100 years,
	// and a leap by "advance to".
	{line: "advance 9223372036854775000", want: errOf(KeyAdvanceTooFar, "value", `"9223372036854775000"`, "max", "876000h", "end", "1250999896h29m30.496s", "now", "0s"),
		text: `cannot advance "9223372036854775000": the clock moves forward by at most 876000h at a time, and never past 1250999896h29m30.496s (now 0s)`},
	{line: "advance 36500d1ms", want: errOf(KeyAdvanceTooFar, "value", `"36500d1ms"`, "max", "876000h", "end", "1250999896h29m30.496s", "now", "0s"),
		text: `cannot advance "36500d1ms": the clock moves forward by at most 876000h at a time, and never past 1250999896h29m30.496s (now 0s)`},
	{setup: []string{"advance 1s"}, line: "advance to 36500d1s1ms", want: errOf(KeyAdvanceTooFar, "value", `"36500d1s1ms"`, "max", "876000h", "end", "1250999896h29m30.496s", "now", "1s"),
		text: `cannot advance "36500d1s1ms": the clock moves forward by at most 876000h at a time, and never past 1250999896h29m30.496s (now 1s)`},
	{line: "restart 36501d", want: errOf(KeyAdvanceTooFar, "value", `"36501d"`, "max", "876000h", "end", "1250999896h29m30.496s", "now", "0s"),
		text: `cannot advance "36501d": the clock moves forward by at most 876000h at a time, and never past 1250999896h29m30.496s (now 0s)`},
	{line: "advance 300000000000000d", want: errOf(KeyBadDurationNumber, "value", `"300000000000000d"`), text: `bad duration "300000000000000d"`},
	{setup: []string{"declare queue q ttl=1s", "publish q a", "advance 100ms", "publish q b"}, hook: func(r *Runner) { r.MaxSteps = 1 },
		line: "run", want: errOf(KeyRunBusy, "steps", "1"), text: "run: still busy after 1 steps (a timer keeps re-arming?)"},

	// Misused expect lines.
	{line: "expect unacked app x", want: wrapIn("expect unacked", errOf(KeyBadTag, "value", `"x"`)), text: `expect unacked: a delivery tag is 1, 2, ... got "x"`},
	{line: "expect error x", want: errOf(KeyBadErrorCode, "value", `"x"`), text: `expect error: want a reply code or none, got "x"`},
	{line: "expect event frob", want: errOf(KeyUnknownEvent, "kind", `"frob"`), text: `expect event: unknown event kind "frob"`},
	{line: "expect exists thing x", want: errOf(KeyBadExistsWhat, "value", `"thing"`), text: `expect exists/missing: queue or exchange, got "thing"`},
	{line: "expect confirm app 1 maybe", want: errOf(KeyBadConfirmWant, "value", `"maybe"`), text: `expect confirm: want ack or nack, got "maybe"`},

	// Failed expectations.
	{setup: []string{"declare queue q"}, line: "expect queue q nope=(absent) ready=1 nope=2",
		want: failed(withMismatches(errOf(KeyQueueDiffers, "queue", "q"), Mismatch{Field: "ready", Got: "0", Want: "1"}, Mismatch{Field: "nope", Want: "2", Absent: true})),
		text: "expectation failed: queue q: ready=0 (want 1), nope=(absent) (want 2)"},
	{line: "expect queue nope ready=1", want: failed(errOf(KeyNoQueue, "queue", "nope")), text: "expectation failed: no queue nope"},
	{line: "expect msg nope 0", want: failed(errOf(KeyNoQueue, "queue", `"nope"`)), text: `expectation failed: no queue "nope"`},
	{setup: []string{"declare queue q", "publish q hi"}, line: "expect msg q 0 body=ho",
		want: failed(withMismatches(errOf(KeyMsgDiffers, "queue", "q", "index", "0"), Mismatch{Field: "body", Got: "hi", Want: "ho"})),
		text: "expectation failed: msg q[0]: body=hi (want ho)"},
	{setup: []string{"declare queue q"}, line: "expect channel app prefetch=5",
		want: failed(withMismatches(errOf(KeyChannelDiffers, "channel", "app"), Mismatch{Field: "prefetch", Got: "0", Want: "5"})),
		text: "expectation failed: channel app: prefetch=0 (want 5)"},
	{line: "expect channel nobody prefetch=1", want: failed(errOf(KeyChannelNotOpen, "channel", "nobody")), text: "expectation failed: channel nobody is not open"},
	{setup: []string{"declare queue q", "publish q hi", "get q"}, line: "expect unacked app 1 redelivered=true",
		want: failed(withMismatches(errOf(KeyUnackedDiffers, "channel", "app", "tag", "1"), Mismatch{Field: "redelivered", Got: "false", Want: "true"})),
		text: "expectation failed: channel app tag 1: redelivered=false (want true)"},
	{setup: []string{"declare queue q", "publish q hi", "get q"}, line: "expect unacked app 2",
		want: failed(errOf(KeyNoUnacked, "channel", "app", "tag", "2", "tags", "1")), text: "expectation failed: channel app has no delivery 2 awaiting an ack (unacked tags: 1)"},
	{setup: []string{"declare queue q"}, line: "expect unacked app 1",
		want: failed(errOf(KeyNoUnackedAtAll, "channel", "app", "tag", "1")), text: "expectation failed: channel app has no delivery 1 awaiting an ack (unacked tags: none)"},
	{setup: []string{"get nope"}, line: "expect error none",
		want: failed(errOf(KeyUnexpectedError, "code", "404", "text", "NOT_FOUND - no queue 'nope' in vhost '/'")),
		text: "expectation failed: unexpected error 404 NOT_FOUND - no queue 'nope' in vhost '/'"},
	{setup: []string{"declare queue q"}, line: "expect error 404", want: failed(errOf(KeyNoError, "want", "404")), text: "expectation failed: no error, want 404"},
	{setup: []string{"get nope"}, line: "expect error 406",
		want: failed(errOf(KeyWrongError, "code", "404", "text", "NOT_FOUND - no queue 'nope' in vhost '/'", "want", "406")),
		text: "expectation failed: error 404 NOT_FOUND - no queue 'nope' in vhost '/', want 406"},
	{setup: []string{"publish q x"}, line: "expect event returned", want: failed(errOf(KeyNoEvent, "kind", "returned", "fields", "[]")),
		text: "expectation failed: no returned event matching [] in the previous command's events"},
	{line: "expect exists queue nope", want: failed(errOf(KeyQueueMissing, "name", "nope")), text: "expectation failed: queue nope does not exist"},
	{line: "expect exists exchange nope", want: failed(errOf(KeyExchangeMissing, "name", "nope")), text: "expectation failed: exchange nope does not exist"},
	{setup: []string{"declare queue q"}, line: "expect missing queue q", want: failed(errOf(KeyQueueExists, "name", "q")), text: "expectation failed: queue q still exists"},
	{line: "expect missing exchange amq.direct", want: failed(errOf(KeyExchangeExists, "name", "amq.direct")), text: "expectation failed: exchange amq.direct still exists"},
	{line: "expect time 5s", want: failed(errOf(KeyWrongTime, "now", "0s", "want", "5s")), text: "expectation failed: time is 0s, want 5s"},
	{setup: []string{"confirm"}, hook: func(r *Runner) { r.publisher(r.chans["app"].id).floor = 3 }, line: "expect confirm app 2 ack",
		want: failed(errOf(KeyConfirmForgotten, "channel", "app", "tag", "2", "floor", "3")),
		text: "expectation failed: channel app: publish 2 is older than the confirms kept (from 3 on)"},
	{setup: []string{"declare queue q"}, line: "expect confirm app 1 ack", want: failed(errOf(KeyNotConfirmMode, "channel", "app", "tag", "1")),
		text: "expectation failed: channel app is not in confirm mode: no publish 1 was confirmed"},
	{setup: []string{"confirm"}, line: "expect confirm app 1 ack", want: failed(errOf(KeyNoConfirm, "channel", "app", "tag", "1", "highest", "0")),
		text: "expectation failed: channel app: publish 1 has no confirm (confirmed up to 0)"},
	{setup: []string{"confirm", "publish q x"}, line: "expect confirm app 1 nack", want: failed(errOf(KeyWrongConfirm, "channel", "app", "tag", "1", "got", "ack", "want", "nack")),
		text: "expectation failed: channel app: publish 1 got ack, want nack"},
	{setup: []string{"declare queue q"}, line: "expect returned app", want: failed(errOf(KeyNoReturn, "channel", "app")),
		text: "expectation failed: no message was returned on channel app"},
	{setup: []string{"publish nowhere x mandatory"}, line: "expect returned app key=elsewhere",
		want: failed(withMismatches(errOf(KeyNoMatchingReturn, "count", "1", "channel", "app"), Mismatch{Field: "key", Got: "nowhere", Want: "elsewhere"})),
		text: "expectation failed: none of the 1 messages returned on channel app matches; the last one has key=nowhere (want elsewhere)"},
}

// TestErrorsCarryKeys: every error a line can cause is an *Error with its
// key and arguments, its English text is as it always was, a failed
// expectation is ErrExpectation, and every key has a case here.
func TestErrorsCarryKeys(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range errorCases {
		r := New(engine.Config{Seed: 1})
		for _, l := range c.setup {
			if _, err := r.Exec(l); err != nil {
				t.Fatalf("%s: setup %s: %v", c.line, l, err)
			}
		}
		if c.hook != nil {
			c.hook(r)
		}
		_, err := r.Exec(c.line)
		var got *Error
		if !errors.As(err, &got) {
			t.Errorf("%s: error %v (%T), want an *Error", c.line, err, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.line, dump(got), dump(c.want))
		}
		if err.Error() != c.text {
			t.Errorf("%s: text %q, want %q", c.line, err.Error(), c.text)
		}
		if errors.Is(err, ErrExpectation) != (c.want.Key == KeyExpectationFailed) {
			t.Errorf("%s: errors.Is(err, ErrExpectation) = %v", c.line, errors.Is(err, ErrExpectation))
		}
		for e := c.want; e != nil; e = e.Cause {
			covered[e.Key] = true
			for _, m := range e.Mismatches {
				covered[KeyMismatch] = true
				covered[KeyAbsent] = covered[KeyAbsent] || m.Absent
			}
		}
	}
	for _, k := range ErrorKeys() {
		if !covered[k] {
			t.Errorf("no case returns an error with key %q", k)
		}
	}
}

func dump(e *Error) string {
	b, _ := json.Marshal(e)
	return string(b)
}

// TestErrorTemplates: the keys are sorted, each template's placeholders
// are its arguments (or cause and mismatches), and Error fills a value
// that looks like a placeholder as it is, without reading it again.
func TestErrorTemplates(t *testing.T) {
	keys := ErrorKeys()
	if !sort.StringsAreSorted(keys) || len(keys) != len(errorTemplates) {
		t.Errorf("ErrorKeys = %v", keys)
	}
	placeholder := regexp.MustCompile(`\{(\w+)\}`)
	for _, c := range errorCases {
		for e := c.want; e != nil; e = e.Cause {
			for _, m := range placeholder.FindAllStringSubmatch(ErrorTemplate(e.Key), -1) {
				name := m[1]
				_, ok := e.Args[name]
				switch name {
				case "cause":
					ok = e.Cause != nil
				case "mismatches":
					ok = len(e.Mismatches) > 0
				}
				if !ok {
					t.Errorf("%s: %s has no value for {%s}", c.line, e.Key, name)
				}
			}
		}
	}
	if got := newError(KeyChannelNotOpen, "channel", "{channel}").Error(); got != "channel {channel} is not open" {
		t.Errorf("a value with braces: %q", got)
	}
	if ErrorTemplate("no such key") != "" {
		t.Error("ErrorTemplate of an unknown key")
	}
}

// TestHelpOverview: the overview's groups have distinct keys and the text
// Help renders is made of them and HelpMore.
func TestHelpOverview(t *testing.T) {
	seen := map[string]bool{}
	var lines []string
	for _, g := range HelpOverview() {
		if g.Key == "" || seen[g.Key] || len(g.Verbs) == 0 {
			t.Errorf("group %+v: a key, not used before, and verbs", g)
		}
		seen[g.Key] = true
		lines = append(lines, g.Title+": "+strings.Join(g.Verbs, ", "))
	}
	squeeze := regexp.MustCompile(` +`)
	if got, want := squeeze.ReplaceAllString(Help(), " "), strings.Join(lines, "\n")+"\n"+HelpMore; got != want {
		t.Errorf("Help() =\n%s\nwant\n%s", got, want)
	}
}
