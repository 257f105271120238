package i18n

import (
	"reflect"
	"strings"
	"testing"

	"warren/web/i18n/locale"
)

// TestCatalogsAgree: every key is in every catalog, with a non-empty
// value, the same placeholders and the same code spans (backquoted text
// stays as it is in every language), and balanced backquotes.
func TestCatalogsAgree(t *testing.T) {
	def := catalogs[locale.Default]
	if len(def) == 0 {
		t.Fatal("the default catalog is empty")
	}
	for _, lang := range locale.Langs {
		c := catalogs[lang]
		for k, v := range def {
			w, ok := c[k]
			if !ok {
				t.Errorf("%s.json lacks %q (%s has it: %q)", lang, k, locale.Default, v)
				continue
			}
			if strings.TrimSpace(w) == "" {
				t.Errorf("%s.json: %q is empty", lang, k)
			}
			if a, b := Placeholders(v), Placeholders(w); !reflect.DeepEqual(a, b) {
				t.Errorf("%q: placeholders %v in %s, %v in %s", k, a, locale.Default, b, lang)
			}
			if strings.Count(w, "`")%2 != 0 {
				t.Errorf("%s.json: %q has an unpaired backquote", lang, k)
			}
			if a, b := codeSpans(v), codeSpans(w); !reflect.DeepEqual(a, b) {
				t.Errorf("%q: code %v in %s, %v in %s", k, a, locale.Default, b, lang)
			}
		}
		for k := range c {
			if _, ok := def[k]; !ok {
				t.Errorf("%s.json has %q, which %s.json lacks", lang, k, locale.Default)
			}
		}
	}
}

func codeSpans(s string) map[string]int {
	out := map[string]int{}
	for _, sp := range Rich(s) {
		if sp.Code {
			out[sp.Text]++
		}
	}
	return out
}

func TestT(t *testing.T) {
	if got := T("zh-CN", "pg.time.play"); got != "播放" {
		t.Errorf(`T("zh-CN", "pg.time.play") = %q`, got)
	}
	if got := T("fr", "pg.time.play"); got != "Play" {
		t.Errorf("a language the site lacks reads as English: got %q", got)
	}
	if got := T("en", "lesson.step", "n", 2, "total", 5, "title", "x"); got != "Step 2 of 5: x" {
		t.Errorf("placeholders: got %q", got)
	}
	if got := T("en", "no.such.key"); got != "no.such.key" {
		t.Errorf("a missing key reads as itself: got %q", got)
	}
	if got := Fill("{a} and {b} {", "a", "x"); got != "x and {b} {" {
		t.Errorf("Fill leaves what it has no value for: got %q", got)
	}
}

func TestSlotsAndRich(t *testing.T) {
	if got, want := Slots("up to line {line} of {total}"), []string{"up to line ", "{line}", " of ", "{total}"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Slots = %q, want %q", got, want)
	}
	if got, want := Rich("run `help` now"), []Span{{"run ", false}, {"help", true}, {" now", false}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Rich = %v, want %v", got, want)
	}
}

func TestBrowserHasOnlyItsKeys(t *testing.T) {
	b := Browser("zh-CN")
	if len(b) == 0 {
		t.Fatal("no browser keys")
	}
	if _, ok := b["help.show_queue"]; !ok {
		t.Error("Browser lacks the help descriptions (help.show_queue) the console's help COMMAND shows")
	}
	for k, v := range b {
		if !strings.HasPrefix(k, BrowserPrefix) && !strings.HasPrefix(k, HelpPrefix) {
			t.Errorf("Browser has %q", k)
		}
		if v != catalogs["zh-CN"][k] {
			t.Errorf("Browser(zh-CN)[%q] = %q, not the zh-CN entry", k, v)
		}
	}
}
