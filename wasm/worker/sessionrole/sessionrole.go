//go:build js && wasm

// Package sessionrole is the Go half of a shared session's Durable Object
// at the edge (issue 12): the worker's wasm, started by the object's
// JavaScript (session.mjs) in the "session" role, runs one session with
// driver/sessions' Host — the same hub, engine, history and AMQP
// connection state machine as warren serve — while the JavaScript owns
// what only it can: the WebSockets, the object's storage and its alarm.
//
// Serve sets these functions on the run context's binding, for the
// object to call:
//
//	start(config, stored)      start the session, or restore it from what
//	                           keep stored; returns {created} or {error}
//	pageOpen(id, ws)           a page's socket: a handle, or -1 for an
//	                           unknown id; the participant's id is written
//	                           on the socket (serializeAttachment) at its join
//	pageAdopt(pid, ws)         a page whose socket outlived the object's
//	                           memory (hibernation): a handle, or -1
//	pageMessage(h, text)       what the page sent
//	pageGone(h)                the page's socket closed
//	amqpOpen(ws, remote)       an AMQP client's socket: a handle
//	amqpMessage(h, bytes)      what the client sent (a Uint8Array)
//	amqpGone(h)                the client's socket closed
//	http(method, url, body)    the session's HTTP endpoints (clock,
//	                           history, DELETE): a promise of
//	                           {status, headers, body}
//	tick()                     the object's alarm went off
//
// and calls these, which the object sets on the binding before start:
//
//	keep(entries, state, snapshot)  store what the session's Keeper is
//	                                given (JSON texts; state and snapshot
//	                                null when unchanged)
//	wake(atMs)                      set the alarm (null: none)
//	ended()                         the session ended: drop its storage
package sessionrole

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"syscall/js"

	"github.com/coder/websocket"

	"warren/driver/sessions"
	"warren/engine/hub"
	"warren/wasm/dobridge"
	"warren/wasm/worker/amqpsocket"
)

// Config is start's first argument, as the object's JavaScript writes it.
type Config struct {
	ID         string         `json:"id"`
	ReadOnlyID string         `json:"readOnlyId"`
	Name       string         `json:"name"`
	CreatedMs  int64          `json:"createdMs"`
	Clock      hub.ClockMode  `json:"clock"`
	Lines      []string       `json:"lines"`
	Login      *hub.AMQPLogin `json:"login"`
}

// Stored is start's second argument: what keep stored, or null for a new
// session; Keep are the participants whose pages' sockets outlived the
// object's memory (hibernated), which pageAdopt then gives back.
type Stored struct {
	Snapshot string              `json:"snapshot"`
	Entries  []string            `json:"entries"`
	State    string              `json:"state"`
	Keep     []hub.ParticipantID `json:"keep"`
}

// role is the session's Go side: one per Durable Object.
type role struct {
	binding js.Value
	host    *sessions.Host

	mu    sync.Mutex
	next  int
	pages map[int]*sessions.Peer
	amqps map[int]*amqpsocket.Messages
}

// Serve sets the binding's functions and never returns.
func Serve(binding js.Value) {
	r := &role{binding: binding, pages: map[int]*sessions.Peer{}, amqps: map[int]*amqpsocket.Messages{}}
	set := func(name string, fn func(args []js.Value) any) {
		binding.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) any { return fn(args) }))
	}
	set("start", r.start)
	set("pageOpen", r.pageOpen)
	set("pageMessage", func(a []js.Value) any { r.page(a[0]).Receive([]byte(a[1].String())); return nil })
	set("pageGone", r.pageGone)
	set("pageAdopt", r.pageAdopt)
	set("amqpOpen", r.amqpOpen)
	set("amqpMessage", r.amqpMessage)
	set("amqpGone", r.amqpGone)
	set("http", r.http)
	set("tick", func([]js.Value) any { r.host.Tick(); return nil })
	select {}
}

// start starts or restores the session.
func (r *role) start(args []js.Value) any {
	var cfg Config
	if err := json.Unmarshal([]byte(args[0].String()), &cfg); err != nil {
		return reply(nil, err)
	}
	if err := sessions.CheckCreate(cfg.Name, cfg.Clock); err != nil {
		return reply(nil, err)
	}
	hosted := sessions.Hosted{ID: cfg.ID, ReadOnlyID: cfg.ReadOnlyID, Name: cfg.Name, CreatedMs: cfg.CreatedMs, Login: cfg.Login,
		Keeper: keeper{r.binding}, Wake: r.wake, AlarmOnly: true}
	scfg := sessions.Config{Logf: func(format string, a ...any) { js.Global().Get("console").Call("log", sprintf(format, a...)) }}
	var err error
	if args[1].IsNull() || args[1].IsUndefined() {
		r.host, err = sessions.NewHost(scfg, hosted, cfg.Clock, cfg.Lines)
	} else {
		var st Stored
		if err = json.Unmarshal([]byte(args[1].String()), &st); err == nil {
			r.host, err = restore(scfg, hosted, &st)
		}
	}
	if err != nil {
		return reply(nil, err)
	}
	go func() {
		<-r.host.Done()
		r.binding.Call("ended")
	}()
	c := r.host.Created()
	return reply(&c, nil)
}

// restore rebuilds the session from what keep stored.
func restore(cfg sessions.Config, hosted sessions.Hosted, st *Stored) (*sessions.Host, error) {
	var snap hub.Snapshot
	var state hub.State
	if err := json.Unmarshal([]byte(st.Snapshot), &snap); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(st.State), &state); err != nil {
		return nil, err
	}
	for _, text := range st.Entries {
		var e hub.Entry
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			return nil, err
		}
		if e.Seq > snap.Seq {
			snap.Entries = append(snap.Entries, e)
		}
	}
	return sessions.RestoreHost(cfg, hosted, &snap, state, st.Keep)
}

