// Package i18n holds the site's message catalogs, one per language
// (en.json, zh-CN.json: flat key → string, with {name} placeholders). The
// languages themselves, and how a request's is chosen, are package locale.
//
// Every string a person reads on the site comes from a catalog: the Go and
// templ code through T, the browser's modules through static/i18n.js,
// which reads the subset of the page language's catalog the page embeds
// (Browser). Keys are stable ids, never English text, and a string is
// never built by concatenating translated pieces, since word order differs
// between the languages: a whole sentence is one entry with placeholders.
// The package's tests fail when a key is missing in either catalog, when
// the two disagree on a key's placeholders, and when code uses a key no
// catalog has.
//
// Text a catalog entry puts in backquotes is code (a script word, an
// argument name, an AMQP reply text) and stays exactly as it is in every
// language; Rich splits an entry into its text and code parts.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"warren/web/i18n/locale"
)

//go:embed en.json zh-CN.json
var files embed.FS

var catalogs = load()

func load() map[string]map[string]string {
	out := make(map[string]map[string]string, len(locale.Langs))
	for _, l := range locale.Langs {
		data, err := files.ReadFile(l + ".json")
		if err != nil {
			panic("i18n: " + err.Error()) // programmer error: the embed pattern names every file
		}
		var c map[string]string
		if err := json.Unmarshal(data, &c); err != nil {
			panic(fmt.Sprintf("i18n: %s.json: %v", l, err)) // caught by the package's tests
		}
		out[l] = c
	}
	return out
}

// Catalog returns a copy of lang's catalog (nil for a language the site
// does not have).
func Catalog(lang string) map[string]string {
	c, ok := catalogs[lang]
	if !ok {
		return nil
	}
	out := make(map[string]string, len(c))
	for k, v := range c {
		out[k] = v
	}
	return out
}

// BrowserPrefix starts every key the browser's modules use; Browser embeds
// only those in a page, so a page does not carry the server's strings.
const BrowserPrefix = "js."

// HelpPrefix starts the help panel's description of each script command
// (web/help.go). The browser gets them too: the console's help COMMAND
// shows the command's usage with its description in the reader's
// language (static/scripterror.js).
const HelpPrefix = "help."

// Browser returns the entries of lang's catalog whose keys start with
// BrowserPrefix or HelpPrefix: what static/i18n.js translates with.
func Browser(lang string) map[string]string {
	c := catalogs[locale.Supported(lang)]
	out := make(map[string]string)
	for k, v := range c {
		if strings.HasPrefix(k, BrowserPrefix) || strings.HasPrefix(k, HelpPrefix) {
			out[k] = v
		}
	}
	return out
}

// T returns the entry key of lang's catalog with its placeholders filled
// from args, which alternate names and values: T("en", "lessons.steps",
// "n", 5). A language the site does not have reads as locale.Default; a
// key missing from lang's catalog falls back to locale.Default's, then to
// the key itself (the tests keep both from happening). A placeholder
// without a value is left as it is.
func T(lang, key string, args ...any) string {
	s, ok := catalogs[locale.Supported(lang)][key]
	if !ok {
		if s, ok = catalogs[locale.Default][key]; !ok {
			return key
		}
	}
	if len(args) == 0 {
		return s
	}
	return Fill(s, args...)
}

// Fill replaces each {name} in s with the value that follows name in args.
func Fill(s string, args ...any) string {
	if len(args)%2 != 0 {
		panic("i18n: Fill needs name, value pairs") // programmer error
	}
	var sb strings.Builder
	for {
		before, name, after, ok := nextName(s)
		if !ok {
			break
		}
		sb.WriteString(before)
		if v, ok := lookup(name, args); ok {
			sb.WriteString(v)
		} else {
			sb.WriteString("{" + name + "}")
		}
		s = after
	}
	sb.WriteString(s)
	return sb.String()
}

// nextName finds the first {name} in s: the text before it, the name and
// the text after it.
func nextName(s string) (before, name, after string, ok bool) {
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return "", "", "", false
	}
	j := strings.IndexByte(s[i:], '}')
	if j < 0 {
		return "", "", "", false
	}
	return s[:i], s[i+1 : i+j], s[i+j+1:], true
}

func lookup(name string, args []any) (string, bool) {
	for i := 0; i+1 < len(args); i += 2 {
		if n, _ := args[i].(string); n == name {
			switch v := args[i+1].(type) {
			case string:
				return v, true
			case int:
				return strconv.Itoa(v), true
			default:
				return fmt.Sprint(v), true
			}
		}
	}
	return "", false
}

// Placeholders lists the {name}s in s, sorted, each once.
func Placeholders(s string) []string {
	seen := map[string]bool{}
	for {
		_, name, after, ok := nextName(s)
		if !ok {
			break
		}
		seen[name] = true
		s = after
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Span is a piece of a catalog entry: text, or code (what the entry put in
// backquotes).
type Span struct {
	Text string
	Code bool
}

// Rich splits s at its backquotes into text and code spans.
func Rich(s string) []Span {
	var out []Span
	code := false
	for _, part := range strings.Split(s, "`") {
		if part != "" {
			out = append(out, Span{Text: part, Code: code})
		}
		code = !code
	}
	return out
}

// Slots splits s into its text and its placeholders, each placeholder a
// part of its own with its braces ("up to line {line} of {total}" is "up
// to line ", "{line}", " of ", "{total}"), for a page that puts an element
// where a placeholder is.
func Slots(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		if i > 0 {
			out = append(out, s[:i])
		}
		out = append(out, s[i:i+j+1])
		s = s[i+j+1:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// HubError says a session hub error (engine/hub's key and values) in
// lang, in the words the pages use for it (js.live.error.KEY, which
// web/live_test.go keeps present for every hub key).
func HubError(lang, key string, args map[string]string) string {
	pairs := make([]any, 0, 2*len(args))
	for name, v := range args {
		pairs = append(pairs, name, v)
	}
	return T(lang, "js.live.error."+key, pairs...)
}
