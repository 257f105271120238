package bridge

import "warren/engine/script"

// ErrorDetail is a script error as data, beside its English text (a
// Result's error): the page says it in its reader's language from its
// catalog's js.scriptError.KEY entry, filling {name} from Args, {cause}
// from Cause and {mismatches} from Mismatches (each as the mismatch entry,
// "(absent)" as the absent entry), as script.Error renders the English.
// The keys are script.ErrorKeys and the bridge's own refusals (ErrorKeys
// lists both).
type ErrorDetail struct {
	Key        string            `json:"key"`
	Args       map[string]string `json:"args,omitempty"`
	Mismatches []script.Mismatch `json:"mismatches,omitempty"`
	Cause      *ErrorDetail      `json:"cause,omitempty"`
}

// detailOf returns err's detail: every error the script runner and parser
// return is a *script.Error.
func detailOf(err error) *ErrorDetail {
	e, ok := err.(*script.Error)
	if !ok {
		panic("bridge: a script error without a key: " + err.Error()) // a bug in engine/script
	}
	return scriptDetail(e)
}

func scriptDetail(e *script.Error) *ErrorDetail {
	d := &ErrorDetail{Key: e.Key, Args: e.Args, Mismatches: e.Mismatches}
	if e.Cause != nil {
		d.Cause = scriptDetail(e.Cause)
	}
	return d
}

// The bridge's own refusals of a line, before the script runs it. Their
// keys start with "bridge." so that they never meet a script's.
const (
	KeyLineTooLong   = "bridge.lineTooLong"
	KeyLineBreak     = "bridge.lineBreak"
	KeyLogFull       = "bridge.logFull"
	KeyReplayTooLong = "bridge.replayTooLong"
)

var refusalTemplates = map[string]string{
	KeyLineTooLong:   "line too long: {bytes} bytes, the limit is {limit}",
	KeyLineBreak:     "one line at a time: the line contains a line break",
	KeyLogFull:       "the log is full ({limit} lines): reset, or replay part of it",
	KeyReplayTooLong: "replay: {lines} lines, the limit is {limit}",
}

// refusal returns the English text and the detail of a refusal.
func refusal(key string, args map[string]string) (string, *ErrorDetail) {
	text, ok := refusalTemplates[key]
	if !ok {
		panic("bridge: no refusal " + key) // programmer error
	}
	return fill(text, args), &ErrorDetail{Key: key, Args: args}
}

// ErrorTemplate returns the English template of key, one of ErrorKeys
// ("" for any other): the script's or the bridge's.
func ErrorTemplate(key string) string {
	if t, ok := refusalTemplates[key]; ok {
		return t
	}
	return script.ErrorTemplate(key)
}

// ErrorKeys returns every key an ErrorDetail can have: what the page's
// catalogs must translate. The script's come first, sorted, then the
// bridge's.
func ErrorKeys() []string {
	return append(script.ErrorKeys(), KeyLineBreak, KeyLineTooLong, KeyLogFull, KeyReplayTooLong)
}

// fill replaces each {name} in template with args[name].
func fill(template string, args map[string]string) string {
	return script.Fill(template, func(name string) string { return args[name] })
}
