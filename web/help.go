package web

import (
	"strings"

	"warren/engine/script"
)

// helpKeys maps each verb of the script language to the catalog entry that
// says what it does. The playground's help panel lists the verbs' usage
// lines as script.Verbs gives them (the script's words stay English in
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
	"expect channel":        "help.expect_channel",
	"expect confirm":        "help.expect_confirm",
	"expect error":          "help.expect_error",
	"expect event":          "help.expect_event",
	"expect exists":         "help.expect_exists",
	"expect missing":        "help.expect_missing",
	"expect msg":            "help.expect_msg",
	"expect queue":          "help.expect_queue",
	"expect returned":       "help.expect_returned",
	"expect time":           "help.expect_time",
	"expect unacked":        "help.expect_unacked",
	"get":                   "help.get",
	"help":                  "help.help",
	"history entry":         "help.history_entry",
	"history hash":          "help.history_hash",
	"history start":         "help.history_start",
	"nack":                  "help.nack",
	"open":                  "help.open",
	"publish":               "help.publish",
	"purge":                 "help.purge",
	"qos":                   "help.qos",
	"recover":               "help.recover",
	"reject":                "help.reject",
	"reload":                "help.reload",
	"restart":               "help.restart",
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
	"tx commit":             "help.tx_commit",
	"tx rollback":           "help.tx_rollback",
	"tx select":             "help.tx_select",
	"unbind":                "help.unbind",
	"unbind exchange":       "help.unbind_exchange",
	"use":                   "help.use",
	"vhost add":             "help.vhost_add",
	"vhost delete":          "help.vhost_delete",
}

// helpGroupKeys names, in the page's language, the groups script.Verbs
// lists the verbs under.
var helpGroupKeys = map[string]string{
	"Topology":            "help.group.topology",
	"Messages":            "help.group.messages",
	"Channels":            "help.group.channels",
	"Policies and vhosts": "help.group.policies",
	"Time":                "help.group.time",
	"Looking":             "help.group.looking",
	"Checks":              "help.group.checks",
	"Session history":     "help.group.history",
}

// helpGroup is a group of the help panel and its verbs.
type helpGroup struct {
	Key     string // the group's catalog key; "" for a group helpGroupKeys lacks
	Title   string // script.Verbs' own title, shown when Key is ""
	Entries []helpEntry
}

// helpEntry is one verb of the help panel.
type helpEntry struct {
	Verb  string // "show queue"
	Usage string // "show queue NAME", without the usage line's English aside
	Key   string // the description's catalog key; "" for a verb helpKeys lacks
}

// helpGroups reads script.Verbs, in its order. A usage line may end in an
// aside after three spaces ("show queue NAME   (its messages, head
// first)"), which the description says in the page's language instead.
func helpGroups() []helpGroup {
	var out []helpGroup
	for _, v := range script.Verbs() {
		if len(out) == 0 || out[len(out)-1].Title != v.Group {
			out = append(out, helpGroup{Key: helpGroupKeys[v.Group], Title: v.Group})
		}
		usage, _, _ := strings.Cut(v.Usage, "   (")
		g := &out[len(out)-1]
		g.Entries = append(g.Entries, helpEntry{Verb: v.Name, Usage: strings.TrimSpace(usage), Key: helpKeys[v.Name]})
	}
	return out
}
