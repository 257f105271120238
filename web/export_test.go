package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
