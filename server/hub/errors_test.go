package hub

import (
	"strings"
	"testing"
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

func TestErrorText(t *testing.T) {
	e := newError(KeyLineTooLong, "max", "10", "bytes", "12")
	if got := e.Error(); got != "a command line may be 10 bytes at most, this one has 12" {
		t.Fatalf("text %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an unknown key did not panic")
		}
	}()
	newError("nope")
}
