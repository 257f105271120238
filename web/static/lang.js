// lang.js runs on every page: it remembers the language chosen with the
// switch (in localStorage and in the lang cookie the server reads), keeps
// later visits to it, and on the static export, where no server reads
// Accept-Language, sends a first visit to the language the browser
// prefers. The page names itself in each language with <link
// rel="alternate" hreflang>; switching keeps the query (a lesson's step)
// and the fragment, and on the playground writes the session into the
// fragment first, so that nothing built is lost.

const KEY = "lang";
const pageLang = document.documentElement.lang;
const isStatic = document.documentElement.hasAttribute("data-static");
const alternates = new Map([...document.querySelectorAll('link[rel="alternate"][hreflang]')].map((l) => [l.hreflang, l.getAttribute("href")]));

// match maps a language tag to one the site has (see web/i18n.Match).
function match(tag) {
  const t = String(tag || "").trim().toLowerCase();
  if (t === "en" || t.startsWith("en-")) return "en";
  if (t === "zh" || t === "zh-cn" || t === "zh-sg" || t.startsWith("zh-hans")) return "zh-CN";
  return null;
}

function stored() {
  let v = null;
  try {
    v = localStorage.getItem(KEY);
  } catch {
    // storage refused (a private window's policy): the cookie still holds it
  }
  v ??= /(?:^|;\s*)lang=([^;]*)/.exec(document.cookie)?.[1] ?? null;
  return match(v);
}

function remember(lang) {
  try {
    localStorage.setItem(KEY, lang);
  } catch {
    // the cookie below is enough
  }
  document.cookie = `${KEY}=${lang}; path=/; max-age=31536000; samesite=lax`;
}

// urlFor is this page in lang, with ?lang= so that a server renders it in
// lang and a link copied from the address bar keeps it.
function urlFor(lang) {
  const alt = new URL(alternates.get(lang), location.href);
  const u = new URL(location.href);
  u.pathname = alt.pathname;
  u.searchParams.set("lang", lang);
  const session = globalThis.playground?.fragment?.();
  if (session) u.hash = session;
  return u.href;
}

function go(lang) {
  if (lang && lang !== pageLang && alternates.has(lang)) {
    location.replace(urlFor(lang));
    return true;
  }
  return false;
}

function preferred() {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const l = match(tag);
    if (l) return l;
  }
  return null;
}

// A link that names its language (the switch, a share link) is a choice;
// otherwise keep to the remembered one. A first visit to the static site's
// English pages, which are its neutral root, goes to the browser's
// language; a page under /zh-CN/ was asked for by its path.
const explicit = match(new URLSearchParams(location.search).get("lang"));
if (explicit) {
  remember(explicit);
  go(explicit);
} else {
  const remembered = stored();
  if (remembered) go(remembered);
  else if (isStatic && pageLang === "en") go(preferred());
}

for (const a of document.querySelectorAll("[data-testid=lang-switch] a[data-lang]")) {
  a.addEventListener("click", (e) => {
    e.preventDefault();
    remember(a.dataset.lang);
    location.assign(urlFor(a.dataset.lang));
  });
}
