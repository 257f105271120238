// i18n.js translates the browser's strings. The page embeds the part of
// its language's catalog the browser uses (web/i18n: the keys that start
// with "js."), as JSON in <script id="i18n-catalog">; the page's language
// is <html lang>. A key is always a literal string in the code that uses
// it, so that web/i18n's tests can find every key the modules use; the one
// exception is keys named by data the engine sends (scripterror.js), which
// web's tests check against the engine's own lists of them.
//
// translator makes the functions for any catalog; this module's own
// exports are the page's, which is what the other modules import. A module
// whose text a test checks (format.js, explain.js, scripterror.js,
// definitions.js) also exports a factory that takes a translator, so that
// web/jstest runs it under Node with either language's catalog.

// translator returns {lang, t, has, tParts, list} over catalog, a map of
// key → entry in language lang.
export function translator(catalog, lang) {
  // t returns the entry key with each {name} replaced by vars[name]. A
  // key the catalog lacks is a bug: it is reported on the console and
  // shown as the key.
  function t(key, vars = {}) {
    const s = catalog[key];
    if (s === undefined) {
      console.error(`i18n: no entry ${key} in the ${lang} catalog`);
      return key;
    }
    return s.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
  }

  // has reports whether the catalog has an entry for key.
  const has = (key) => Object.hasOwn(catalog, key);

  // tParts is t for a string with elements in it: it returns the entry as
  // a list of strings and, where a placeholder's value is an object (a
  // Node, or what explain.js puts there), that object, for the caller to
  // append in the language's order.
  function tParts(key, vars = {}) {
    const s = t(key);
    const out = [];
    let last = 0;
    for (const m of s.matchAll(/\{(\w+)\}/g)) {
      if (m.index > last) out.push(s.slice(last, m.index));
      out.push(m[1] in vars ? vars[m[1]] : m[0]);
      last = m.index + m[0].length;
    }
    if (last < s.length) out.push(s.slice(last));
    return out.map((p) => (typeof p === "object" && p !== null ? p : String(p)));
  }

  // list joins items as the language writes a list ("a, b, c"; "a、b、c").
  const list = (items) => items.join(t("js.list.sep"));

  return { lang, t, has, tParts, list };
}

// The page's catalog and language; none outside a page (Node).
const doc = globalThis.document;
const catalogEl = doc?.getElementById("i18n-catalog");
const page = translator(catalogEl ? JSON.parse(catalogEl.textContent) : {}, doc?.documentElement.lang || "en");

// lang is the page's language: "en" or "zh-CN".
export const { lang, t, has, tParts, list } = page;
