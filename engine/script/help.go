package script

import (
	"fmt"
	"sort"
	"strings"
)

// Help for the script language comes in two sizes. The overview names every
// command, grouped by what it is for, in a dozen lines, so that a page that
// shows a few dozen lines of output shows all of it; help COMMAND gives the
// full usage of every command with that name or starting with it (help
// publish, help show, help declare queue).

// helpGroups orders the overview and says which group a verb's first word
// belongs to.
// A group's key is its stable id, for a page that says the title in
// another language.
var helpGroups = []struct {
	key   string
	title string
	first []string
}{
	{"topology", "Topology", []string{"declare", "delete", "bind", "unbind", "purge"}},
	{"messages", "Messages", []string{"publish", "consume", "cancel", "get", "ack", "nack", "reject", "recover", "qos", "confirm", "tx"}},
	{"channels", "Channels", []string{"open", "use", "close", "disconnect"}},
	{"policies", "Policies and vhosts", []string{"set_policy", "clear_policy", "set_operator_policy", "clear_operator_policy", "vhost"}},
	{"time", "Time", []string{"advance", "step", "run", "restart", "reload"}},
	{"looking", "Looking", []string{"show", "help"}},
	{"checks", "Checks", []string{"expect"}},
	{"history", "Session history", []string{"history"}},
}

// HelpMore is the overview's last line: how to ask for one command.
const HelpMore = "help COMMAND shows how to use a command, e.g. help publish, help show"

// HelpGroup is one line of the overview: a group's key and English title,
// and its commands in order.
type HelpGroup struct {
	Key   string
	Title string
	Verbs []string
}

// HelpOverview returns the overview's groups, in order; Help renders them
// as text, followed by HelpMore.
func HelpOverview() []HelpGroup {
	key := map[string]string{}
	for _, g := range helpGroups {
		key[g.title] = g.key
	}
	var out []HelpGroup
	for _, v := range Verbs() {
		if len(out) == 0 || out[len(out)-1].Title != v.Group {
			out = append(out, HelpGroup{Key: key[v.Group], Title: v.Group})
		}
		g := &out[len(out)-1]
		g.Verbs = append(g.Verbs, v.Name)
	}
	return out
}

// VerbHelp is one command's entry in the help: its name, the group it is
// listed under and its usage line.
type VerbHelp struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	Usage string `json:"usage"`
}

// Verbs returns every command, grouped in the overview's order and sorted
// by name within a group.
func Verbs() []VerbHelp {
	rank := map[string]int{}
	title := map[string]string{}
	for i, g := range helpGroups {
		for _, f := range g.first {
			rank[f], title[f] = i, g.title
		}
	}
	out := make([]VerbHelp, 0, len(verbs))
	for _, v := range verbs {
		first, _, _ := strings.Cut(v.name, " ")
		out = append(out, VerbHelp{Name: v.name, Group: title[first], Usage: v.usage})
	}
	sort.Slice(out, func(i, j int) bool {
		fi, _, _ := strings.Cut(out[i].Name, " ")
		fj, _, _ := strings.Cut(out[j].Name, " ")
		if rank[fi] != rank[fj] {
			return rank[fi] < rank[fj]
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Help returns the overview: each group's commands on one line, and how to
// ask for one command's usage.
func Help() string {
	var sb strings.Builder
	for _, g := range HelpOverview() {
		fmt.Fprintf(&sb, "%-20s %s\n", g.Title+":", strings.Join(g.Verbs, ", "))
	}
	sb.WriteString(HelpMore)
	return sb.String()
}

// HelpFor returns the usage of every command named topic or starting with
// topic and a space (help show lists every show command), one per line, or
// an error naming the topic when there is none.
func HelpFor(topic string) (string, error) {
	topic = strings.Join(strings.Fields(topic), " ")
	var lines []string
	for _, v := range Verbs() {
		if v.Name == topic || strings.HasPrefix(v.Name, topic+" ") {
			lines = append(lines, v.Usage)
		}
	}
	if len(lines) == 0 {
		return "", newError(KeyNoHelpTopic, "topic", quote(topic))
	}
	return strings.Join(lines, "\n"), nil
}
