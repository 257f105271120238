package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"warren/lessons"
)

func testLessons(t *testing.T) []*lessons.Lesson {
	t.Helper()
	ls, err := allLessons("en")
	if err != nil {
		t.Fatal(err)
	}
	return ls
}

// TestLessonData: the page hands lesson.js each step's lines, and Before
// rebuilds a step from the earlier steps' setup and try lines.
func TestLessonData(t *testing.T) {
	l := &lessons.Lesson{Slug: "s", Steps: []lessons.Step{
		{Title: "a", Setup: []string{"declare queue a"}, Try: []string{"publish a x"}, Check: []string{"expect queue a ready=1"}},
		{Title: "b", Setup: []string{"declare queue b"}},
	}}
	html := render(t, LessonPage(servedTestPage("en"), l))
	want := `{"slug":"s","steps":[{"title":"a","setup":["declare queue a"],"try":["publish a x"],"check":["expect queue a ready=1"],"before":["declare queue a"]},` +
		`{"title":"b","setup":["declare queue b"],"try":[],"check":[],"before":["declare queue a","publish a x","declare queue b"]}]}`
	if !strings.Contains(html, want) {
		t.Errorf("the lesson page lacks its data %s", want)
	}
}

// servedTestPage is a page in lang as the server serves it.
func servedTestPage(lang string) Page {
	r := httptest.NewRequest("GET", "/?lang="+lang, nil)
	return servedPage(httptest.NewRecorder(), r)
}

func render(t *testing.T, c templ.Component) string {
	t.Helper()
	var sb strings.Builder
	if err := c.Render(context.Background(), &sb); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// TestPagesCarryTheirControls renders the components and checks, by their
// data-testid attributes, that each page has what the browser test and the
// playground's script rely on; the playground loads the engine's scripts.
func TestPagesCarryTheirControls(t *testing.T) {
	en := servedTestPage("en")
	for _, tc := range []struct {
		name string
		page templ.Component
		want []string
	}{
		{"home", Home(en), []string{"home", "home-playground", "home-lessons", "home-api", "nav-playground", "nav-lessons"}},
		{"lessons", LessonsIndex(en, testLessons(t)), []string{"lessons", "lesson-link-ttl-and-dead-lettering"}},
		{"lesson", LessonPage(en, findLesson("en", "ttl-and-dead-lettering")), []string{
			"lesson", "lesson-step-1", "lesson-step-5", "lesson-goto-1", "lesson-try-1", "lesson-check", "lesson-next",
			"lesson-prev", "lesson-restart", "lesson-result", "console-input", "topology",
		}},
		{"playground", Playground(en), []string{
			"console-form", "console-input", "events", "clock", "advance-by", "inspector", "log",
			"form-declare-queue", "form-declare-exchange", "form-bind", "form-publish", "form-consume", "form-ack",
			"import-form", "download",
		}},
	} {
		html := render(t, tc.page)
		for _, id := range tc.want {
			if !strings.Contains(html, `data-testid="`+id+`"`) {
				t.Errorf("%s: no data-testid=%q", tc.name, id)
			}
		}
		if tc.name == "playground" || tc.name == "lesson" {
			srcs := []string{`src="/static/wasm_exec.js"`, `src="/static/playground/main.js"`, `<script id="i18n-catalog" type="application/json">`}
			if tc.name == "lesson" {
				srcs = append(srcs, `src="/static/lesson.js"`, `<script id="lesson-data" type="application/json">`)
			}
			for _, src := range srcs {
				if !strings.Contains(html, src) {
					t.Errorf("playground does not load %s", src)
				}
			}
		}
	}
}

// TestHandlerRoutes: the pages and assets are served, anything else is 404.
func TestHandlerRoutes(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for path, want := range map[string]int{
		"/": 200, "/playground": 200, "/static/playground/main.js": 200, "/nope": 404,
		"/lessons": 200, "/lessons/ttl-and-dead-lettering": 200, "/lessons/nope": 404, "/static/lesson.js": 200,
	} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}
