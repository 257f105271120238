package web

import (
	"strings"
	"testing"

	"warren/wasm/playground/bridge"
	"warren/web/i18n/locale"
)

// TestFirstStep: the guided first step's lines run in a fresh session, in
// order, without an error, and end with the message taken back out; the
// lesson it leads to exists in every language; only the playground page
// has it (a lesson page has its own steps), and every page has the panel
// the page shows when the engine stops.
func TestFirstStep(t *testing.T) {
	s := bridge.New()
	var last bridge.Result
	for _, st := range firstSteps {
		last = s.Exec(st.Line)
		if last.Error != "" || last.AMQPError != nil {
			t.Fatalf("%s: %s %v", st.Line, last.Error, last.AMQPError)
		}
	}
	if len(last.Events) != 1 || last.Events[0].Kind != "delivered" {
		t.Errorf("the last line %q delivered nothing: %+v", last.Line, last.Events)
	}
	for _, lang := range locale.Langs {
		l := findLesson(lang, firstLesson)
		if l == nil {
			t.Fatalf("%s: the first step leads to lesson %q, which does not exist", lang, firstLesson)
		}
		html := render(t, Playground(servedTestPage(lang)))
		for _, want := range []string{`data-testid="first-step"`, `href="/lessons/` + firstLesson + `"`, l.Title, `data-testid="engine-down"`, `data-testid="session-note"`} {
			if !strings.Contains(html, want) {
				t.Errorf("%s playground lacks %q", lang, want)
			}
		}
		lesson := render(t, LessonPage(servedTestPage(lang), l))
		if strings.Contains(lesson, `data-testid="first-step"`) || strings.Contains(lesson, `data-testid="session-note"`) {
			t.Errorf("%s: a lesson page has the playground's first step or session note", lang)
		}
		if !strings.Contains(lesson, `data-testid="engine-down"`) {
			t.Errorf("%s: a lesson page lacks the engine-down panel", lang)
		}
	}
}
