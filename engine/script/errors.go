package script

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"warren/engine/duration"
)

// Error is a script error as data: a stable Key, the named values its
// text is made from (Args), and for a failed comparison the fields that
// differ (Mismatches). Error renders the English text from the key's
// template; a page that speaks another language renders the same key and
// values from its own catalog (the playground's js.scriptError.KEY
// entries), which is why the text is never built any other way. Every
// error the parser and the runner return is an *Error, and so is the
// cause of one that wraps another (an expectation that failed because a
// queue is missing: KeyExpectationFailed with the cause KeyNoQueue).
//
// An argument that the text shows quoted holds its quotes: the command
// of KeyUnknownCommand is `"frobnicate"`, as strconv.Quote writes it, so
// that every language shows the same exact value.
type Error struct {
	Key        string
	Args       map[string]string
	Mismatches []Mismatch
	Cause      *Error
}

// Mismatch is one field a comparison found different: what it is (Got;
// Absent when the field is not there at all) and what was wanted.
type Mismatch struct {
	Field  string `json:"field"`
	Got    string `json:"got"`
	Want   string `json:"want"`
	Absent bool   `json:"absent,omitempty"`
}

// The keys of script errors. The templates below give each one's English
// text: a {name} is Args[name], except {cause} (the Cause's text) and
// {mismatches} (each Mismatch as KeyMismatch, "(absent)" being KeyAbsent,
// joined by ", ").
const (
	// Parsing a line.
	KeyEmptyChannel      = "emptyChannel"
	KeyMissingCommand    = "missingCommand"
	KeyWhichVerb         = "whichVerb"
	KeyUnknownCommand    = "unknownCommand"
	KeyUnknownOption     = "unknownOption"
	KeyUsage             = "usage"
	KeyUnterminatedQuote = "unterminatedQuote"
	KeyNoHelpTopic       = "noHelpTopic"

	// Values and options.
	KeyEmptyDuration     = duration.KeyEmpty
	KeyNegativeDuration  = duration.KeyNegative
	KeyBadDuration       = duration.KeyBad
	KeyBadDurationNumber = duration.KeyBadNumber
	KeyBadDurationUnit   = duration.KeyBadUnit
	KeyBadPriority       = "badPriority"
	KeyBadCount          = "badCount"
	KeyBadTimestamp      = "badTimestamp"
	KeyPublishOption     = "publishOption"
	KeyBadHeaders        = "badHeaders"
	KeyBadDeliveryMode   = "badDeliveryMode"
	KeyBadPrefetch       = "badPrefetch"
	KeyBadPrefetchCount  = "badPrefetchCount"
	KeyBadPrefetchSize   = "badPrefetchSize"
	KeyBadDeliveryTag    = "badDeliveryTag"
	KeyBadRequeue        = "badRequeue"
	KeyUnknownFlag       = "unknownFlag"
	KeyFlagNeedsValue    = "flagNeedsValue"
	KeyBadDefinition     = "badDefinition"
	KeyBadPolicyPriority = "badPolicyPriority"
	KeyBadStepCount      = "badStepCount"

	// The state a command needs.
	KeyChannelAlreadyOpen = "channelAlreadyOpen"
	KeyChannelNotOpen     = "channelNotOpen"
	KeyConnectionNotOpen  = "connectionNotOpen"
	KeyNoQueue            = "noQueue"
	KeyBadIndex           = "badIndex"
	KeyNoIndex            = "noIndex"
	KeyBackInTime         = "backInTime"
	KeyAdvanceTooFar      = "advanceTooFar"
	KeyRunBusy            = "runBusy"

	// Replaying a shared session's history (verbs_history.go).
	KeyHistoryShared       = "historyShared"
	KeyReloadShared        = "reloadShared"
	KeyReloadPending       = "reloadPending"
	KeyHistoryNotStarted   = "historyNotStarted"
	KeyHistoryBadSeq       = "historyBadSeq"
	KeyHistoryStateBase64  = "historyStateBase64"
	KeyHistoryBadState     = "historyBadState"
	KeyHistoryRecordBase64 = "historyRecordBase64"
	KeyHistoryBadRecord    = "historyBadRecord"
	KeyHistoryGap          = "historyGap"
	KeyHistoryHashSeq      = "historyHashSeq"
	KeyHistoryBadHash      = "historyBadHash"
	KeyHistoryDiverged     = "historyDiverged"

	// Misused expect lines.
	KeyInVerb         = "inVerb"
	KeyBadTag         = "badTag"
	KeyBadErrorCode   = "badErrorCode"
	KeyUnknownEvent   = "unknownEvent"
	KeyBadExistsWhat  = "badExistsWhat"
	KeyBadConfirmWant = "badConfirmWant"

	// Failed expectations: KeyExpectationFailed, whose Cause is one of
	// the others (or a state error above, such as KeyNoQueue).
	KeyExpectationFailed = "expectationFailed"
	KeyMismatch          = "mismatch"
	KeyAbsent            = "absent"
	KeyQueueDiffers      = "queueDiffers"
	KeyMsgDiffers        = "msgDiffers"
	KeyChannelDiffers    = "channelDiffers"
	KeyUnackedDiffers    = "unackedDiffers"
	KeyUnexpectedError   = "unexpectedError"
	KeyNoError           = "noError"
	KeyWrongError        = "wrongError"
	KeyNoEvent           = "noEvent"
	KeyQueueMissing      = "queueMissing"
	KeyExchangeMissing   = "exchangeMissing"
	KeyQueueExists       = "queueExists"
	KeyExchangeExists    = "exchangeExists"
	KeyWrongTime         = "wrongTime"
	KeyNoUnacked         = "noUnacked"
	KeyNoUnackedAtAll    = "noUnackedAtAll"
	KeyConfirmForgotten  = "confirmForgotten"
	KeyNotConfirmMode    = "notConfirmMode"
	KeyNoConfirm         = "noConfirm"
	KeyWrongConfirm      = "wrongConfirm"
	KeyNoReturn          = "noReturn"
	KeyNoMatchingReturn  = "noMatchingReturn"
)

