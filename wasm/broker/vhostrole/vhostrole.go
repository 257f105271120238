//go:build js && wasm

// Package vhostrole is the Go half of a vhost's Durable Object at the
// edge (issue 29): the broker worker's wasm, started by the object's
// JavaScript (wasm/broker/vhost.mjs) in the "vhost" role, runs one vhost
// with warren serve's own broker (server/broker), users and permissions
// (server/auth), management API (server/mgmt) and AMQP connection
// machine (driver/conn). The broker's log and snapshots are the object's
// SQLite storage (objectLog); its timer is the object's alarm when the
// object is out of memory (OnArm). The JavaScript owns what only it can:
// the sockets, the storage and the alarm.
//
// Serve sets these functions on the run context's binding:
//
//	start(config)              start the vhost's broker, restoring what
//	                           the storage holds; returns {} or {error}
//	http(method, url, headers, body)
//	                           the management API: a promise of
//	                           {status, headers, body}
//	amqpOpen(ws, remote)       an AMQP client's socket: a handle
//	amqpMessage(h, bytes)      what the client sent (a Uint8Array)
//	amqpGone(h)                the client's socket closed
//	tick()                     the object's alarm went off
//	authCopy(vhost)            (the directory, "/") the users and the
//	                           permissions in vhost, as JSON (authCopy)
//	vhosts()                   (the directory) every vhost's name, JSON
//	authApply(json)            make the users and permissions the
//	                           directory's copy: a promise of null or
//	                           the error's text
//	remove()                   the vhost was deleted: its connections
//	                           are closed (320) and the broker stops
//
// and calls these, which the object sets on the binding before start:
//
//	held()                     {snapshot: [Uint8Array] | null,
//	                           snapshotPos, last, logRecords, logBytes}
//	logBatches(after, limit)   the batches after position after, at most
//	                           limit: [[first, last, Uint8Array], ...]
//	logAppend(first, last, batch)
//	                           write the batch of records first to last
//	logSnapshot(pos, parts)    write a snapshot of everything up to pos
//	                           and drop the records it holds
//	storageBytes()             the storage's size
//	wake(atMs)                 set the alarm (null: none)
package vhostrole

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"syscall/js"
	"time"

	"warren/driver/conn"
	"warren/engine"
	"warren/server/auth"
	"warren/server/broker"
	"warren/server/mgmt"
	"warren/server/store"
	"warren/wasm/dobridge"
	"warren/wasm/worker/amqpsocket"
)

// Config is start's argument, as the object's JavaScript writes it from
// the worker's variables and secrets.
type Config struct {
	// Vhost is the vhost the object is.
	Vhost string `json:"vhost"`
	// AdminUser and AdminPassword are WARREN_ADMIN_USER and
	// WARREN_ADMIN_PASSWORD: the first administrator, created (in "/",
	// the directory) by a start that finds no user; none without them.
	AdminUser     string `json:"adminUser"`
	AdminPassword string `json:"adminPassword"`
	// MaxQueues and MaxMessages are the vhost's limits
	// (WARREN_MAX_QUEUES, WARREN_MAX_MESSAGES; 0: none), as warren
	// serve's --max-queues-per-vhost and --max-messages-per-vhost.
	MaxQueues   int   `json:"maxQueues"`
	MaxMessages int64 `json:"maxMessages"`
}

// role is the vhost's Go side: one per Durable Object.
type role struct {
	binding js.Value
	b       *broker.Broker
	users   *auth.Store
	api     http.Handler
	amqp    conn.Config

	mu    sync.Mutex
	next  int
	amqps map[int]*amqpsocket.Messages
}

// Serve sets the binding's functions and never returns.
func Serve(binding js.Value) {
	r := &role{binding: binding, amqps: map[int]*amqpsocket.Messages{}}
	set := func(name string, fn func(args []js.Value) any) {
		binding.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) any { return fn(args) }))
	}
	set("start", r.start)
	set("http", r.http)
	set("amqpOpen", r.amqpOpen)
	set("amqpMessage", r.amqpMessage)
	set("amqpGone", r.amqpGone)
	set("tick", r.tick)
	set("authCopy", func(a []js.Value) any { return jsonText(copyFor(r.users, a[0].String())) })
	set("authApply", r.authApply)
	set("vhosts", func([]js.Value) any { return jsonText(r.b.Reader(nil).Vhosts()) })
	set("remove", r.remove)
	select {}
}

