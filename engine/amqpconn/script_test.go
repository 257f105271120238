package amqpconn_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"warren/engine"
	"warren/engine/amqp"
	"warren/engine/amqpconn"
	"warren/engine/script"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata expectations with the actual output")

// TestScripts runs every testdata/*.txt script: client commands into
// machines over one real engine, and what each machine hands out (engine
// commands, frames to send) as the expected output. The file format is the
// engine's (engine/script's ParseCases): "new" starts a fresh engine,
// "run" continues; -rewrite regenerates the expectations.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatal("no scripts", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases, err := script.ParseCases(string(data))
			if err != nil {
				t.Fatal(err)
			}
			outs := make([]string, len(cases))
			var h *harness
			for i, c := range cases {
				if c.Directive == "new" || h == nil {
					h = newHarness()
				}
				var sb strings.Builder
				for _, line := range c.Input {
					if err := h.exec(&sb, line); err != nil {
						fmt.Fprintf(&sb, "error: %v\n", err)
					}
				}
				outs[i] = sb.String()
			}
			if *rewrite {
				if err := os.WriteFile(f, []byte(script.FormatCases(cases, outs)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for i, c := range cases {
				if outs[i] != c.Expected {
					t.Errorf("%s:%d: output differs\n--- got\n%s--- want\n%s", f, c.Line, outs[i], c.Expected)
				}
			}
		})
	}
}

// harness is a driver in miniature: machines named by the script, one
// engine, the Ready loop of the package doc run after every verb.
type harness struct {
	b     *engine.Broker
	conns map[string]*amqpconn.Machine
	names []string
	// backlog is the bytes "waiting to be written" per machine, and the
	// high-water mark; deliveries add to it (backlog verb).
	backlog   map[string]int
	evs       []engine.Event
	openVhost map[string]string
}

func newHarness() *harness {
	return &harness{b: engine.New(engine.Config{Seed: 1}), conns: map[string]*amqpconn.Machine{}, backlog: map[string]int{}}
}

var testConfig = amqpconn.Config{ChannelMax: 4, FrameMax: 131072, Heartbeat: 60, Product: "Warren", Version: "test"}

