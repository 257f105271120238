// Package ctl is `warren ctl`: rabbitmqctl's command syntax and output,
// spoken over a running server's management HTTP API instead of Erlang
// distribution.
//
//	warren ctl [--http ADDR] [--username USER] [--password PASS] COMMAND [ARGS]
//	warren ctl --url https://USER:PASS@warren.example.workers.dev list_queues
//	warren ctl set_policy TTL ".*" '{"message-ttl":60000}' --apply-to queues
//	warren ctl list_queues -p / name messages consumers arguments
//
// As in rabbitmqctl, -p is the vhost (so credentials are --username and
// --password only), options may come anywhere on the line, informational
// lines go to stdout (-q drops them, -s drops table headers too), errors to
// stderr, and the exit status is a sysexits code: 64 usage, 65 data error,
// 67 no such user, 69 unavailable, 70 internal, 77 permission.
package ctl

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Exit statuses, from sysexits.h as rabbitmqctl uses them.
const (
	exitOK          = 0
	exitUsage       = 64
	exitDataErr     = 65
	exitNoUser      = 67
	exitUnavailable = 69
	exitSoftware    = 70
	exitNoPerm      = 77
)

// Defaults for reaching the server.
const (
	DefaultHTTP     = "127.0.0.1:8080"
	defaultUser     = "guest"
	defaultTimeoutS = 60
)

// options are the parsed command line.
type options struct {
	// session names a shared session (its editor id) whose clock the
	// clock commands read and move, instead of the server's broker's.
	session                  string
	http, username, password string
	// urlUser and urlPass are the credentials a --url carried, used
	// unless --username or --password name others.
	urlUser, urlPass         *string
	vhost                    string
	timeoutS                 float64
	quiet, silent, noHeaders bool
	applyTo                  string
	priority                 int
	ifEmpty, ifUnused        bool
	format                   string
	help                     bool
	given                    map[string]bool // long names of the options given
}

// optSpec describes one option: its long name, short alias, and whether
// it takes a value.
type optSpec struct {
	long, short string
	value       bool
	// global options are accepted by every command; others only by the
	// commands that list them.
	global bool
}

var optSpecs = []optSpec{
	{"http", "", true, true},
	{"url", "", true, true},
	{"username", "", true, true},
	{"password", "", true, true},
	{"vhost", "p", true, true},
	{"timeout", "t", true, true},
	{"quiet", "q", false, true},
	{"silent", "s", false, true},
	{"no-table-headers", "", false, true},
	{"help", "?", false, true},
	{"apply-to", "", true, false},
	{"priority", "", true, false},
	{"if-empty", "e", false, false},
	{"if-unused", "u", false, false},
	{"format", "", true, false},
	{"session", "", true, false},
}

func lookupOpt(name string) (optSpec, bool) {
	for _, o := range optSpecs {
		if name == "--"+o.long || (o.short != "" && name == "-"+o.short) {
			return o, true
		}
	}
	return optSpec{}, false
}

// env is one run of a command.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	opts           options
	args           []string // positional arguments after the command
	given          []string // the command line as given, for error reports
	cmd            *command
	c              *client
}

// Main runs `warren ctl` with args (those after "ctl") and returns the exit
// status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, given: args}
	e.opts = options{http: DefaultHTTP, username: defaultUser, password: defaultUser, vhost: "/", timeoutS: defaultTimeoutS,
		format: "json", given: map[string]bool{}}
	var positional []string
	var bad []string // "--name : value" for invalid options
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		spec, ok := lookupOpt(name)
		if !ok {
			bad = append(bad, a+" : ")
			continue
		}
		if spec.value && !hasVal {
			if i+1 >= len(args) {
				bad = append(bad, name+" : ")
				continue
			}
			i++
			val = args[i]
		}
		if err := e.opts.set(spec, val); err != nil {
			bad = append(bad, "--"+spec.long+" : "+val)
			continue
		}
		e.opts.given[spec.long] = true
	}
	if e.opts.given["url"] && e.opts.given["http"] {
		bad = append(bad, "--url : --http names the same server; give one of them")
	}
	if u := e.opts.urlUser; u != nil && !e.opts.given["username"] {
		e.opts.username = *u
	}
	if p := e.opts.urlPass; p != nil && !e.opts.given["password"] {
		e.opts.password = *p
	}
	if len(positional) == 0 {
		if e.opts.help {
			printCommands(stdout)
			return exitOK
		}
		printCommands(stderr)
		return exitUsage
	}
	name := positional[0]
	e.args = positional[1:]
	cmd := findCommand(name)
	if cmd == nil {
		fmt.Fprintf(stderr, "\nCommand '%s' not found. \n\n", name)
		printCommands(stderr)
		return exitUsage
	}
	e.cmd = cmd
	if e.opts.help {
		fmt.Fprint(stdout, cmd.helpText())
		return exitOK
	}
	for long := range e.opts.given {
		if spec, _ := lookupOpt("--" + long); !spec.global && !cmd.allows(long) {
			bad = append(bad, "--"+long+" : ")
		}
	}
	if len(bad) > 0 {
		return e.usageError("Invalid options for this command:\n" + strings.Join(bad, "\n"))
	}
	switch {
	case len(e.args) < cmd.minArgs:
		return e.usageError("not enough arguments.")
	case cmd.maxArgs >= 0 && len(e.args) > cmd.maxArgs:
		return e.usageError("too many arguments.")
	}
	e.c = newClient(e.opts.http, e.opts.username, e.opts.password, time.Duration(e.opts.timeoutS*float64(time.Second)))
	return cmd.run(e)
}