var errorTemplates = map[string]string{
	KeyEmptyChannel:      "empty channel name after @",
	KeyMissingCommand:    "missing command after @{channel}",
	KeyWhichVerb:         "{verb} what? expected one of: {choices}",
	KeyUnknownCommand:    `unknown command {command} (try "help")`,
	KeyUnknownOption:     "{verb}: unknown option {option} (options: {options})",
	KeyUsage:             "usage: {usage}{aside}",
	KeyUnterminatedQuote: "unterminated quote in {line}",
	KeyNoHelpTopic:       `no command {topic} (try "help")`,

	KeyEmptyDuration:     duration.Templates[KeyEmptyDuration],
	KeyNegativeDuration:  duration.Templates[KeyNegativeDuration],
	KeyBadDuration:       duration.Templates[KeyBadDuration],
	KeyBadDurationNumber: duration.Templates[KeyBadDurationNumber],
	KeyBadDurationUnit:   duration.Templates[KeyBadDurationUnit],
	KeyBadPriority:       "priority must be 0..255, got {value}",
	KeyBadCount:          "count must be 1..1000000, got {value}",
	KeyBadTimestamp:      "timestamp must be seconds, got {value}",
	KeyPublishOption:     "publish: unknown option {option} (headers are header.NAME=VALUE)",
	KeyBadHeaders:        "headers= takes only {empty} (empty headers; set a header with header.NAME=VALUE), got {value}",
	KeyBadDeliveryMode:   "delivery-mode must be 0..255, got {value}",
	KeyBadPrefetch:       "prefetch must be 0..65535, got {value}",
	KeyBadPrefetchCount:  "prefetch count must be 0..65535, got {value}",
	KeyBadPrefetchSize:   "prefetch size must be 0..4294967295, got {value}",
	KeyBadDeliveryTag:    "delivery tag must be a number, last or all, got {value}",
	KeyBadRequeue:        "requeue must be true or false, got {value}",
	KeyUnknownFlag:       "unknown flag {flag}",
	KeyFlagNeedsValue:    "flag {flag} needs a value",
	KeyBadDefinition:     "policy definition is not a JSON object: {detail}",
	KeyBadPolicyPriority: "priority must be an integer, got {value}",
	KeyBadStepCount:      "step count must be a whole number from 1 to {max}, got {value}",

	KeyChannelAlreadyOpen: "channel {channel} is already open",
	KeyChannelNotOpen:     "channel {channel} is not open",
	KeyConnectionNotOpen:  "connection {connection} is not open",
	KeyNoQueue:            "no queue {queue}",
	KeyBadIndex:           "message index must be 0, 1, ... got {value}",
	KeyNoIndex:            "queue {queue} has {ready} ready messages, no index {index}",
	KeyBackInTime:         "cannot go back in time to {target} (now {now})",
	KeyAdvanceTooFar:      "cannot advance {value}: the clock moves forward by at most {max} at a time, and never past {end} (now {now})",
	KeyRunBusy:            "run: still busy after {steps} steps (a timer keeps re-arming?)",

	KeyHistoryShared:       "{verb}: this broker is a shared session's, which others use too; a history replays only into a broker of its own, as the offline playground's",
	KeyReloadShared:        "{verb}: this broker is a shared session's, which others use too; only a broker of its own, as the offline playground's, is saved and loaded back",
	KeyReloadPending:       "reload: the broker has command records its driver has not taken yet; they must be taken before a save",
	KeyHistoryNotStarted:   "{verb}: no history is being replayed (a history begins with history start)",
	KeyHistoryBadSeq:       "an entry number is 0, 1, 2, ... got {value}",
	KeyHistoryStateBase64:  "history start: the state is not unpadded base64url (bad byte at {offset})",
	KeyHistoryBadState:     "history start: the state does not load: {detail}",
	KeyHistoryRecordBase64: "history entry {seq}: record {n} is not unpadded base64url (bad byte at {offset})",
	KeyHistoryBadRecord:    "history entry {seq}: record {n} is not an engine command: {detail}",
	KeyHistoryGap:          "history entry {seq} does not follow entry {last}: entries apply one after another, in order",
	KeyHistoryHashSeq:      "history hash {seq}: the last entry applied is {last}",
	KeyHistoryBadHash:      "a state hash is 16 hexadecimal digits, got {value}",
	KeyHistoryDiverged:     "after entry {seq} the state hash is {got}, the session's was {want}: this replay differs from the session (a line changed, left out, or run in between)",

	KeyInVerb:         "{verb}: {cause}",
	KeyBadTag:         "a delivery tag is 1, 2, ... got {value}",
	KeyBadErrorCode:   "expect error: want a reply code or none, got {value}",
	KeyUnknownEvent:   "expect event: unknown event kind {kind}",
	KeyBadExistsWhat:  "expect exists/missing: queue or exchange, got {value}",
	KeyBadConfirmWant: "expect confirm: want ack or nack, got {value}",

	KeyExpectationFailed: "expectation failed: {cause}",
	KeyMismatch:          "{field}={got} (want {want})",
	KeyAbsent:            "(absent)",
	KeyQueueDiffers:      "queue {queue}: {mismatches}",
	KeyMsgDiffers:        "msg {queue}[{index}]: {mismatches}",
	KeyChannelDiffers:    "channel {channel}: {mismatches}",
	KeyUnackedDiffers:    "channel {channel} tag {tag}: {mismatches}",
	KeyUnexpectedError:   "unexpected error {code} {text}",
	KeyNoError:           "no error, want {want}",
	KeyWrongError:        "error {code} {text}, want {want}",
	KeyNoEvent:           "no {kind} event matching {fields} in the previous command's events",
	KeyQueueMissing:      "queue {name} does not exist",
	KeyExchangeMissing:   "exchange {name} does not exist",
	KeyQueueExists:       "queue {name} still exists",
	KeyExchangeExists:    "exchange {name} still exists",
	KeyWrongTime:         "time is {now}, want {want}",
	KeyNoUnacked:         "channel {channel} has no delivery {tag} awaiting an ack (unacked tags: {tags})",
	KeyNoUnackedAtAll:    "channel {channel} has no delivery {tag} awaiting an ack (unacked tags: none)",
	KeyConfirmForgotten:  "channel {channel}: publish {tag} is older than the confirms kept (from {floor} on)",
	KeyNotConfirmMode:    "channel {channel} is not in confirm mode: no publish {tag} was confirmed",
	KeyNoConfirm:         "channel {channel}: publish {tag} has no confirm (confirmed up to {highest})",
	KeyWrongConfirm:      "channel {channel}: publish {tag} got {got}, want {want}",
	KeyNoReturn:          "no message was returned on channel {channel}",
	KeyNoMatchingReturn:  "none of the {count} messages returned on channel {channel} matches; the last one has {mismatches}",
}

