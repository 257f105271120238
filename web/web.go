// Package web is Warren's web front: a home page that says what Warren is,
// the lessons (lessons/, each in a frame beside the playground), and the
// playground, where the engine runs in the page as WebAssembly
// (wasm/playground) and every change of state is a script line. The pages
// are templ components (layout.templ, playground.templ, forms.templ,
// lessons.templ; the generated *_templ.go files are committed), each in
// the language the request asks for, every string from web/i18n's
// catalogs; the playground's behaviour is the ES modules in
// static/playground/ (main.js lists them by concern), which only build
// script lines and draw what the global warren object returns: no engine
// logic lives in JavaScript.
//
// static/warren.wasm and static/wasm_exec.js are build outputs: `make web`
// builds them from wasm/playground with the Go that builds the server, so
// the two always match. They are gitignored and embedded when present; a
// binary built without them serves the pages, and the playground says how
// to build the engine.
package web

import (
	"embed"
	"io/fs"
	"net/http"

	"github.com/a-h/templ"
)

//go:embed static
var staticFiles embed.FS

// Sessions is what the pages ask of the server's shared sessions
// (driver/sessions' Manager): whether an id, an editor's or a read-only
// one, names a session that runs.
type Sessions interface {
	Exists(id string) bool
}

// Option configures Handler.
type Option func(*handlerConfig)

type handlerConfig struct {
	sessions Sessions
}

// WithSessions makes /s/{id} ask s whether the session exists, and answer
// 404 with the SessionGone page when it does not. Without it every id
// gets the playground, which finds out when it joins.
func WithSessions(s Sessions) Option { return func(c *handlerConfig) { c.sessions = s } }

// Handler serves the home page at /, the playground at /playground and
// at /s/{id} (a shared session's page), the lessons at /lessons and
// /lessons/{slug}, and the static assets under /static/. Anything else is
// 404. Each page is in the language locale.Pick chooses for the request
// (see servedPage).
func Handler(opts ...Option) http.Handler {
	var cfg handlerConfig
	for _, o := range opts {
		o(&cfg)
	}
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic("web: the embedded static directory is missing: " + err.Error()) // programmer error: the embed pattern names it
	}
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		templ.Handler(Home(servedPage(w, r))).ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /playground", func(w http.ResponseWriter, r *http.Request) {
		templ.Handler(Playground(servedPage(w, r))).ServeHTTP(w, r)
	})
	// A shared session's page: the playground, which joins the session
	// its path names (static/playground/live.js). The id is the
	// session's or its read-only id; the server decides the role when the
	// page's WebSocket joins. An id no session has (never, or no longer:
	// a link kept after its session ended) is 404 with a page that says
	// so, rather than a playground that cannot join.
	mux.HandleFunc("GET /s/{id}", func(w http.ResponseWriter, r *http.Request) {
		p := servedPage(w, r)
		if cfg.sessions != nil && !cfg.sessions.Exists(r.PathValue("id")) {
			w.Header().Set("Cache-Control", "no-cache")
			templ.Handler(SessionGone(p), templ.WithStatus(http.StatusNotFound)).ServeHTTP(w, r)
			return
		}
		templ.Handler(Playground(p)).ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /lessons", func(w http.ResponseWriter, r *http.Request) {
		p := servedPage(w, r)
		ls, err := allLessons(p.Lang)
		if err != nil {
			http.Error(w, "the lessons do not load: "+err.Error(), http.StatusInternalServerError)
			return
		}
		templ.Handler(LessonsIndex(p, ls)).ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /lessons/{slug}", func(w http.ResponseWriter, r *http.Request) {
		p := servedPage(w, r)
		l := findLesson(p.Lang, r.PathValue("slug"))
		if l == nil {
			http.NotFound(w, r)
			return
		}
		templ.Handler(LessonPage(p, l)).ServeHTTP(w, r)
	})
	mux.Handle("GET /static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Revalidate every time: the embedded files have no modification
		// time, and a stale warren.wasm next to new playground modules breaks.
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	}))
	return mux
}
