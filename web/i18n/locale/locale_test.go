package locale

import (
	"net/http/httptest"
	"testing"
)

// TestPick: ?lang= first, then the cookie, then Accept-Language by
// preference, then English.
func TestPick(t *testing.T) {
	for _, c := range []struct {
		query, cookie, accept string
		want                  string
		explicit              bool
	}{
		{"", "", "", "en", false},
		{"", "", "zh-CN,zh;q=0.9,en;q=0.8", "zh-CN", false},
		{"", "", "en-US,en;q=0.9,zh-CN;q=0.8", "en", false},
		{"", "", "fr-FR, zh;q=0.5", "zh-CN", false},
		{"", "", "zh-TW", "en", false},
		{"", "", "de;q=0.9, zh-Hans-CN;q=0.8, en;q=0.1", "zh-CN", false},
		{"", "", "zh;q=0, en", "en", false},
		{"", "zh-CN", "en", "zh-CN", false},
		{"", "xx", "zh-CN", "zh-CN", false},
		{"en", "zh-CN", "zh-CN", "en", true},
		{"zh-cn", "", "", "zh-CN", true},
		{"fr", "zh-CN", "", "zh-CN", false},
	} {
		r := httptest.NewRequest("GET", "/?lang="+c.query, nil)
		if c.cookie != "" {
			r.Header.Set("Cookie", CookieName+"="+c.cookie)
		}
		if c.accept != "" {
			r.Header.Set("Accept-Language", c.accept)
		}
		got, explicit := Pick(r)
		if got != c.want || explicit != c.explicit {
			t.Errorf("Pick(lang=%q cookie=%q Accept-Language=%q) = %q, %v; want %q, %v", c.query, c.cookie, c.accept, got, explicit, c.want, c.explicit)
		}
	}
}