// start starts the vhost's broker from what the storage holds.
func (r *role) start(args []js.Value) any {
	var cfg Config
	if err := json.Unmarshal([]byte(args[0].String()), &cfg); err != nil {
		return reply(err)
	}
	if cfg.Vhost == "" {
		return reply(errNoVhost)
	}
	h := r.binding.Call("held")
	held := broker.Held{SnapshotPos: store.Pos(h.Get("snapshotPos").Float()), Last: store.Pos(h.Get("last").Float()), Replay: r.replay}
	var snapBytes int64
	if parts := h.Get("snapshot"); !parts.IsNull() {
		var buf bytes.Buffer
		for i := range parts.Length() {
			buf.Write(dobridge.Bytes(parts.Index(i)))
		}
		held.Snapshot, snapBytes = buf.Bytes(), int64(buf.Len())
	}
	fresh := held.Snapshot == nil && held.Last == 0
	log := newObjectLog(r.binding, held, snapBytes, uint64(h.Get("logRecords").Float()), int64(h.Get("logBytes").Float()))
	ecfg := engine.Config{MaxQueuesPerVhost: cfg.MaxQueues, MaxMessagesPerVhost: cfg.MaxMessages}
	eng, err := broker.RecoverHeld(ecfg, time.Now(), broker.ClockLive, log, held)
	if err != nil {
		return reply(err)
	}
	r.b = broker.StartDurable(eng, broker.Options{Store: log, OnArm: r.wake})
	if fresh {
		err = r.firstStart(cfg)
	}
	if err == nil {
		r.users, err = auth.Mirror(r.b)
	}
	// The first administrator: created by a start that finds no user at
	// all, so that secrets put after the object first ran still make
	// one, and an operator who deleted every user gets back in; never
	// beside users that exist.
	if err == nil && cfg.AdminUser != "" && len(r.users.Users()) == 0 {
		err = r.addAdmin(cfg)
	}
	if err != nil {
		r.b.Stop()
		return reply(err)
	}
	r.amqp = conn.Config{Broker: r.b, Users: r.users}
	r.amqp.Defaults()
	r.b.WatchTotals(r.amqp.Alarm.Totals)
	r.b.OnDiskError(r.amqp.Alarm.DiskFailed)
	r.api = mgmt.New(r.b, r.users, mgmt.Options{MaxMessageSize: r.amqp.MaxMessageSize})
	return reply(nil)
}

// firstStart makes a new object's engine the vhost it is: the vhost, and
// no other (a new engine has "/").
func (r *role) firstStart(cfg Config) error {
	if cfg.Vhost == "/" {
		return nil
	}
	return firstErr(r.b.Apply([]engine.Command{engine.CmdAddVhost{Name: cfg.Vhost}, engine.CmdDeleteVhost{Name: "/"}}, nil))
}

// addAdmin creates the first administrator, with every permission in
// the vhost, as RabbitMQ's default user has in "/".
func (r *role) addAdmin(cfg Config) error {
	if err := r.users.AddUser(cfg.AdminUser, cfg.AdminPassword, []string{"administrator"}); err != nil {
		return err
	}
	return r.users.SetPermissions(cfg.AdminUser, cfg.Vhost, ".*", ".*", ".*")
}

