package web

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/a-h/templ"

	"warren/web/i18n"
)

// Export writes the site as static files under dir, for static hosting
// (and later the edge): index.html, playground/index.html,
// lessons/index.html, lessons/SLUG/index.html and static/, with the pages
// in English at the root and again in every other language under its tag
// (zh-CN/index.html, zh-CN/playground/index.html, ...). No server picks
// the language there: static/lang.js sends a first visit to the language
// the browser prefers and keeps to the one chosen with the switch.
// Nothing in the pages needs a server: the engine runs in the browser.
// The pages link to /playground and /static/, so the site is meant to be
// served from the root of its host. It fails if the engine's wasm was not
// built (make web), since a playground without it would not work.
func Export(dir string) error {
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
	for _, lang := range i18n.Langs {
		if err := exportPages(lang, write); err != nil {
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

// exportPages writes every page in lang, under its prefix.
func exportPages(lang string, write func(name string, render func(f *os.File) error) error) error {
	dir := filepath.FromSlash(strings.TrimPrefix(staticPrefix(lang), "/"))
	page := func(path string, c func(p Page) templ.Component) error {
		name := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(path, "/")), "index.html")
		return write(name, func(f *os.File) error { return c(staticPage(lang, path)).Render(context.Background(), f) })
	}
	if err := page("/", Home); err != nil {
		return err
	}
	if err := page("/playground", Playground); err != nil {
		return err
	}
	ls, err := allLessons(lang)
	if err != nil {
		return err
	}
	if err := page("/lessons", func(p Page) templ.Component { return LessonsIndex(p, ls) }); err != nil {
		return err
	}
	for _, l := range ls {
		if err := page("/lessons/"+l.Slug, func(p Page) templ.Component { return LessonPage(p, l) }); err != nil {
			return err
		}
	}
	return nil
}
