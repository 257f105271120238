package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"warren/web/i18n/locale"
)

// TestExportWritesTheSite: the exported folder holds every page, in
// English at the root and in Chinese under zh-CN/, each linking to its
// counterpart, and every static asset; the pages are the same components
// the server serves.
func TestExportWritesTheSite(t *testing.T) {
	if _, err := staticFiles.Open("static/warren.wasm"); err != nil {
		t.Fatal("static/warren.wasm is missing: run make web")
	}
	dir := t.TempDir()
	if err := Export(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"index.html":                                      `data-testid=`,
		"playground/index.html":                           `console-input`,
		"static/playground/main.js":                       "warren",
		"lessons/index.html":                              `lesson-link-ttl-and-dead-lettering`,
		"lessons/ttl-and-dead-lettering/index.html":       `lesson-data`,
		"static/lesson.js":                                "warren:ready",
		"static/warren.wasm":                              "\x00asm",
		"static/wasm_exec.js":                             "Go",
		"static/i18n.js":                                  "i18n-catalog",
		"zh-CN/index.html":                                `<html lang="zh-CN" data-static`,
		"zh-CN/playground/index.html":                     "演练场",
		"zh-CN/lessons/index.html":                        `href="/zh-CN/lessons/ttl-and-dead-lettering"`,
		"zh-CN/lessons/ttl-and-dead-lettering/index.html": `hreflang="en" href="/lessons/ttl-and-dead-lettering"`,
	} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(string(data), want) {
			t.Fatalf("%s does not contain %q", name, want)
		}
	}
}

// TestExportEdgeWritesThePages: the edge's folder holds every page in
// every language under _pages/LANG/, as PagePaths lists them, and the
// static assets. The pages link without a language prefix and to the
// same URL with ?lang= for the other language (the worker picks the
// language, as the server does); none links to the management API or
// offers a shared session, which the edge does not have, and the home
// page says what it has instead.
func TestExportEdgeWritesThePages(t *testing.T) {
	if _, err := staticFiles.Open("static/warren.wasm"); err != nil {
		t.Fatal("static/warren.wasm is missing: run make web")
	}
	dir := t.TempDir()
	if err := ExportEdge(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"static/warren.wasm", "static/playground/main.js", "static/lang.js"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	for _, lang := range locale.Langs {
		// The page the worker answers a link of no session with.
		gone, err := os.ReadFile(filepath.Join(dir, EdgePages, lang, "no-session", "index.html"))
		if err != nil || !strings.Contains(string(gone), `data-testid="session-gone"`) || !strings.Contains(string(gone), `<html lang="`+lang+`">`) {
			t.Errorf("%s: the no-session page: %v", lang, err)
		}
		paths, err := PagePaths(lang)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) < 4 {
			t.Fatalf("PagePaths(%s) = %v", lang, paths)
		}
		for _, path := range paths {
			name := filepath.Join(dir, EdgePages, lang, filepath.FromSlash(strings.TrimPrefix(path, "/")), "index.html")
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			page := string(data)
			for _, want := range []string{`<html lang="` + lang + `">`, `href="/playground"`, `hreflang="zh-CN" href="?lang=zh-CN"`} {
				if !strings.Contains(page, want) {
					t.Errorf("%s: no %s", name, want)
				}
			}
			for _, not := range []string{`href="/api/`, `href="/zh-CN`} {
				if strings.Contains(page, not) {
					t.Errorf("%s has %s", name, not)
				}
			}
			// The edge runs shared sessions: its playground offers them.
			if live := strings.Contains(page, `data-testid="live"`); live != (path == "/playground") {
				t.Errorf("%s: the live session panel there is %v", name, live)
			}
			if path == "/" && !strings.Contains(page, `data-testid="home-here"`) {
				t.Errorf("%s does not say what the edge has", name)
			}
		}
	}
}
