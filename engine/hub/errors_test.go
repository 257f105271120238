package hub

import (
	"strings"
	"testing"
	"unicode/utf8"

	"warren/engine/script"
)

// TestErrorTemplates: every key has a template that names only values
// its errors give (no placeholder left in a text), and the keys are
// stable words a catalog can use.
func TestErrorTemplates(t *testing.T) {
	keys := ErrorKeys()
	if len(keys) == 0 {
		t.Fatal("no keys")
	}
	for _, k := range keys {
		tmpl := ErrorTemplate(k)
		if tmpl == "" || strings.ContainsAny(k, " .{}") {
			t.Errorf("key %q: template %q", k, tmpl)
		}
		args := map[string]string{}
		for rest := tmpl; ; {
			i := strings.IndexByte(rest, '{')
			if i < 0 {
				break
			}
			j := strings.IndexByte(rest[i:], '}')
			args[rest[i+1:i+j]] = "<" + rest[i+1:i+j] + ">"
			rest = rest[i+j+1:]
		}
		text := (&Error{Key: k, Args: args}).Error()
		if strings.ContainsAny(text, "{}") {
			t.Errorf("%s renders %q", k, text)
		}
	}
	if ErrorTemplate("nope") != "" {
		t.Error("a template for an unknown key")
	}
}

// TestCloseReason: a close reason is the key, then the English text, and
// never longer than a WebSocket close frame allows, cut where a UTF-8
// character starts.
func TestCloseReason(t *testing.T) {
	if got := CloseReason(NewError(KeyTooSlow)); got != "tooSlow: too slow: the page fell too far behind the session; reload to rejoin" {
		t.Errorf("tooSlow: %q", got)
	}
	long := CloseReason(NewError(KeyBadName, "max", "64", "name", strings.Repeat("名", 60)))
	if len(long) > MaxCloseReason || len(long) < MaxCloseReason-2 || !utf8.ValidString(long) || !strings.HasPrefix(long, "badName: a name is 1 to 64 characters") {
		t.Errorf("a long reason: %d bytes, %q", len(long), long)
	}
}

func TestErrorText(t *testing.T) {
	e := NewError(KeyLineTooLong, "max", "10", "bytes", "12")
	if got := e.Error(); got != "a command line may be 10 bytes at most, this one has 12" {
		t.Fatalf("text %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an unknown key did not panic")
		}
	}()
	NewError("nope")
}

// TestFailedExpectCarriesItsDetail: a failed expect sent through the hub
// comes back with what a page needs to say it in its own language: the
// key, the cause and the mismatched fields, as the playground's bridge
// gives them.
func TestFailedExpectCarriesItsDetail(t *testing.T) {
	h := newHarness(t, Config{})
	ed := h.join("Ada", Editor)
	h.cmd(ed, "declare queue q")
	m := h.send(ed, Inbound{Type: InCommand, Line: "expect queue q ready=2"})
	e := m.Result.Error
	if e == nil || !e.Script || e.Key != "expectationFailed" || e.Cause == nil || e.Cause.Key != "queueDiffers" {
		t.Fatalf("error %+v", e)
	}
	if got := e.Cause.Mismatches; len(got) != 1 || got[0] != (script.Mismatch{Field: "ready", Got: "0", Want: "2"}) {
		t.Fatalf("mismatches %+v", got)
	}
	if e.Text != "expectation failed: queue q: ready=0 (want 2)" {
		t.Fatalf("text %q", e.Text)
	}
}