// ErrorKeys returns every key a script error (or a part of one: KeyMismatch,
// KeyAbsent) can have, sorted: what a catalog that translates them must
// cover.
func ErrorKeys() []string {
	keys := make([]string, 0, len(errorTemplates))
	for k := range errorTemplates {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ErrorTemplate returns the English template of key ("" for a key that is
// not one), with {name} placeholders as documented at the keys.
func ErrorTemplate(key string) string { return errorTemplates[key] }

// ErrExpectation marks a failed expect line: errors.Is(err,
// ErrExpectation) holds for an *Error with KeyExpectationFailed.
var ErrExpectation = errors.New("expectation failed")

// newError returns an error of key with its arguments given as name,
// value pairs.
func newError(key string, nameValues ...string) *Error {
	if _, ok := errorTemplates[key]; !ok || len(nameValues)%2 != 0 {
		panic("script: bad error " + key) // programmer error
	}
	e := &Error{Key: key}
	if len(nameValues) > 0 {
		e.Args = make(map[string]string, len(nameValues)/2)
		for i := 0; i < len(nameValues); i += 2 {
			e.Args[nameValues[i]] = nameValues[i+1]
		}
	}
	return e
}

// fail returns a failed expectation caused by cause, which is an *Error.
func fail(cause error) *Error { return &Error{Key: KeyExpectationFailed, Cause: asError(cause)} }

// wrapIn says which verb an error, an *Error, happened in ("expect
// unacked: ...").
func wrapIn(verb string, cause error) *Error {
	return &Error{Key: KeyInVerb, Args: map[string]string{"verb": verb}, Cause: asError(cause)}
}

// asError returns err as the *Error every script error is.
func asError(err error) *Error {
	var e *Error
	if !errors.As(err, &e) {
		panic("script: not a script error: " + err.Error()) // programmer error
	}
	return e
}

// usageError is a verb used with the wrong number of words: its usage line
// and, apart, the aside the line ends with, if any ("   (rabbitmqctl
// syntax)"), which a catalog may leave out since it is English prose.
func usageError(spec *verbSpec) *Error {
	usage, aside := spec.usage, ""
	if i := strings.Index(usage, "   ("); i >= 0 {
		usage, aside = usage[:i], usage[i:]
	}
	return newError(KeyUsage, "usage", usage, "aside", aside)
}

// quote is how an error shows a value the learner wrote: in double quotes,
// escaped as Go does.
func quote(s string) string { return strconv.Quote(s) }

// Error renders the English text.
func (e *Error) Error() string { return Fill(errorTemplates[e.Key], e.value) }

// Fill writes template with each {name} in it replaced by value(name): how
// the script's errors, the shared session hub's and the playground
// bridge's own render their English text from a key's template, and what
// a page's catalog does in its reader's language.
func Fill(template string, value func(name string) string) string {
	var sb strings.Builder
	t := template
	for {
		i := strings.IndexByte(t, '{')
		if i < 0 {
			sb.WriteString(t)
			return sb.String()
		}
		j := strings.IndexByte(t[i:], '}')
		if j < 0 {
			sb.WriteString(t)
			return sb.String()
		}
		sb.WriteString(t[:i])
		sb.WriteString(value(t[i+1 : i+j]))
		t = t[i+j+1:]
	}
}

// value is the text of one placeholder.
func (e *Error) value(name string) string {
	switch name {
	case "cause":
		if e.Cause != nil {
			return e.Cause.Error()
		}
	case "mismatches":
		parts := make([]string, len(e.Mismatches))
		for i, m := range e.Mismatches {
			got := m.Got
			if m.Absent {
				got = errorTemplates[KeyAbsent]
			}
			parts[i] = (&Error{Key: KeyMismatch, Args: map[string]string{"field": m.Field, "got": got, "want": m.Want}}).Error()
		}
		return strings.Join(parts, ", ")
	}
	return e.Args[name]
}

// Is makes errors.Is(err, ErrExpectation) report a failed expectation.
func (e *Error) Is(target error) bool {
	return target == ErrExpectation && e.Key == KeyExpectationFailed
}
