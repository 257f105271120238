package web

import (
	"strings"

	"warren/engine/script"
)

// helpKeys maps each verb of the script language to the catalog entry that
// says what it does. The playground's help panel lists the verbs' usage
// lines as script.Help gives them (the script's words stay English in
// every language) with these descriptions in the page's language;
// TestHelpDescribesEveryVerb fails when a verb has none.
var helpKeys = map[string]string{
	"ack":                   "help.ack",
	"advance":               "help.advance",
	"bind":                  "help.bind",
	"bind exchange":         "help.bind_exchange",
	"cancel":                "help.cancel",
	"clear_operator_policy": "help.clear_operator_policy",
	"clear_policy":          "help.clear_policy",
	"close":                 "help.close",
	"confirm":               "help.confirm",
	"consume":               "help.consume",
	"declare exchange":      "help.declare_exchange",
	"declare queue":         "help.declare_queue",
	"delete exchange":       "help.delete_exchange",
	"delete queue":          "help.delete_queue",
	"disconnect":            "help.disconnect",
	"expect error":          "help.expect_error",
	"expect event":          "help.expect_event",
	"expect exists":         "help.expect_exists",
	"expect missing":        "help.expect_missing",
	"expect msg":            "help.expect_msg",
	"expect queue":          "help.expect_queue",
	"expect time":           "help.expect_time",
	"get":                   "help.get",
	"help":                  "help.help",
	"nack":                  "help.nack",
	"open":                  "help.open",
	"publish":               "help.publish",
	"purge":                 "help.purge",
	"qos":                   "help.qos",
	"recover":               "help.recover",
	"reject":                "help.reject",
	"run":                   "help.run",
	"set_operator_policy":   "help.set_operator_policy",
	"set_policy":            "help.set_policy",
	"show bindings":         "help.show_bindings",
	"show channels":         "help.show_channels",
	"show consumers":        "help.show_consumers",
	"show exchanges":        "help.show_exchanges",
	"show msg":              "help.show_msg",
	"show next":             "help.show_next",
	"show policies":         "help.show_policies",
	"show queue":            "help.show_queue",
	"show queues":           "help.show_queues",
	"show time":             "help.show_time",
	"show timers":           "help.show_timers",
	"step":                  "help.step",
	"tx":                    "help.tx",
	"tx commit":             "help.tx_commit",
	"tx rollback":           "help.tx_rollback",
	"unbind":                "help.unbind",
	"unbind exchange":       "help.unbind_exchange",
	"use":                   "help.use",
	"vhost add":             "help.vhost_add",
	"vhost delete":          "help.vhost_delete",
}

// helpEntry is one line of the help panel.
type helpEntry struct {
	Verb  string // "show queue"
	Usage string // "show queue NAME", without the usage line's English aside
	Key   string // the description's catalog key; "" for a verb helpKeys lacks
}

// helpEntries reads script.Help: one usage line per verb, each perhaps
// with an aside after three spaces ("show queue NAME   (its messages, head
// first)"), which the catalog's description says in the page's language.
func helpEntries() []helpEntry {
	var out []helpEntry
	for _, line := range strings.Split(script.Help(), "\n") {
		usage, _, _ := strings.Cut(line, "   (")
		usage = strings.TrimSpace(usage)
		if usage == "" {
			continue
		}
		v := verbOf(usage)
		out = append(out, helpEntry{Verb: v, Usage: usage, Key: helpKeys[v]})
	}
	return out
}

// verbOf is a usage line's verb: its leading words of lower-case letters
// and underscores ("declare queue [NAME] ..." is "declare queue", "tx
// select|commit|rollback" is "tx").
func verbOf(usage string) string {
	var words []string
	for _, w := range strings.Fields(usage) {
		if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz_") != "" {
			break
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}
