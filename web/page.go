package web

import (
	"net/http"

	"github.com/a-h/templ"

	"warren/web/i18n"
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
	// Alternates has the same page in each of i18n.Langs, in that order.
	Alternates []Alternate
	// Static marks a page of the static export, where no server picks the
	// language: static/lang.js then sends a first visit to the language
	// the browser prefers (navigator.languages).
	Static bool
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

// servedPage picks the request's language (i18n.Pick) and remembers an
// explicit choice (?lang=, which the language switch and share links
// carry) in the lang cookie. The switch links back to the same URL with
// ?lang= (static/lang.js keeps the rest of the query and the fragment).
func servedPage(w http.ResponseWriter, r *http.Request) Page {
	lang, explicit := i18n.Pick(r)
	if explicit {
		http.SetCookie(w, &http.Cookie{Name: i18n.CookieName, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode})
	}
	// The same URL answers in either language.
	w.Header().Add("Vary", "Accept-Language, Cookie")
	w.Header().Set("Content-Language", lang)
	p := Page{Lang: lang}
	for _, l := range i18n.Langs {
		p.Alternates = append(p.Alternates, Alternate{Lang: l, Href: "?lang=" + l})
	}
	return p
}

// staticPage is the page at path ("/", "/playground") of the static export
// in lang: English at the root, every other language under /LANG.
func staticPage(lang, path string) Page {
	p := Page{Lang: lang, Prefix: staticPrefix(lang), Static: true}
	for _, l := range i18n.Langs {
		p.Alternates = append(p.Alternates, Alternate{Lang: l, Href: staticPrefix(l) + path})
	}
	return p
}

func staticPrefix(lang string) string {
	if lang == i18n.Default {
		return ""
	}
	return "/" + lang
}
