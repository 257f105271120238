package ctl

import (
	"fmt"
	"io"
	"slices"
)

// command is one rabbitmqctl command.
type command struct {
	name    string
	group   string
	desc    string
	usage   string   // what follows the command name in the usage line
	opts    []string // command-specific options it accepts (long names)
	minArgs int
	maxArgs int // -1: any number (columns)
	run     func(e *env) int
}

func (c *command) allows(long string) bool { return slices.Contains(c.opts, long) }

const globalUsage = "warren ctl [--http <address> | --url <url>] [--username <user>] [--password <password>] [--quiet]"

func (c *command) usageLine() string {
	return globalUsage + " " + c.name + " " + c.usage
}

func (c *command) helpText() string {
	return "Usage\n\n" + c.usageLine() + "\n\n" + c.desc + ".\n"
}

// commands lists every command, in rabbitmqctl's help groups.
var commands []*command

func init() {
	commands = []*command{
		{name: "help", group: "Help", desc: "Displays usage information for a command", usage: "[<command>]", maxArgs: 1, run: runHelp},

		{name: "add_user", group: "Users", desc: "Creates a new user. This user will have no permissions for any virtual hosts by default", usage: "<username> <password>", minArgs: 2, maxArgs: 2, run: runAddUser},
		{name: "delete_user", group: "Users", desc: "Removes a user", usage: "<username>", minArgs: 1, maxArgs: 1, run: runDeleteUser},
		{name: "list_users", group: "Users", desc: "List user names and tags", usage: "[--no-table-headers] [<column> ...]", maxArgs: -1, run: listCommand(usersList)},

		{name: "set_permissions", group: "Access Control", desc: "Sets user permissions for a vhost", usage: "[--vhost <vhost>] <username> <conf> <write> <read>", minArgs: 4, maxArgs: 4, run: runSetPermissions},
		{name: "clear_permissions", group: "Access Control", desc: "Revokes user permissions for a vhost", usage: "[--vhost <vhost>] <username>", minArgs: 1, maxArgs: 1, run: runClearPermissions},
		{name: "clear_topic_permissions", group: "Access Control", desc: "Clears user topic permissions for a vhost or exchange", usage: "[--vhost <vhost>] <username> [<exchange>]", minArgs: 1, maxArgs: 2, run: runClearTopicPermissions},
		{name: "list_permissions", group: "Access Control", desc: "Lists user permissions in a virtual host", usage: "[--vhost <vhost>] [--no-table-headers]", maxArgs: 0, run: listCommand(permissionsList)},
		{name: "set_topic_permissions", group: "Access Control", desc: "Sets user topic permissions for an exchange", usage: "[--vhost <vhost>] <username> <exchange> <write> <read>", minArgs: 4, maxArgs: 4, run: runSetTopicPermissions},
		{name: "list_topic_permissions", group: "Access Control", desc: "Lists topic permissions in a virtual host", usage: "[--vhost <vhost>] [--no-table-headers]", maxArgs: 0, run: listCommand(topicPermissionsList)},
		{name: "list_vhosts", group: "Access Control", desc: "Lists virtual hosts", usage: "[--no-table-headers] [<column> ...]", maxArgs: -1, run: listCommand(vhostsList)},

		{name: "status", group: "Monitoring, observability and health checks", desc: "Displays status of a node, with where it keeps its state: the data directory, its size, the last snapshot and the log length", usage: "", maxArgs: 0, run: runStatus},
		{name: "list_bindings", group: "Monitoring, observability and health checks", desc: "Lists all bindings on a vhost", usage: "[--vhost <vhost>] [--no-table-headers] [<column> ...]", maxArgs: -1, run: listCommand(bindingsList)},
		{name: "list_channels", group: "Monitoring, observability and health checks", desc: "Lists all channels in the node", usage: "[--no-table-headers] [<column> ...]", maxArgs: -1, run: listCommand(channelsList)},
		{name: "list_connections", group: "Monitoring, observability and health checks", desc: "Lists AMQP 0.9.1 connections for the node", usage: "[--no-table-headers] [<column> ...]", maxArgs: -1, run: listCommand(connectionsList)},
		{name: "list_consumers", group: "Monitoring, observability and health checks", desc: "Lists all consumers for a vhost", usage: "[--vhost <vhost>] [--no-table-headers] [<column> ...]", maxArgs: -1, run: listCommand(consumersList)},
		{name: "list_exchanges", group: "Monitoring, observability and health checks", desc: "Lists exchanges", usage: "[--vhost <vhost>] [--no-table-headers] [<column> ...]", maxArgs: -1, run: listCommand(exchangesList)},
		{name: "list_queues", group: "Monitoring, observability and health checks", desc: "Lists queues and their properties", usage: "[--vhost <vhost>] [--no-table-headers] [<column>, ...] [--timeout <timeout>]", maxArgs: -1, run: listCommand(queuesList)},

		{name: "clear_operator_policy", group: "Policies", desc: "Clears an operator policy", usage: "[--vhost <vhost>] <name>", minArgs: 1, maxArgs: 1, run: runClearPolicy(true)},
		{name: "clear_policy", group: "Policies", desc: "Clears (removes) a policy", usage: "[--vhost <vhost>] <name>", minArgs: 1, maxArgs: 1, run: runClearPolicy(false)},
		{name: "list_operator_policies", group: "Policies", desc: "Lists operator policy overrides for a virtual host", usage: "[--vhost <vhost>] [--no-table-headers]", maxArgs: 0, run: listCommand(policiesList(true))},
		{name: "list_policies", group: "Policies", desc: "Lists all policies in a virtual host", usage: "[--vhost <vhost>] [--no-table-headers]", maxArgs: 0, run: listCommand(policiesList(false))},
		{name: "set_operator_policy", group: "Policies", desc: "Sets an operator policy that overrides a subset of arguments in user policies", usage: "[--vhost <vhost>] [--priority <priority>] [--apply-to <apply-to>] <name> <pattern> <definition>", opts: []string{"apply-to", "priority"}, minArgs: 3, maxArgs: 3, run: runSetPolicy(true)},
		{name: "set_policy", group: "Policies", desc: "Sets or updates a policy", usage: "[--vhost <vhost>] [--priority <priority>] [--apply-to <apply-to>] <name> <pattern> <definition>", opts: []string{"apply-to", "priority"}, minArgs: 3, maxArgs: 3, run: runSetPolicy(false)},

		{name: "add_vhost", group: "Virtual hosts", desc: "Creates a virtual host", usage: "<vhost>", minArgs: 1, maxArgs: 1, run: runAddVhost},
		{name: "delete_vhost", group: "Virtual hosts", desc: "Deletes a virtual host", usage: "<vhost>", minArgs: 1, maxArgs: 1, run: runDeleteVhost},

		{name: "export_definitions", group: "Definitions", desc: "Exports definitions in JSON", usage: `<file_path | "-"> [--format <json>]`, opts: []string{"format"}, minArgs: 1, maxArgs: 1, run: runExportDefinitions},
		{name: "import_definitions", group: "Definitions", desc: "Imports definitions in JSON", usage: `<file_path | "-"> [--format <json>]`, opts: []string{"format"}, minArgs: 1, maxArgs: 1, run: runImportDefinitions},

		{name: "advance", group: "Clock", desc: "Moves the broker's clock (or a shared session's, with --session) forward by a duration (30m, 1h30m, 500ms, 2s), firing every TTL, delay, lease and timeout that falls due", usage: "[--session <id>] <duration>", opts: []string{"session"}, minArgs: 1, maxArgs: 1, run: runAdvance},
		{name: "clock", group: "Clock", desc: "Displays the broker's clock (or a shared session's, with --session), or sets its mode: live (the wall clock), paused or manual (moves only when told)", usage: "[--session <id>] [live|paused|manual]", opts: []string{"session"}, maxArgs: 1, run: runClock},
		{name: "step", group: "Clock", desc: "Moves the broker's clock (or a shared session's, with --session) to the next timer's deadline, N times", usage: "[--session <id>] [<N>]", opts: []string{"session"}, maxArgs: 1, run: runStep},

		{name: "delete_queue", group: "Queues", desc: "Deletes a queue", usage: "<queue_name> [--if-empty|-e] [--if-unused|-u]", opts: []string{"if-empty", "if-unused"}, minArgs: 1, maxArgs: 1, run: runDeleteQueue},
		{name: "purge_queue", group: "Queues", desc: "Purges a queue (removes all messages in it)", usage: "<queue>", minArgs: 1, maxArgs: 1, run: runPurgeQueue},
	}
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// printCommands prints the general usage and the commands by group, as
// rabbitmqctl does when it gets no command or an unknown one.
func printCommands(w io.Writer) {
	fmt.Fprintf(w, "Usage\n\n%s <command> [<command options>]\n\nAvailable commands:\n", globalUsage)
	var groups []string
	for _, c := range commands {
		if !slices.Contains(groups, c.group) {
			groups = append(groups, c.group)
		}
	}
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n\n", g)
		for _, c := range commands {
			if c.group == g {
				fmt.Fprintf(w, "   %-29s %s\n", c.name, c.desc)
			}
		}
	}
	fmt.Fprint(w, "\nUse 'warren ctl help <command>' to learn more about a specific command\n")
}

func runHelp(e *env) int {
	if len(e.args) == 0 {
		printCommands(e.stdout)
		return exitOK
	}
	c := findCommand(e.args[0])
	if c == nil {
		fmt.Fprintf(e.stderr, "\nCommand '%s' not found. \n\n", e.args[0])
		printCommands(e.stderr)
		return exitUsage
	}
	fmt.Fprint(e.stdout, c.helpText())
	return exitOK
}

// quoted is how rabbitmqctl quotes names in its informational lines.
func quoted(s string) string { return `"` + s + `"` }
