package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"golang.org/x/net/html"

	"warren/lessons"
	"warren/web/i18n"
	"warren/web/i18n/locale"
)

// englishRun is three or more English words in a row: what a sentence or
// a label left untranslated looks like. Chinese text keeps single terms in
// English (交换机（exchange）, TTL, HTTP API, AMQP 0-9-1), never a run.
var englishRun = regexp.MustCompile(`[A-Za-z][A-Za-z'’-]*(?:[ ,]+[A-Za-z][A-Za-z'’-]*){2,}`)

// parenthesized is an English term given beside its Chinese one on first
// use: 死信交换机（dead-letter exchange）.
var parenthesized = regexp.MustCompile(`（[^（）]*）`)

// visibleText returns the text a reader of the page sees, node by node,
// and the attributes a reader hears or sees (title, placeholder,
// aria-label, alt). Code is left out: <code>, <pre>, <kbd>, <samp>,
// <option>, whose values are the script's own words, and whatever is
// marked translate="no" (the console's example line); so are <script>
// and <style>.
func visibleText(t *testing.T, page string) []string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "code", "pre", "kbd", "samp", "option", "script", "style":
				return
			}
			for _, a := range n.Attr {
				if a.Key == "translate" && a.Val == "no" {
					return
				}
			}
			for _, a := range n.Attr {
				switch a.Key {
				case "title", "placeholder", "aria-label", "alt":
					out = append(out, a.Val)
				}
			}
		}
		if n.Type == html.TextNode {
			if s := strings.TrimSpace(n.Data); s != "" {
				out = append(out, s)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// lessonStrings are the texts a lesson brings: its title, summary, step
// titles and prose. The lessons package has them in English only for now,
// so a Chinese page shows them in English; they are not the page's own UI.
func lessonStrings(ls []*lessons.Lesson) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Title, l.Summary)
		for _, s := range l.Steps {
			out = append(out, s.Title)
			for _, p := range s.Text {
				for _, sp := range p {
					if !sp.Code {
						out = append(out, strings.TrimSpace(sp.Text))
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) }) // longest first, for stripping
	return out
}

// TestChinesePagesHaveNoEnglishUI renders every page in zh-CN, as the
// server serves it and as the static export writes it, and fails on a
// piece of visible text that is an English catalog entry (one whose
// Chinese entry differs), or that holds a run of three or more English
// words outside code and outside the lesson's own text.
func TestChinesePagesHaveNoEnglishUI(t *testing.T) {
	ls, err := allLessons("zh-CN")
	if err != nil {
		t.Fatal(err)
	}
	en, zh := i18n.Catalog("en"), i18n.Catalog("zh-CN")
	english := map[string]string{} // English entry → its key
	for k, v := range en {
		if zh[k] != v && len(regexp.MustCompile(`[A-Za-z]`).FindAllString(v, 2)) == 2 {
			english[strings.TrimSpace(v)] = k
		}
	}
	// The lesson's sentences are taken out of a piece of text before
	// looking for English in it (a step's heading holds its title); a piece
	// that is all lesson text is skipped.
	lessonSet := map[string]bool{}
	var fromLessons []string
	for _, s := range lessonStrings(ls) {
		lessonSet[s] = true
		if strings.Contains(s, " ") {
			fromLessons = append(fromLessons, s)
		}
	}
	for _, p := range []Page{servedTestPage("zh-CN"), staticPage("zh-CN", "/"), edgePage("zh-CN")} {
		pages := map[string]templ.Component{
			"home":       Home(p),
			"playground": Playground(p),
			"lessons":    LessonsIndex(p, ls),
			"no session": SessionGone(p),
		}
		for _, l := range ls {
			pages["lesson "+l.Slug] = LessonPage(p, l)
		}
		for name, c := range pages {
			page := render(t, c)
			if !strings.Contains(page, `<html lang="zh-CN"`) {
				t.Errorf("%s: not <html lang=\"zh-CN\">", name)
			}
			for _, s := range visibleText(t, page) {
				if lessonSet[s] {
					continue
				}
				if k, ok := english[s]; ok {
					t.Errorf("%s (static %v): %q is the English of %s", name, p.Static, s, k)
					continue
				}
				rest := parenthesized.ReplaceAllString(s, "")
				for _, ls := range fromLessons {
					rest = strings.ReplaceAll(rest, ls, "")
				}
				if m := englishRun.FindString(rest); m != "" {
					t.Errorf("%s (static %v): English %q in %q", name, p.Static, m, s)
				}
			}
		}
	}
}

// TestServedLanguage: the server answers in the language ?lang=, the lang
// cookie or Accept-Language asks for, remembers ?lang= in the cookie, and
// says the answer depends on those headers.
func TestServedLanguage(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for _, c := range []struct {
		path, cookie, accept, want string
		setsCookie                 bool
	}{
		{"/", "", "", "en", false},
		{"/playground", "", "zh-CN,zh;q=0.9", "zh-CN", false},
		{"/lessons?lang=en", "", "zh-CN", "en", true},
		{"/lessons/ttl-and-dead-lettering?lang=zh-CN&step=2", "", "en", "zh-CN", true},
		{"/", "zh-CN", "en-US", "zh-CN", false},
	} {
		req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
		if c.cookie != "" {
			req.AddCookie(&http.Cookie{Name: locale.CookieName, Value: c.cookie})
		}
		if c.accept != "" {
			req.Header.Set("Accept-Language", c.accept)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(body), `<html lang="`+c.want+`"`) {
			t.Errorf("GET %s (cookie %q, Accept-Language %q): not in %s", c.path, c.cookie, c.accept, c.want)
		}
		if got := res.Header.Get("Content-Language"); got != c.want {
			t.Errorf("GET %s: Content-Language %q, want %q", c.path, got, c.want)
		}
		if !strings.Contains(res.Header.Get("Vary"), "Accept-Language") {
			t.Errorf("GET %s: Vary %q lacks Accept-Language", c.path, res.Header.Get("Vary"))
		}
		set := ""
		for _, ck := range res.Cookies() {
			if ck.Name == locale.CookieName {
				set = ck.Value
			}
		}
		if c.setsCookie && set != c.want || !c.setsCookie && set != "" {
			t.Errorf("GET %s: sets lang cookie %q", c.path, set)
		}
		for _, l := range locale.Langs {
			if !strings.Contains(string(body), `hreflang="`+l+`"`) {
				t.Errorf("GET %s: no link to the page in %s", c.path, l)
			}
		}
	}
}