// exec runs one script line:
//
//	connect [name]                    a new machine, connection.start sent
//	[name:] recv CH METHOD k=v ...    the client sent METHOD on channel CH
//	[name:] login ok|refused          answer the machine's Login
//	[name:] open                      open the connection in the engine
//	[name:] frame-error CH CODE TEXT  the codec found an error
//	[name:] backlog BYTES HW          bytes waiting to be written
//	[name:] force-close TEXT          the server closes the connection
//	[name:] heartbeat NOW SENT HEARD  the heartbeat decisions at NOW (ms)
//	[name:] state                     the machine's state
//	[name:] events-go-now             whether events may go ahead of results
//	+LINE                             LINE, then no Ready loop yet
//
// The name defaults to "c".
func (h *harness) exec(sb *strings.Builder, line string) error {
	line = strings.TrimSpace(line)
	// A line starting with "+" is read in the same turn as the next:
	// the driver has not settled in between (pipelining).
	hold := strings.HasPrefix(line, "+")
	line = strings.TrimPrefix(line, "+")
	name := "c"
	if i := strings.Index(line, ": "); i > 0 && !strings.ContainsAny(line[:i], " =") {
		name, line = line[:i], line[i+2:]
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil
	}
	if f[0] == "connect" {
		quick := len(f) > 1 && f[len(f)-1] == "opened"
		if quick {
			f = f[:len(f)-1]
		}
		if len(f) > 1 {
			name = f[1]
		}
		m := amqpconn.New(testConfig)
		h.conns[name] = m
		h.names = append(h.names, name)
		m.Start()
		if !quick {
			h.settle(sb)
			return nil
		}
		// The whole handshake, its output not shown.
		var quiet strings.Builder
		h.settle(&quiet)
		for _, l := range []string{
			"recv 0 connection.start-ok mechanism=PLAIN response=\\0guest\\0guest capabilities=consumer_cancel_notify",
			"login ok", "recv 0 connection.tune-ok channel-max=4 frame-max=131072", "recv 0 connection.open virtual-host=/", "open",
		} {
			if err := h.exec(&quiet, name+": "+l); err != nil {
				return err
			}
		}
		fmt.Fprintf(sb, "%s: opened\n", name)
		return nil
	}
	m := h.conns[name]
	if m == nil {
		return fmt.Errorf("no connection %q", name)
	}
	switch f[0] {
	case "recv":
		if len(f) < 3 {
			return fmt.Errorf("recv CH METHOD")
		}
		ch, err := strconv.Atoi(f[1])
		if err != nil {
			return err
		}
		in, err := buildCommand(uint16(ch), f[2], f[3:])
		if err != nil {
			return err
		}
		m.Recv(in)
		if hold {
			return nil
		}
	case "login":
		m.LoggedIn(len(f) > 1 && f[1] == "ok")
	case "open":
		r := h.b.Apply(engine.CmdOpenConnection{Open: m.ConnectionOpen(h.openVhost[name])})
		if r.Err != nil {
			ee := r.Err.(*engine.Error)
			m.OpenFailed(ee.Code, ee.Text, ee.Method)
		} else {
			m.Opened(r.Conn, h.openVhost[name])
		}
		h.collect()
	case "frame-error":
		ch, _ := strconv.Atoi(f[1])
		code, _ := strconv.Atoi(f[2])
		m.FrameError(&amqp.Error{Code: uint16(code), Channel: uint16(ch), ClassID: 60, MethodID: 40, Text: strings.Join(f[3:], " ")})
	case "backlog":
		n, _ := strconv.Atoi(f[1])
		hw, _ := strconv.Atoi(f[2])
		if c, ok := m.Backlog(n, hw); ok {
			fmt.Fprintf(sb, "%s: engine %s\n", name, describeCommand(c))
			h.b.Apply(c)
			h.collect()
		}
	case "heartbeat":
		// heartbeat NOW LAST-SENT LAST-HEARD (ms)
		var at [3]int64
		for i := range at {
			at[i], _ = strconv.ParseInt(f[1+i], 10, 64)
		}
		fmt.Fprintf(sb, "%s: every=%dms silence=%dms due=%v gone=%v\n", name, m.HeartbeatEveryMs(), m.SilenceLimitMs(),
			m.HeartbeatDue(at[0], at[1]), m.ClientGone(at[0], at[2]))
		return nil
	case "force-close":
		m.ForceClose(strings.Join(f[1:], " "))
	case "state":
		fm, cm, hb := m.Tuned()
		fmt.Fprintf(sb, "%s: open=%v closing=%v ended=%v paused=%v frame_max=%d channel_max=%d heartbeat=%d close_wait=%dms\n",
			name, m.IsOpen(), m.Closing(), m.Ended(), m.Paused(), fm, cm, hb, m.CloseWaitMs())
		return nil
	case "events-go-now":
		fmt.Fprintf(sb, "%s: events go now=%v\n", name, m.EventsGoNow())
		return nil
	default:
		return fmt.Errorf("unknown verb %q", f[0])
	}
	h.settle(sb)
	return nil
}

// collect drains the engine's events into the harness.
func (h *harness) collect() { h.evs = h.b.DrainEvents(h.evs) }

// settle runs every machine's Ready loop until none has anything to do.
func (h *harness) settle(sb *strings.Builder) {
	for progress := true; progress; {
		progress = false
		for _, name := range h.names {
			m := h.conns[name]
			if len(h.evs) > 0 {
				m.Events(h.evs)
			}
		}
		h.evs = h.evs[:0]
		for _, name := range h.names {
			if h.drive(sb, name) {
				progress = true
			}
		}
	}
}

