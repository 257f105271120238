// lineFor turns a submitted command form into one script line; the page
// runs it through the console's path, so a form does nothing a typed line
// could not.
import { t } from "../i18n.js";
import { UserError, word, pairWords, numberWord, durationWord, channelPrefix } from "./words.js";

const POLICY_EXAMPLE = '{"message-ttl":60000}';

export function lineFor(form, mode) {
  const f = Object.fromEntries(new FormData(form).entries());
  const v = (k) => (f[k] ?? "").trim();
  // label is the field's name as its label shows it, for error messages.
  const label = (k) => form.elements[k]?.labels?.[0]?.textContent.trim() ?? k;
  const parts = [];
  switch (form.dataset.verb) {
    case "declare-queue": {
      parts.push("declare queue", word(v("name")));
      if (f.exclusive) parts.push("exclusive");
      if (f["auto-delete"]) parts.push("auto-delete");
      if (v("type")) parts.push(`type=${v("type")}`);
      if (v("ttl")) parts.push(`ttl=${durationWord(label("ttl"), v("ttl"))}`);
      if (v("dlx") || v("dlrk")) parts.push(`dlx=${word(v("dlx"))}`); // blank: the default exchange
      if (v("dlrk")) parts.push(`dlrk=${word(v("dlrk"))}`);
      if (v("max-length")) parts.push(`max-length=${numberWord(label("max-length"), v("max-length"))}`);
      if (v("overflow")) parts.push(`overflow=${v("overflow")}`);
      if (v("max-priority")) parts.push(`max-priority=${numberWord(label("max-priority"), v("max-priority"))}`);
      if (v("expires")) parts.push(`expires=${durationWord(label("expires"), v("expires"))}`);
      if (v("delivery-limit")) parts.push(`delivery-limit=${numberWord(label("delivery-limit"), v("delivery-limit"))}`);
      break;
    }
    case "declare-exchange":
      parts.push("declare exchange", word(v("name")), v("type") || "direct");
      if (f.internal) parts.push("internal");
      if (v("ae")) parts.push(`ae=${word(v("ae"))}`);
      // x-delayed-type is required by x-delayed-message, and meaningless
      // for the other types: the engine says so if it is given to them.
      if (v("type") === "x-delayed-message") parts.push(`delayed-type=${v("delayed-type") || "direct"}`);
      break;
    case "bind": {
      // bind QUEUE EXCHANGE [KEY] [ARGS], or bind exchange DESTINATION
      // SOURCE [KEY] [ARGS]: arguments need a key before them, "" if none.
      const args = v("x-match") ? [`x-match=${v("x-match")}`] : [];
      args.push(...pairWords(v("args"), "", (value) => t("js.err.pairs", { field: label("args"), value })));
      parts.push(v("dest-type") === "exchange" ? "bind exchange" : "bind", word(v("destination")), word(v("exchange")));
      if (v("key") || args.length) parts.push(word(v("key")));
      parts.push(...args);
      break;
    }
    case "set-policy": {
      // rabbitmqctl's syntax: set_policy NAME PATTERN 'JSON' --apply-to X.
      const def = v("definition");
      let parsed;
      try {
        parsed = JSON.parse(def);
      } catch (e) {
        throw new UserError(t("js.err.policyJSON", { example: POLICY_EXAMPLE, error: e.message }));
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new UserError(t("js.err.policyObject", { example: POLICY_EXAMPLE }));
      if (def.includes("'")) throw new UserError(t("js.err.policyQuote"));
      // An operator policy caps what applications declare (set_operator_policy).
      parts.push(f.operator ? "set_operator_policy" : "set_policy", word(v("name")), word(v("pattern")), `'${def}'`, "--apply-to", v("apply-to") || "queues");
      if (v("priority")) parts.push("--priority", numberWord(label("priority"), v("priority")));
      break;
    }
    case "publish": {
      parts.push("publish");
      if (v("exchange")) parts.push(word(v("exchange")));
      parts.push(word(v("key")), word(f.body ?? ""));
      if (f.mandatory) parts.push("mandatory");
      if (f.persistent) parts.push("persistent");
      if (v("expiration")) parts.push(`expiration=${durationWord(label("expiration"), v("expiration"))}`);
      if (v("priority")) parts.push(`priority=${numberWord(label("priority"), v("priority"))}`);
      if (v("delay")) parts.push(`delay=${durationWord(label("delay"), v("delay"))}`);
      if (v("cc")) parts.push(`cc=${word(v("cc").split(/[\s,]+/).filter(Boolean).join(","))}`);
      parts.push(...pairWords(v("headers"), "header.", (value) => t("js.err.pairs", { field: label("headers"), value })));
      break;
    }
    case "consume":
      parts.push(channelPrefix(v("channel")) + (mode === "get" ? "get" : "consume"), word(v("queue")));
      if (mode !== "get" && v("tag")) parts.push(`tag=${word(v("tag"))}`);
      if (mode !== "get" && v("prefetch")) parts.push(`prefetch=${numberWord(label("prefetch"), v("prefetch"))}`);
      if (f["no-ack"]) parts.push("no-ack");
      break;
    case "ack": {
      const tag = v("tag") || "last";
      if (!/^(\d+|last|all)$/.test(tag)) throw new UserError(t("js.err.tag", { value: tag }));
      parts.push(channelPrefix(v("channel")) + mode, tag);
      if (f.multiple && mode !== "reject") parts.push("multiple");
      if (!f.requeue && mode !== "ack") parts.push("requeue=false");
      break;
    }
    default:
      throw new Error(`unknown form ${form.dataset.verb}`);
  }
  return parts.join(" ");
}