// reply is start's answer: {"created": ...}, or {"error": "..."} with the
// hub's key and args when the hub refused (a seed), for the page to say
// in its reader's language.
func reply(c *sessions.Created, err error) any {
	m := map[string]any{}
	if err != nil {
		m["error"] = err.Error()
		var he *hub.Error
		if errors.As(err, &he) {
			m["key"], m["args"] = he.Key, he.Args
		}
	} else {
		m["created"] = c
	}
	data, _ := json.Marshal(m)
	return string(data)
}

// keeper hands what the session's Keeper is given to the object's keep.
type keeper struct{ binding js.Value }

func (k keeper) Keep(entries []hub.Entry, st *hub.State, snap *hub.Snapshot) {
	texts := make([]any, len(entries))
	for i := range entries {
		data, _ := json.Marshal(&entries[i])
		texts[i] = string(data)
	}
	state, snapshot := js.Null(), js.Null()
	if st != nil {
		data, _ := json.Marshal(st)
		state = js.ValueOf(string(data))
	}
	if snap != nil {
		data, _ := json.Marshal(hub.Snapshot{Seq: snap.Seq, State: snap.State})
		snapshot = js.ValueOf(string(data))
	}
	k.binding.Call("keep", js.ValueOf(texts), state, snapshot)
}

// wake sets the object's alarm.
func (r *role) wake(at int64, ok bool) {
	if ok {
		r.binding.Call("wake", at)
	} else {
		r.binding.Call("wake", js.Null())
	}
}

func (r *role) add(p *sessions.Peer, m *amqpsocket.Messages) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	if p != nil {
		r.pages[r.next] = p
	} else {
		r.amqps[r.next] = m
	}
	return r.next
}

func (r *role) page(h js.Value) *sessions.Peer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.pages[h.Int()]; p != nil {
		return p
	}
	return nil
}

// pageOpen gives a page's socket its Peer and pumps it into the socket.
func (r *role) pageOpen(args []js.Value) any {
	id, ws := args[0].String(), args[1]
	p, err := r.host.OpenPage(id)
	if err != nil {
		return -1
	}
	// The participant's id goes on the socket, so that the object can
	// give the page back after hibernating (pageAdopt).
	p.OnJoin(func(pid hub.ParticipantID) { attach(ws, id, pid) })
	return r.pump(p, ws)
}

// pageAdopt gives back the page of participant pid, whose socket outlived
// the object's memory: a handle, or -1 when the participant is gone.
func (r *role) pageAdopt(args []js.Value) any {
	p, err := r.host.AdoptPage(hub.ParticipantID(args[0].Int()))
	if err != nil {
		return -1
	}
	return r.pump(p, args[1])
}

// attach writes on a page's socket what adopting it takes: the session id
// it came by and the participant it is; and, as its join was just heard,
// when (heard, which the object's sweep of silent pages reads:
// session.mjs).
func attach(ws js.Value, id string, pid hub.ParticipantID) {
	defer func() { recover() }() // a socket that is not the object's own
	ws.Call("serializeAttachment", map[string]any{"id": id, "pid": int(pid), "heard": js.Global().Get("Date").Call("now").Float()})
}

// pump registers a page and pumps the session's messages into its socket.
func (r *role) pump(p *sessions.Peer, ws js.Value) int {
	h := r.add(p, nil)
	go func() {
		p.Pump(func(data []byte) bool { return dobridge.Send(ws, js.ValueOf(string(data))) },
			func(code websocket.StatusCode, reason string) { dobridge.Close(ws, int(code), reason) })
		r.mu.Lock()
		delete(r.pages, h)
		r.mu.Unlock()
	}()
	return h
}

func (r *role) pageGone(args []js.Value) any {
	if p := r.page(args[0]); p != nil {
		p.Gone()
	}
	return nil
}

// amqpOpen serves an AMQP connection on a client's socket.
func (r *role) amqpOpen(args []js.Value) any {
	ws, remote := args[0], args[1].String()
	m := dobridge.AMQPSocket(ws, remote)
	h := r.add(nil, m)
	go func() {
		r.host.ServeAMQP(context.Background(), m)
		r.mu.Lock()
		delete(r.amqps, h)
		r.mu.Unlock()
	}()
	return h
}

func (r *role) amqpMessage(args []js.Value) any {
	r.mu.Lock()
	m := r.amqps[args[0].Int()]
	r.mu.Unlock()
	if m == nil {
		return nil
	}
	m.Deliver(dobridge.Bytes(args[1]))
	return nil
}

func (r *role) amqpGone(args []js.Value) any {
	r.mu.Lock()
	m := r.amqps[args[0].Int()]
	r.mu.Unlock()
	if m != nil {
		m.Closed()
	}
	return nil
}

// http answers one of the session's HTTP endpoints with a promise.
func (r *role) http(args []js.Value) any {
	method, url, body := args[0].String(), args[1].String(), args[2].String()
	return dobridge.Promise(func() any {
		req, err := http.NewRequest(method, url, bytes.NewReader([]byte(body)))
		if err != nil {
			return map[string]any{"status": http.StatusBadRequest, "headers": map[string]any{}, "body": err.Error()}
		}
		return dobridge.Answer(r.host, req)
	})
}

// sprintf is fmt.Sprintf without importing fmt's full weight twice.
func sprintf(format string, a ...any) string {
	var b bytes.Buffer
	b.WriteString(format)
	for _, v := range a {
		data, _ := json.Marshal(v)
		b.WriteByte(' ')
		b.Write(data)
	}
	return b.String()
}