// drive runs one machine's Ready loop once; it reports whether it applied
// commands (whose events other machines must see).
func (h *harness) drive(sb *strings.Builder, name string) bool {
	m := h.conns[name]
	r := m.Ready()
	applied := false
	for {
		if r.Login != nil {
			fmt.Fprintf(sb, "%s: login %s user=%s pass=%s\n", name, r.Login.Mechanism, r.Login.User, r.Login.Pass)
		}
		if r.Open != nil {
			fmt.Fprintf(sb, "%s: open vhost=%s\n", name, *r.Open)
			if h.openVhost == nil {
				h.openVhost = map[string]string{}
			}
			h.openVhost[name] = *r.Open
		}
		if r.Tuned {
			fm, cm, hb := m.Tuned()
			fmt.Fprintf(sb, "%s: tuned frame_max=%d channel_max=%d heartbeat=%d\n", name, fm, cm, hb)
		}
		for _, o := range r.Out {
			fmt.Fprintf(sb, "%s: send %s\n", name, describeOut(&o))
		}
		if len(r.Commands) == 0 {
			m.Advance()
			return applied
		}
		m.Advance()
		applied = true
		var res []engine.Result
		for _, c := range r.Commands {
			rr := h.b.Apply(c)
			res = append(res, rr)
			line := name + ": engine " + describeCommand(c)
			if rr.Err != nil {
				line += " -> " + rr.Err.Error()
			}
			fmt.Fprintln(sb, line)
			if rr.Err != nil {
				break
			}
		}
		// The events first, as a driver's sink gets them inside Apply;
		// the machine keeps them behind the replies still due.
		h.collect()
		for _, n := range h.names {
			h.conns[n].Events(h.evs)
		}
		h.evs = h.evs[:0]
		m.Results(res)
	}
}

// describeCommand names an engine command and its fields.
func describeCommand(c engine.Command) string {
	v := reflect.ValueOf(c)
	if v.Kind() == reflect.Pointer { // a publish or an ack, by pointer
		v = v.Elem()
	}
	s := strings.TrimPrefix(v.Type().Name(), "Cmd")
	var parts []string
	flatten(&parts, "", v)
	if len(parts) > 0 {
		s += " " + strings.Join(parts, " ")
	}
	return s
}

// flatten appends a struct's non-zero fields as key=value.
func flatten(parts *[]string, prefix string, v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f, fv := v.Type().Field(i), v.Field(i)
		if !f.IsExported() || fv.IsZero() {
			continue
		}
		key := strings.ToLower(f.Name)
		switch {
		case f.Type == reflect.TypeOf(engine.ChannelID{}):
			*parts = append(*parts, prefix+key+"="+strconv.Itoa(int(fv.Field(1).Uint())))
		case f.Type.Kind() == reflect.Struct:
			flatten(parts, prefix, fv)
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct:
			if f.Type == reflect.TypeOf(&engine.Properties{}) {
				*parts = append(*parts, prefix+key+"=set")
				continue
			}
			flatten(parts, prefix+key+".", fv.Elem())
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Uint8:
			*parts = append(*parts, prefix+key+"="+strconv.Quote(string(fv.Bytes())))
		case f.Type == reflect.TypeOf(engine.ConnID(0)):
			// the connection is the one named at the line's start
		default:
			*parts = append(*parts, prefix+key+"="+fmt.Sprint(fv.Interface()))
		}
	}
}

// describeOut renders one thing the machine sends.
func describeOut(o *amqpconn.Out) string {
	var s string
	if o.Event.Kind != 0 {
		ev := &o.Event
		s = fmt.Sprintf("ch=%d event %s", o.Channel, ev.Kind)
		if ev.ConsumerTag != "" {
			s += " consumer=" + ev.ConsumerTag
		}
		if ev.DeliveryTag != 0 {
			s += " tag=" + strconv.FormatUint(ev.DeliveryTag, 10)
		}
		if ev.Code != 0 {
			s += fmt.Sprintf(" code=%d text=%q", ev.Code, ev.Text)
		}
		if ev.Msg != nil {
			s += " body=" + strconv.Quote(string(ev.Msg.Body))
		}
	} else {
		s = fmt.Sprintf("ch=%d %s", o.Channel, o.Method.Name())
		var parts []string
		v := reflect.ValueOf(o.Method).Elem()
		for i := 0; i < v.NumField(); i++ {
			f, fv := v.Type().Field(i), v.Field(i)
			if fv.IsZero() || f.Name == "ServerProperties" {
				continue
			}
			val := fmt.Sprint(fv.Interface())
			if fv.Kind() == reflect.String {
				val = strconv.Quote(fv.String())
			}
			parts = append(parts, kebab(f.Name)+"="+val)
		}
		if len(parts) > 0 {
			s += " " + strings.Join(parts, " ")
		}
	}
	if o.Confirm {
		s += " (confirm)"
	}
	if o.CloseAfter {
		s += " (then close)"
	}
	return s
}

