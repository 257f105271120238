package web

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"warren/lessons"
)

// Export writes the site as static files under dir, for static hosting
// (and later the edge): index.html, playground/index.html,
// lessons/index.html, lessons/SLUG/index.html and static/.
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
	if err := write("index.html", func(f *os.File) error { return Home().Render(context.Background(), f) }); err != nil {
		return err
	}
	if err := write(filepath.Join("playground", "index.html"), func(f *os.File) error { return Playground().Render(context.Background(), f) }); err != nil {
		return err
	}
	ls, err := lessons.All("en")
	if err != nil {
		return err
	}
	if err := write(filepath.Join("lessons", "index.html"), func(f *os.File) error { return LessonsIndex(ls).Render(context.Background(), f) }); err != nil {
		return err
	}
	for _, l := range ls {
		if err := write(filepath.Join("lessons", l.Slug, "index.html"), func(f *os.File) error { return LessonPage(l).Render(context.Background(), f) }); err != nil {
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
