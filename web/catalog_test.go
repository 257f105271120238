package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"warren/engine/script"
	"warren/web/i18n"
	"warren/web/i18n/locale"
)

// keyLiteral is a catalog key written in code: a string literal of a
// namespace the catalogs use. Keys are always literals, never built, so
// that this finds every one.
var keyLiteral = regexp.MustCompile(`"((?:site|home|pg|lessons?|help|js)\.[A-Za-z0-9_.-]+)"`)

// usedKeys returns the catalog keys the web front's code names: in the Go
// and templ sources (tests aside) and in the browser's modules.
func usedKeys(t *testing.T) (server, browser map[string][]string) {
	t.Helper()
	server, browser = map[string][]string{}, map[string][]string{}
	scan := func(path string, into map[string][]string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range keyLiteral.FindAllStringSubmatch(string(data), -1) {
			into[m[1]] = append(into[m[1]], path)
		}
	}
	for _, pattern := range []string{"*.go", "*.templ"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || strings.HasSuffix(f, "_templ.go") {
				continue
			}
			scan(f, server)
		}
	}
	err := filepath.WalkDir("static", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".js") && p != filepath.Join("static", "wasm_exec.js") {
			scan(p, browser)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(server) == 0 || len(browser) == 0 {
		t.Fatal("found no keys: the scan is broken")
	}
	return server, browser
}

// TestCodeUsesOnlyCatalogKeys: every key the Go, templ and JavaScript code
// names is in the catalogs (which TestCatalogsAgree keeps complete in
// every language); the browser's keys are the ones pages embed
// (i18n.BrowserPrefix); and no catalog entry is left that nothing uses,
// the keys the engine's data names (dataKeys) counting as used.
func TestCodeUsesOnlyCatalogKeys(t *testing.T) {
	server, browser := usedKeys(t)
	cat := i18n.Catalog(locale.Default)
	for k, where := range server {
		if _, ok := cat[k]; !ok {
			t.Errorf("%s uses %q, which the catalogs lack", where[0], k)
		}
		if strings.HasPrefix(k, i18n.BrowserPrefix) {
			t.Errorf("%s uses %q: keys under %q are the browser's", where[0], k, i18n.BrowserPrefix)
		}
	}
	for k, where := range browser {
		if _, ok := cat[k]; !ok {
			t.Errorf("%s uses %q, which the catalogs lack", where[0], k)
		}
		if !strings.HasPrefix(k, i18n.BrowserPrefix) {
			t.Errorf("%s uses %q: a browser key must start with %q, or the page does not embed it", where[0], k, i18n.BrowserPrefix)
		}
	}
	data := dataKeys()
	var unused []string
	for k := range cat {
		if server[k] == nil && browser[k] == nil && !data[k] {
			unused = append(unused, k)
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Errorf("catalog entries nothing uses: %v", unused)
	}
}

// TestHelpDescribesEveryVerb: the help panel has a description for every
// verb script.Verbs lists and a title for every group, and describes no
// verb it does not list.
func TestHelpDescribesEveryVerb(t *testing.T) {
	seen := map[string]bool{}
	n := 0
	for _, g := range helpGroups() {
		if g.Key == "" {
			t.Errorf("help group %q has no title: add it to helpGroupKeys and the catalogs", g.Title)
		}
		for _, e := range g.Entries {
			n++
			seen[e.Verb] = true
			if e.Key == "" {
				t.Errorf("verb %q (%s) has no description: add it to helpKeys and the catalogs", e.Verb, e.Usage)
			}
			if strings.Contains(e.Usage, "   (") {
				t.Errorf("usage %q keeps its English aside", e.Usage)
			}
		}
	}
	for v := range helpKeys {
		if !seen[v] {
			t.Errorf("helpKeys describes %q, which script.Verbs does not list", v)
		}
	}
	if n != len(script.Verbs()) {
		t.Errorf("%d help entries for %d verbs", n, len(script.Verbs()))
	}
}