// methods are the client methods scripts send, by name.
var methods = func() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for _, m := range []amqp.Method{
		&amqp.ConnectionStartOk{}, &amqp.ConnectionTuneOk{}, &amqp.ConnectionOpen{}, &amqp.ConnectionClose{}, &amqp.ConnectionCloseOk{},
		&amqp.ConnectionUpdateSecret{}, &amqp.ConnectionTune{},
		&amqp.ChannelOpen{}, &amqp.ChannelClose{}, &amqp.ChannelCloseOk{}, &amqp.ChannelFlow{}, &amqp.AccessRequest{},
		&amqp.ExchangeDeclare{}, &amqp.ExchangeDelete{}, &amqp.ExchangeBind{}, &amqp.ExchangeUnbind{},
		&amqp.QueueDeclare{}, &amqp.QueueBind{}, &amqp.QueueUnbind{}, &amqp.QueuePurge{}, &amqp.QueueDelete{},
		&amqp.BasicQos{}, &amqp.BasicConsume{}, &amqp.BasicCancel{}, &amqp.BasicPublish{}, &amqp.BasicGet{},
		&amqp.BasicAck{}, &amqp.BasicNack{}, &amqp.BasicReject{}, &amqp.BasicRecover{}, &amqp.BasicRecoverAsync{}, &amqp.BasicDeliver{},
		&amqp.ConfirmSelect{}, &amqp.TxSelect{}, &amqp.TxCommit{}, &amqp.TxRollback{},
	} {
		out[m.Name()] = reflect.TypeOf(m).Elem()
	}
	return out
}()

// buildCommand makes a client command from "METHOD k=v ...": fields by
// their spec names (no-wait, routing-key); body= gives basic.publish its
// body; response= is start-ok's, with \0 for NUL.
func buildCommand(ch uint16, name string, args []string) (amqp.Command, error) {
	t, ok := methods[name]
	if !ok {
		return amqp.Command{}, fmt.Errorf("unknown method %q", name)
	}
	v := reflect.New(t)
	in := amqp.Command{Channel: ch}
	for _, a := range args {
		k, val, _ := strings.Cut(a, "=")
		if k == "body" {
			in.Body = []byte(val)
			continue
		}
		f := v.Elem().FieldByName(camel(k))
		if !f.IsValid() {
			return in, fmt.Errorf("%s has no field %s", name, k)
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString(strings.ReplaceAll(val, `\0`, "\x00"))
		case reflect.Bool:
			f.SetBool(val == "" || val == "true")
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				return in, err
			}
			f.SetUint(n)
		case reflect.Map:
			if k != "capabilities" {
				return in, fmt.Errorf("field %s: only capabilities=a,b", k)
			}
		default:
			return in, fmt.Errorf("field %s: unsupported kind %s", k, f.Kind())
		}
		if k == "capabilities" {
			caps := amqp.Table{}
			for _, c := range strings.Split(val, ",") {
				caps[c] = true
			}
			v.Elem().FieldByName("ClientProperties").Set(reflect.ValueOf(amqp.Table{"capabilities": caps}))
		}
	}
	in.Method = v.Interface().(amqp.Method)
	if in.Method.HasContent() {
		in.Props = &amqp.Properties{}
	}
	return in, nil
}

func camel(k string) string {
	if k == "capabilities" {
		return "ClientProperties"
	}
	var sb strings.Builder
	up := true
	for _, r := range k {
		if r == '-' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		sb.WriteRune(r)
	}
	s := sb.String()
	s = strings.ReplaceAll(s, "Id", "ID")
	return s
}

func kebab(s string) string {
	var sb strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 && !unicode.IsUpper(rune(s[i-1])) {
			sb.WriteByte('-')
		}
		sb.WriteRune(unicode.ToLower(r))
	}
	return sb.String()
}
