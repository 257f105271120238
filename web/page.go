package web

import (
	"net/http"

	"github.com/a-h/templ"

	"warren/web/i18n"
	"warren/web/i18n/locale"
)

// Page is what every page's frame needs besides its content: the language
// it is written in, how it writes links to the site's other pages, and
// where the same page is in each language (the language switch, and
// <link rel="alternate">).
type Page struct {
	Lang string
	// Prefix goes before every link to one of the site's pages: "" when
	// the server serves the page (it picks the language per request), and
	// "/zh-CN" on the static export's Chinese pages.
	Prefix string
	// Alternates has the same page in each of locale.Langs, in that order.
	Alternates []Alternate
	// Static marks a page of the static export, where no server picks the
	// language: static/lang.js then sends a first visit to the language
	// the browser prefers (navigator.languages).
	Static bool
	// API marks a page whose server has the management API (`warren
	// serve`): only then do the pages link to it. The static export has no
	// server, and the edge worker has no broker of its own.
	API bool
	// Sessions marks a page whose server runs shared sessions (`warren
	// serve`): only then does the playground offer to start one.
	Sessions bool
}

// Alternate is the page in one language.
type Alternate struct {
	Lang, Href string
}

// T translates key into the page's language (i18n.T).
func (p Page) T(key string, args ...any) string { return i18n.T(p.Lang, key, args...) }

// Link is the href of the site's page at path ("/playground") as this page
// links to it.
func (p Page) Link(path string) templ.SafeURL { return templ.SafeURL(p.Prefix + path) }

// LangName is a language's name in that language: the switch lists
// "English" and "中文" on every page, whatever the page's language.
func LangName(lang string) string {
	switch lang {
	case "zh-CN":
		return "中文"
	}
	return "English"
}

// servedPage is the page `warren serve` answers r with: in the language
// locale.Answer picks (and remembers, when ?lang= chose it), with the
// management API and shared sessions.
func servedPage(w http.ResponseWriter, r *http.Request) Page {
	p := pickedPage(locale.Answer(w, r))
	p.API, p.Sessions = true, true
	return p
}

// pickedPage is a page in lang at a URL that answers in every language: a
// server picks the language per request, so the page's links have no
// prefix, and the switch links back to the same URL with ?lang=
// (static/lang.js keeps the rest of the query and the fragment).
func pickedPage(lang string) Page {
	p := Page{Lang: lang}
	for _, l := range locale.Langs {
		p.Alternates = append(p.Alternates, Alternate{Lang: l, Href: "?lang=" + l})
	}
	return p
}

// edgePage is a page in lang as the edge worker (wasm/worker) answers
// with it: the worker picks the language per request as `warren serve`
// does, but has neither the management API nor shared sessions.
func edgePage(lang string) Page {
	p := pickedPage(lang)
	p.Sessions = true // each a Durable Object (wasm/worker/session.mjs)
	return p
}

// staticPage is the page at path ("/", "/playground") of the static export
// in lang: English at the root, every other language under /LANG.
func staticPage(lang, path string) Page {
	p := Page{Lang: lang, Prefix: staticPrefix(lang), Static: true}
	for _, l := range locale.Langs {
		p.Alternates = append(p.Alternates, Alternate{Lang: l, Href: staticPrefix(l) + path})
	}
	return p
}

func staticPrefix(lang string) string {
	if lang == locale.Default {
		return ""
	}
	return "/" + lang
}