// setURL takes --url: the server's whole address, http or https, with
// the credentials in it when they are there (https://user:pass@host),
// and no path (the API is at /api/ on it). It is how warren ctl reaches a
// server behind TLS, such as Warren at the edge.
func (o *options) setURL(val string) error {
	u, err := url.Parse(val)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" ||
		(u.Path != "" && u.Path != "/") {
		return errors.New("not an http or https URL of a server")
	}
	if u.User != nil {
		name := u.User.Username()
		o.urlUser = &name
		if pass, ok := u.User.Password(); ok {
			o.urlPass = &pass
		}
	}
	o.http = u.Scheme + "://" + u.Host
	return nil
}

func (o *options) set(spec optSpec, val string) error {
	switch spec.long {
	case "http":
		o.http = val
	case "url":
		return o.setURL(val)
	case "username":
		o.username = val
	case "password":
		o.password = val
	case "vhost":
		o.vhost = val
	case "session":
		o.session = val
	case "timeout":
		t, err := strconv.ParseFloat(val, 64)
		if err != nil || t <= 0 {
			return errors.New("bad timeout")
		}
		o.timeoutS = t
	case "quiet":
		o.quiet = true
	case "silent":
		o.quiet, o.silent = true, true
	case "no-table-headers":
		o.noHeaders = true
	case "help":
		o.help = true
	case "apply-to":
		o.applyTo = val
	case "priority":
		p, err := strconv.Atoi(val)
		if err != nil {
			return err
		}
		o.priority = p
	case "if-empty":
		o.ifEmpty = true
	case "if-unused":
		o.ifUnused = true
	case "format":
		if val != "json" {
			return errors.New("only json")
		}
		o.format = val
	}
	return nil
}

// info prints an informational line unless --quiet.
func (e *env) info(format string, args ...any) {
	if !e.opts.quiet {
		fmt.Fprintf(e.stdout, format+"\n", args...)
	}
}

// usageError reports an argument problem as rabbitmqctl does.
func (e *env) usageError(msg string) int {
	return e.argError(exitUsage, msg)
}

func (e *env) argError(code int, msg string) int {
	fmt.Fprintf(e.stderr, "Error (argument validation): %s\nArguments given:\n\t%s\n\nUsage\n\n%s\n", msg, strings.Join(e.given, " "), e.cmd.usageLine())
	return code
}

// fail prints "Error:" and the reason, rabbitmqctl's form for a command the
// server refused.
func (e *env) fail(code int, reason string) int {
	fmt.Fprintf(e.stderr, "Error:\n%s\n", reason)
	return code
}

// failed reports an error from the client: an unreachable server, a
// refused login, or any other API error with its reason.
func (e *env) failed(err error) int {
	var ue *unreachableError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "Error: unable to perform an operation on %s. Please see diagnostics information and suggestions below.\n\n"+
			"Most common reasons for this are:\n\n"+
			" * Target server is unreachable (e.g. due to hostname resolution, TCP connection or firewall issues)\n"+
			" * Target server is not running\n"+
			" * --http (or --url) does not name the server's HTTP (management API) address\n\n"+
			"DIAGNOSTICS\n===========\n\nattempted to contact: %s\n\n  * %v\n", ue.base, ue.base, ue.err)
		return exitUnavailable
	}
	var ae *apiError
	if errors.As(err, &ae) && ae.status == 401 {
		return e.fail(exitNoPerm, fmt.Sprintf("%s (as user \"%s\"; see --username and --password)", ae.reason, e.opts.username))
	}
	return e.fail(exitUnavailable, err.Error())
}
