//go:build js && wasm

// Package dobridge is what the edge's Durable Objects' Go halves share
// about the JavaScript they run under: sending on and closing a socket
// the object's JavaScript holds, serving AMQP on one, and answering an
// HTTP request the object hands over. The session role
// (wasm/worker/sessionrole) and the vhost role (wasm/broker/vhostrole)
// both use it.
package dobridge

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"syscall/js"

	"github.com/coder/websocket"

	"warren/driver/conn"
	"warren/wasm/worker/amqpsocket"
)

// Send sends data on a JavaScript WebSocket; false if it threw (the
// socket is gone).
func Send(ws, data js.Value) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	ws.Call("send", data)
	return true
}

// Close closes a JavaScript WebSocket, ignoring one already closed.
func Close(ws js.Value, code int, reason string) {
	defer func() { recover() }()
	if code == int(websocket.StatusNoStatusRcvd) || code == 0 {
		code = 1000
	}
	ws.Call("close", code, reason)
}

// AMQPSocket is the transport of an AMQP client's socket: binary
// messages out, one frame each; the object hands in what the client
// sends (Deliver) and says when it closed (Closed).
func AMQPSocket(ws js.Value, remote string) *amqpsocket.Messages {
	return amqpsocket.NewMessages(remote, func(frame []byte) error {
		a := js.Global().Get("Uint8Array").New(len(frame))
		js.CopyBytesToJS(a, frame)
		if !Send(ws, a) {
			return io.ErrClosedPipe
		}
		return nil
	}, func(code int, reason string) { Close(ws, code, reason) })
}

// ServeAMQP serves one AMQP connection on t with cfg until it ends.
func ServeAMQP(t conn.Transport, cfg *conn.Config) { conn.Serve(context.Background(), t, cfg) }

// Bytes copies a JavaScript Uint8Array (or ArrayBuffer) into Go.
func Bytes(v js.Value) []byte {
	if v.InstanceOf(js.Global().Get("ArrayBuffer")) {
		v = js.Global().Get("Uint8Array").New(v)
	}
	data := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(data, v)
	return data
}

// Uint8Array copies data into a new JavaScript Uint8Array.
func Uint8Array(data []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(a, data)
	return a
}

// Promise runs f on a goroutine of its own and returns a JavaScript
// promise of its result: a handler that waits (on the broker, on a
// disk) must not hold the call the object made.
func Promise(f func() any) js.Value {
	var handler js.Func
	handler = js.FuncOf(func(_ js.Value, p []js.Value) any {
		defer handler.Release()
		resolve := p[0]
		go func() { resolve.Invoke(f()) }()
		return nil
	})
	return js.Global().Get("Promise").New(handler)
}

// Answer runs h on req and returns what it answered as the object's
// JavaScript builds a Response from: {status, headers, body}.
func Answer(h http.Handler, req *http.Request) map[string]any {
	rec := &recorder{header: http.Header{}, code: http.StatusOK}
	h.ServeHTTP(rec, req)
	headers := map[string]any{}
	for k := range rec.header {
		headers[k] = rec.header.Get(k)
	}
	return map[string]any{"status": rec.code, "headers": headers, "body": rec.body.String()}
}

// recorder keeps what a handler answers, for the object to send.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
	wrote  bool
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wrote = true
	return r.body.Write(p)
}
