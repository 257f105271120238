package web

import (
	"strings"
	"testing"

	"warren/engine/script"
	"warren/wasm/playground/bridge"
	"warren/web/i18n"
	"warren/web/i18n/locale"
)

// dataKeys are the browser's catalog keys that static/scripterror.js
// builds from what the engine sends rather than names in its code:
// js.scriptError.KEY for every key a script error can have
// (bridge.ErrorKeys), and js.scriptHelp.group.KEY for every group of the
// help overview.
func dataKeys() map[string]bool {
	out := map[string]bool{}
	for _, k := range bridge.ErrorKeys() {
		out["js.scriptError."+k] = true
	}
	for _, g := range script.HelpOverview() {
		out["js.scriptHelp.group."+g.Key] = true
	}
	return out
}

// TestScriptErrorsTranslated: every key a script error (or the bridge's
// refusal of a line) can have has its entry in both catalogs, and nothing
// else sits under those prefixes; the English entry says what the
// engine's English text says (leaving out at most some of its values,
// such as a usage line's English aside), uses no value the error lacks,
// and the Chinese one is a translation. The help overview's group titles
// and last line are translated the same way.
func TestScriptErrorsTranslated(t *testing.T) {
	data := dataKeys()
	for _, lang := range locale.Langs {
		cat := i18n.Catalog(lang)
		for k := range data {
			if _, ok := cat[k]; !ok {
				t.Errorf("%s.json lacks %q", lang, k)
			}
		}
		for k := range cat {
			if (strings.HasPrefix(k, "js.scriptError.") || strings.HasPrefix(k, "js.scriptHelp.group.")) && !data[k] {
				t.Errorf("%s.json has %q, which no script error or help group has", lang, k)
			}
		}
	}
	en, zh := i18n.Catalog("en"), i18n.Catalog("zh-CN")
	for _, key := range bridge.ErrorKeys() {
		k := "js.scriptError." + key
		template := bridge.ErrorTemplate(key)
		if template == "" {
			t.Errorf("%s: no English template", key)
			continue
		}
		have := map[string]bool{}
		for _, p := range i18n.Placeholders(template) {
			have[p] = true
		}
		want := template
		for _, p := range i18n.Placeholders(template) {
			if !strings.Contains(en[k], "{"+p+"}") {
				want = strings.ReplaceAll(want, "{"+p+"}", "")
			}
		}
		if en[k] != want {
			t.Errorf("%s = %q, want the engine's text %q", k, en[k], want)
		}
		for _, p := range i18n.Placeholders(zh[k]) {
			if !have[p] {
				t.Errorf("%s uses {%s}, which the error does not have", k, p)
			}
		}
		if zh[k] == en[k] {
			t.Errorf("%s is not translated: %q", k, zh[k])
		}
	}
	for _, g := range script.HelpOverview() {
		k := "js.scriptHelp.group." + g.Key
		if en[k] != g.Title || zh[k] == en[k] {
			t.Errorf("%s = %q in English (the engine says %q), %q in Chinese", k, en[k], g.Title, zh[k])
		}
	}
	if en["js.scriptHelp.more"] != script.HelpMore {
		t.Errorf("js.scriptHelp.more = %q, the engine says %q", en["js.scriptHelp.more"], script.HelpMore)
	}
}
