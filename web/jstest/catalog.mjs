// The browser's catalogs under Node: web/i18n's en.json and zh-CN.json,
// cut to the keys a page embeds for its modules (i18n.Browser: js. and
// help.), as translators (static/i18n.js) for the modules' factories.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { translator } from "../static/i18n.js";

const CATALOGS = resolve(dirname(fileURLToPath(import.meta.url)), "../i18n");

// browserCatalog is lang's catalog as a page embeds it.
export function browserCatalog(lang) {
  const all = JSON.parse(readFileSync(join(CATALOGS, `${lang}.json`), "utf8"));
  return Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith("js.") || k.startsWith("help.")));
}

export const en = translator(browserCatalog("en"), "en");
export const zh = translator(browserCatalog("zh-CN"), "zh-CN");
