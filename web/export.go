package web

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/a-h/templ"

	"warren/web/i18n/locale"
)

// Export writes the site as static files under dir, for static hosting:
// index.html, playground/index.html, lessons/index.html,
// lessons/SLUG/index.html and static/, with the pages in English at the
// root and again in every other language under its tag
// (zh-CN/index.html, zh-CN/playground/index.html, ...). No server picks
// the language there: static/lang.js sends a first visit to the language
// the browser prefers and keeps to the one chosen with the switch.
// Nothing in the pages needs a server: the engine runs in the browser.
// The pages link to /playground and /static/, so the site is meant to be
// served from the root of its host. It fails if the engine's wasm was not
// built (make web), since a playground without it would not work.
func Export(dir string) error {
	return export(dir, func(lang string) string { return strings.TrimPrefix(staticPrefix(lang), "/") }, staticPage)
}

// EdgePages is the folder of ExportEdge's pages, which the edge worker
// fetches from its static assets: EdgePages/LANG/PATH/index.html.
const EdgePages = "_pages"

// ExportEdge writes the site as the edge worker (wasm/worker) serves it:
// static/ as Export writes it, and every page in every language under
// EdgePages/LANG/ (_pages/en/index.html, _pages/zh-CN/playground/index.html,
// ...). The worker answers /playground with the file in the language it
// picks for the request, as `warren serve` does, so the pages link without
// a language prefix; like the static export's, they offer neither the
// management API nor shared sessions, which the edge does not have.
func ExportEdge(dir string) error {
	if err := export(dir, func(lang string) string { return EdgePages + "/" + lang }, func(lang, _ string) Page { return edgePage(lang) }); err != nil {
		return err
	}
	// The page the worker answers /s/{id} with, as 404, when no session
	// has the id (SessionGone; the edge asks the session's object).
	for _, lang := range locale.Langs {
		path := filepath.Join(dir, EdgePages, lang, filepath.FromSlash(strings.TrimPrefix(EdgeNoSession, "/")), "index.html")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		err = SessionGone(edgePage(lang)).Render(context.Background(), f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// EdgeNoSession is the path, under EdgePages/LANG, of the edge's page for
// a session link of no session: EdgePages/LANG/no-session/index.html.
const EdgeNoSession = "/no-session"

// export writes every page in every language, each under the folder
// folder(lang) as page(lang, path) frames it, and the static assets.
func export(dir string, folder func(lang string) string, page func(lang, path string) Page) error {
	if _, err := fs.Stat(staticFiles, "static/warren.wasm"); err != nil {
		return errors.New("web: static/warren.wasm is missing: run make web before exporting")
	}
	write := func(name string, render func(f *os.File) error) error {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := render(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	for _, lang := range locale.Langs {
		if err := exportPages(lang, filepath.FromSlash(folder(lang)), func(path string) Page { return page(lang, path) }, write); err != nil {
			return err
		}
	}
	return fs.WalkDir(staticFiles, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := staticFiles.ReadFile(p)
		if err != nil {
			return err
		}
		return write(filepath.FromSlash(p), func(f *os.File) error {
			_, err := f.Write(data)
			return err
		})
	})
}

// exportPages writes every page in lang under dir, each framed by
// frame(path).
func exportPages(lang, dir string, frame func(path string) Page, write func(name string, render func(f *os.File) error) error) error {
	pages, err := sitePages(lang)
	if err != nil {
		return err
	}
	for _, pg := range pages {
		name := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(pg.path, "/")), "index.html")
		if err := write(name, func(f *os.File) error { return pg.component(frame(pg.path)).Render(context.Background(), f) }); err != nil {
			return err
		}
	}
	return nil
}

// sitePage is one of the site's pages: its path and its component.
type sitePage struct {
	path      string
	component func(p Page) templ.Component
}

// sitePages lists every page of the site in lang, in the order the site
// links them: home, playground, the lessons' index, each lesson.
func sitePages(lang string) ([]sitePage, error) {
	ls, err := allLessons(lang)
	if err != nil {
		return nil, err
	}
	pages := []sitePage{
		{"/", Home},
		{"/playground", Playground},
		{"/lessons", func(p Page) templ.Component { return LessonsIndex(p, ls) }},
	}
	for _, l := range ls {
		pages = append(pages, sitePage{"/lessons/" + l.Slug, func(p Page) templ.Component { return LessonPage(p, l) }})
	}
	return pages, nil
}

// PagePaths lists the path of every page of the site in lang, as Handler
// serves them and the exports write them ("/", "/playground", "/lessons",
// "/lessons/SLUG", ...).
func PagePaths(lang string) ([]string, error) {
	pages, err := sitePages(lang)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(pages))
	for i, pg := range pages {
		paths[i] = pg.path
	}
	return paths, nil
}
