//go:build js && wasm

// Command playground is Warren's engine in the browser: it puts a global
// object warren on the page whose functions run the script language and
// the engine's clock (see bridge.Methods for the list). Each returns a
// plain JavaScript object, made by bridge.Session.Call's JSON and
// JSON.parse; all logic is in package bridge, so that it is tested
// natively.
//
// Load it with the wasm_exec.js of the Go that built it:
//
//	const go = new Go();
//	const { instance } = await WebAssembly.instantiateStreaming(fetch("warren.wasm"), go.importObject);
//	go.run(instance);  // do not await: it settles only if Go exits
//	warren.exec("declare queue q ttl=5s");
//
// warren exists as soon as go.run returns. The program never exits on its
// own; if it dies (a fatal error such as running out of memory), go.run's
// promise settles and every later call throws, which the page
// (static/playground/engine.js) watches for.
package main

import (
	"syscall/js"

	"warren/wasm/playground/bridge"
)

func main() {
	s := bridge.New()
	parse := js.Global().Get("JSON").Get("parse")
	api := js.Global().Get("Object").New()
	for _, name := range bridge.Methods {
		api.Set(name, js.FuncOf(func(this js.Value, args []js.Value) any {
			goArgs := make([]any, len(args))
			for i, a := range args {
				goArgs[i] = goValue(a, true)
			}
			return parse.Invoke(s.Call(name, goArgs))
		}))
	}
	if js.Global().Get("warrenTestHooks").Truthy() {
		// The browser tests set warrenTestHooks before the engine starts to
		// get warren.crash(), which ends the Go program with a panic nothing
		// recovers, as a fatal error (out of memory) would: the page's
		// recovery is tested against a real exit. Other pages never see it.
		api.Set("crash", js.FuncOf(func(js.Value, []js.Value) any {
			panic("warren.crash: the engine was stopped on purpose (warrenTestHooks)")
		}))
	}
	js.Global().Set("warren", api)
	select {} // serve calls from JavaScript for the life of the page
}

// goValue converts an argument to what bridge.Session.Call takes: a number
// to float64, a string, a boolean, and (when arrays is true) an array to
// []any of at most bridge.MaxLogLines+1 elements, enough for Call to
// refuse a longer one, whose own arrays are not converted; anything else
// to nil.
func goValue(v js.Value, arrays bool) any {
	switch v.Type() {
	case js.TypeNumber:
		return v.Float()
	case js.TypeString:
		return v.String()
	case js.TypeBoolean:
		return v.Bool()
	case js.TypeObject:
		if !arrays || !js.Global().Get("Array").Call("isArray", v).Bool() {
			return nil
		}
		out := make([]any, min(v.Length(), bridge.MaxLogLines+1))
		for i := range out {
			out[i] = goValue(v.Index(i), false)
		}
		return out
	}
	return nil
}
