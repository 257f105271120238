// Package locale names the site's languages and picks a request's: the
// part of web/i18n that needs no catalog. It is a package of its own so
// that the edge worker (wasm/worker), which starts a fresh Go instance for
// every request and serves pages already rendered, can choose the language
// the way `warren serve` does without linking the catalogs or decoding
// them at every start.
package locale

import (
	"net/http"
	"strconv"
	"strings"
)

// Default is the language of a request that states no preference the site
// can meet, and the catalog a missing key falls back to.
const Default = "en"

// Langs are the site's languages, as BCP 47 tags, in the order the
// language switch lists them.
var Langs = []string{"en", "zh-CN"}

// CookieName is the cookie that remembers a visitor's choice (the browser
// keeps the same choice in localStorage under the same name).
const CookieName = "lang"

// Supported returns lang if the site has it, else the site's language
// that matches it (Match), else Default.
func Supported(lang string) string {
	if l, ok := Match(lang); ok {
		return l
	}
	return Default
}

// Match maps a language tag to one of Langs: zh, zh-CN, zh-Hans and
// zh-SG read Simplified Chinese; en and any en-* read English. Traditional
// Chinese (zh-TW, zh-HK, zh-Hant) is not matched: the site does not have
// it, and Simplified is not what those readers asked for.
func Match(tag string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(tag))
	switch {
	case t == "en" || strings.HasPrefix(t, "en-"):
		return "en", true
	case t == "zh" || t == "zh-cn" || t == "zh-sg" || strings.HasPrefix(t, "zh-hans"):
		return "zh-CN", true
	}
	return "", false
}

// Pick chooses the language of a request: ?lang= when it names a language
// the site has, then the lang cookie (the visitor's earlier choice), then
// the Accept-Language header's most preferred language the site has, then
// Default. Explicit reports whether ?lang= chose, so that the handler can
// remember the choice in the cookie (Remember).
func Pick(r *http.Request) (lang string, explicit bool) {
	if l, ok := Match(r.URL.Query().Get("lang")); ok {
		return l, true
	}
	if c, err := r.Cookie(CookieName); err == nil {
		if l, ok := Match(c.Value); ok {
			return l, false
		}
	}
	if l, ok := FromAcceptLanguage(r.Header.Get("Accept-Language")); ok {
		return l, false
	}
	return Default, false
}

// Answer picks the request's language (Pick), remembers an explicit
// choice (?lang=, which the language switch and share links carry) in the
// lang cookie for a year, and says in the response's headers that the
// same URL answers in either language. It returns the language to answer
// in.
func Answer(w http.ResponseWriter, r *http.Request) string {
	lang, explicit := Pick(r)
	if explicit {
		http.SetCookie(w, &http.Cookie{Name: CookieName, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode})
	}
	w.Header().Add("Vary", "Accept-Language, Cookie")
	w.Header().Set("Content-Language", lang)
	return lang
}

// FromAcceptLanguage returns the language of Langs an Accept-Language
// header prefers most (by q value, then by order), if it names any.
func FromAcceptLanguage(header string) (string, bool) {
	best, bestQ := "", 0.0
	for i, part := range strings.Split(header, ",") {
		if i >= 32 { // a header is short; do not read an unbounded one
			break
		}
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				continue
			}
			q = f
		}
		l, ok := Match(tag)
		if !ok || q <= bestQ {
			continue
		}
		best, bestQ = l, q
	}
	return best, best != ""
}