func firstErr(res []engine.Result, err error) error {
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// replay reads the stored batches after the snapshot, a page at a time,
// and hands on their records in order.
func (r *role) replay(fn func(store.Pos, []byte) error) error {
	const page = 64
	var after float64
	for {
		rows := r.binding.Call("logBatches", after, page)
		n := rows.Length()
		for i := range n {
			row := rows.Index(i)
			first, last := row.Index(0).Float(), row.Index(1).Float()
			err := decodeBatch(dobridge.Bytes(row.Index(2)), int(last-first)+1, func(j int, rec []byte) error {
				return fn(store.Pos(first)+store.Pos(j), rec)
			})
			if err != nil {
				return fmt.Errorf("log batch %.0f-%.0f: %w", first, last, err)
			}
			after = last
		}
		if n < page {
			return nil
		}
	}
}

// wake sets the object's alarm (broker.Options.OnArm).
func (r *role) wake(at time.Time, ok bool) {
	if ok {
		r.binding.Call("wake", float64(at.UnixMilli()))
	} else {
		r.binding.Call("wake", js.Null())
	}
}

// tick is the object's alarm: one turn of the broker, which brings the
// engine to the wall clock and fires what is due. (An object that was
// out of memory has done so in start already.)
func (r *role) tick([]js.Value) any {
	return dobridge.Promise(func() any {
		if _, err := r.b.Apply(nil, nil); err != nil {
			return err.Error()
		}
		return nil
	})
}

// http answers the management API: method, URL, the request's headers
// as an object, and its body.
func (r *role) http(args []js.Value) any {
	method, url, hdrs, body, remote := args[0].String(), args[1].String(), args[2], args[3].String(), args[4].String()
	return dobridge.Promise(func() any {
		req, err := http.NewRequest(method, url, bytes.NewReader([]byte(body)))
		if err != nil {
			return map[string]any{"status": http.StatusBadRequest, "headers": map[string]any{}, "body": err.Error()}
		}
		keys := js.Global().Get("Object").Call("keys", hdrs)
		for i := range keys.Length() {
			k := keys.Index(i).String()
			req.Header.Set(k, hdrs.Get(k).String())
		}
		req.RemoteAddr = net.JoinHostPort(remote, "0")
		return dobridge.Answer(r.api, req)
	})
}

// amqpOpen serves an AMQP connection on a client's socket.
func (r *role) amqpOpen(args []js.Value) any {
	m := dobridge.AMQPSocket(args[0], args[1].String())
	r.mu.Lock()
	r.next++
	h := r.next
	r.amqps[h] = m
	r.mu.Unlock()
	go func() {
		dobridge.ServeAMQP(m, &r.amqp)
		r.mu.Lock()
		delete(r.amqps, h)
		r.mu.Unlock()
	}()
	return h
}

func (r *role) socket(h js.Value) *amqpsocket.Messages {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.amqps[h.Int()]
}

func (r *role) amqpMessage(args []js.Value) any {
	if m := r.socket(args[0]); m != nil {
		m.Deliver(dobridge.Bytes(args[1]))
	}
	return nil
}

func (r *role) amqpGone(args []js.Value) any {
	if m := r.socket(args[0]); m != nil {
		m.Closed()
	}
	return nil
}

// reply is start's answer: {} or {"error": "..."}.
func reply(err error) any {
	if err != nil {
		return `{"error":` + strconv.Quote(err.Error()) + `}`
	}
	return `{}`
}

// authApply makes the vhost's users and permissions the directory's copy.
func (r *role) authApply(args []js.Value) any {
	text := args[0].String()
	return dobridge.Promise(func() any {
		var c authCopy
		if err := json.Unmarshal([]byte(text), &c); err != nil {
			return err.Error()
		}
		if err := applyCopy(r.users, c); err != nil {
			return err.Error()
		}
		return nil
	})
}

// remove deletes the vhost in its broker, which closes its connections
// with 320 CONNECTION_FORCED as RabbitMQ's vhost deletion does, and stops
// the broker: the object's storage is deleted next.
func (r *role) remove(args []js.Value) any {
	return dobridge.Promise(func() any {
		vhosts := r.b.Reader(nil).Vhosts()
		var cmds []engine.Command
		for _, v := range vhosts {
			cmds = append(cmds, engine.CmdDeleteVhost{Name: v})
		}
		_, err := r.b.Apply(cmds, nil)
		r.b.Stop()
		if err != nil {
			return err.Error()
		}
		return nil
	})
}

// jsonText is v as JSON text.
func jsonText(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return js.Null()
	}
	return string(data)
}
