package bridge

import (
	"encoding/json"
	"fmt"
	"math"
)

// Methods are the functions the wasm main puts on the global JavaScript
// object warren, each a call of Session.Call with its name:
//
//	warren.exec(line)             Result
//	warren.advanceBy(ms)          Result
//	warren.advanceTo(ms)          Result
//	warren.step()                 Result (with fired)
//	warren.next()                 Timer, or null when nothing is scheduled
//	warren.snapshot()             Snapshot
//	warren.log()                  [string]
//	warren.replay(lines, upTo?)   ReplayResult (upTo omitted or -1: all)
//	warren.reset()                {now: 0}
//	warren.check(lines)           CheckResult (expect lines, not logged)
//	warren.liveStart(snap, mode)  LiveResult: replicate a shared session from
//	                              its welcome's snapshot (JSON text) and clock mode
//	warren.liveApply(entry)       LiveResult: apply the session's next entry (JSON text)
//	warren.liveHash()             LiveHash: the replica's state hash
//	warren.hash()                 StateHash: the page's state hash, offline or live
//
// A call with wrong arguments returns {error: "..."} and changes nothing.
var Methods = []string{"exec", "advanceBy", "advanceTo", "step", "next", "snapshot", "log", "replay", "reset", "check", "liveStart", "liveApply", "liveHash", "hash"}

// callError is the answer to a call that could not run.
type callError struct {
	Error string `json:"error"`
}

// Call runs method with arguments as the wasm main converts them from
// JavaScript (a number is a float64, then string, bool, []any for an
// array, nil for null, undefined and anything else) and returns the answer
// as JSON. A panic, which is a bug, is answered as {error: "internal error:
// ..."}; the page stays up, and replay(log()) rebuilds the state as it was
// before the failing call.
func (s *Session) Call(method string, args []any) (answer string) {
	defer func() {
		if p := recover(); p != nil {
			answer = marshal(callError{Error: fmt.Sprintf("internal error (a bug in Warren): %v", p)})
		}
	}()
	v, err := s.call(method, args)
	if err != nil {
		return marshal(callError{Error: err.Error()})
	}
	return marshal(v)
}

func (s *Session) call(method string, args []any) (any, error) {
	switch method {
	case "exec":
		if len(args) != 1 {
			return nil, fmt.Errorf("exec(line) takes 1 argument, got %d", len(args))
		}
		line, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("exec(line): line must be a string, got %s", typeName(args[0]))
		}
		return s.Exec(line), nil
	case "advanceBy", "advanceTo":
		if len(args) != 1 {
			return nil, fmt.Errorf("%s(ms) takes 1 argument, got %d", method, len(args))
		}
		ms, err := millis(method, args[0])
		if err != nil {
			return nil, err
		}
		if method == "advanceBy" {
			return s.AdvanceBy(ms), nil
		}
		return s.AdvanceTo(ms), nil
	case "step", "next", "snapshot", "log", "reset", "hash":
		if len(args) != 0 {
			return nil, fmt.Errorf("%s() takes no arguments, got %d", method, len(args))
		}
		switch method {
		case "step":
			return s.Step(), nil
		case "next":
			return s.Next(), nil
		case "snapshot":
			return s.Snapshot(), nil
		case "log":
			return s.Log(), nil
		case "hash":
			return s.Hash(), nil
		}
		s.Reset()
		return struct {
			Now int64 `json:"now"`
		}{s.Now()}, nil
	case "replay":
		return s.callReplay(args)
	case "liveStart":
		args, err := textArgs("liveStart(snapshot, mode)", args, 2)
		if err != nil {
			return nil, err
		}
		return s.LiveStart(args[0], args[1]), nil
	case "liveApply":
		args, err := textArgs("liveApply(entry)", args, 1)
		if err != nil {
			return nil, err
		}
		return s.LiveApply(args[0]), nil
	case "liveHash":
		if len(args) != 0 {
			return nil, fmt.Errorf("liveHash() takes no arguments, got %d", len(args))
		}
		return s.LiveHashNow()
	case "check":
		lines, err := stringsArg("check(lines)", args)
		if err != nil {
			return nil, err
		}
		return s.Check(lines)
	}
	return nil, fmt.Errorf("unknown method %q", method)
}

func (s *Session) callReplay(args []any) (any, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("replay(lines, upTo) takes 1 or 2 arguments, got %d", len(args))
	}
	lines, err := stringsArg("replay(lines, upTo)", args[:1])
	if err != nil {
		return nil, err
	}
	upTo := -1
	if len(args) == 2 && args[1] != nil {
		f, ok := args[1].(float64)
		if !ok || f != math.Trunc(f) || f < -1 || f > MaxLogLines {
			return nil, fmt.Errorf("replay(lines, upTo): upTo must be an integer from -1 to %d, got %v", MaxLogLines, args[1])
		}
		upTo = int(f)
	}
	return s.Replay(lines, upTo), nil
}

// textArgs converts exactly n string arguments.
func textArgs(call string, args []any, n int) ([]string, error) {
	if len(args) != n {
		return nil, fmt.Errorf("%s takes %d arguments, got %d", call, n, len(args))
	}
	out := make([]string, n)
	for i, a := range args {
		var ok bool
		if out[i], ok = a.(string); !ok {
			return nil, fmt.Errorf("%s: argument %d must be a string, got %s", call, i+1, typeName(a))
		}
	}
	return out, nil
}

// stringsArg converts the only argument, lines, from a JavaScript array of
// strings of at most MaxLogLines elements.
func stringsArg(call string, args []any) ([]string, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("%s takes 1 argument, got %d", call, len(args))
	}
	arr, ok := args[0].([]any)
	if !ok {
		return nil, fmt.Errorf("%s: lines must be an array of strings, got %s", call, typeName(args[0]))
	}
	if len(arr) > MaxLogLines {
		return nil, fmt.Errorf("%s: more than %d lines", call, MaxLogLines)
	}
	lines := make([]string, len(arr))
	for i, a := range arr {
		if lines[i], ok = a.(string); !ok {
			return nil, fmt.Errorf("%s: lines[%d] must be a string, got %s", call, i, typeName(a))
		}
	}
	return lines, nil
}

// millis converts a JavaScript number of milliseconds, which must be a
// whole number from 0 to MaxTimeMs.
func millis(method string, v any) (int64, error) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || f < 0 || f > MaxTimeMs {
		return 0, fmt.Errorf("%s(ms): ms must be a whole number from 0 to %d, got %v", method, int64(MaxTimeMs), v)
	}
	return int64(f), nil
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case float64:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// marshal encodes v; every type the bridge answers with encodes, so a
// failure is a bug.
func marshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("bridge: " + err.Error())
	}
	return string(b)
}
