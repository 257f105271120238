package hub

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode"

	"warren/engine"
)

// Export says what a history's script says about itself: the session's
// name ("" for none), the language of its comments (ExportLangs; any
// other is English) and when it was exported, as the driver writes the
// time (the hub reads no clock; "" leaves it out).
type Export struct {
	Name string
	Lang string
	At   string
}

// Script writes the history as a script of engine/script's history
// verbs, which the playground (and warren run) replays to the session's
// state: the same state hash.
//
//	# Warren: the history of the shared session "Tuesday class"
//	# ... (when, how to open it, what the lines are, the broker's config)
//	history start 0 V1JOUwEB...
//	# 1 @0s Ada: declare queue jobs ttl=30m
//	history entry 1 FQEB...
//	# 2 @0s AMQP connection c7 (pika 1.3.2, 10.0.0.5:50122)
//	history entry 2 AQEv... KAAA...
//	...
//	history hash 32 2d9200697ccb1d30
//	...
//	history hash 40 81c3a5e0d2f4b967
//
// Each entry is a comment saying who did what (the participant's name
// and line, the AMQP connection, the clock, the server) and when in the
// session's engine time, then its command records. An entry that
// carried the session's state hash is followed by a hash line, and the
// last line is the hash of the session's state now, so that a replay
// that differs says after which entry. s is the session the history
// keeps; the history first catches up with it if it has fallen behind,
// which a driver that passes every Ready's entries never lets happen.
func (h *History) Script(s *Session, ex Export) []byte {
	if h.Last() != s.Seq() {
		h.restart(s)
	}
	var w scriptWriter
	w.lang = ex.Lang
	cfg := s.b.Config()
	if ex.Name != "" {
		w.comment("title", "name", strconv.Quote(ex.Name))
	} else {
		w.comment("titleUnnamed")
	}
	if ex.At != "" {
		w.comment("exported", "at", ex.At, "seq", strconv.FormatUint(h.Last(), 10), "mode", string(s.Mode()))
	} else {
		w.comment("upTo", "seq", strconv.FormatUint(h.Last(), 10), "mode", string(s.Mode()))
	}
	w.comment("open")
	w.comment("form")
	w.comment("broker", "seed", strconv.FormatUint(cfg.Seed, 10), "epochMs", strconv.FormatInt(cfg.EpochMs, 10),
		"queues", strconv.Itoa(cfg.MaxQueuesPerVhost), "messages", strconv.FormatInt(cfg.MaxMessagesPerVhost, 10))
	if h.First() > 0 {
		w.comment("cut", "entries", strconv.Itoa(h.lim.MaxEntries), "bytes", strconv.FormatInt(h.lim.MaxBytes, 10),
			"seq", strconv.FormatUint(h.First(), 10))
	}
	w.line("history start ", strconv.FormatUint(h.First(), 10), " ", base64.RawURLEncoding.EncodeToString(h.start.State))
	hashed := h.First()
	for i := range h.entries {
		e := &h.entries[i]
		seq := strconv.FormatUint(e.Seq, 10)
		w.b.WriteString("# " + seq + " @" + engine.FormatDuration(e.NowMs) + " ")
		w.b.WriteString(h.origin(w.lang, e.Origin))
		w.b.WriteByte('\n')
		w.b.WriteString("history entry " + seq)
		for _, rec := range e.Records {
			w.b.WriteByte(' ')
			w.b.WriteString(base64.RawURLEncoding.EncodeToString(rec))
		}
		w.b.WriteByte('\n')
		if e.Hash != "" {
			w.line("history hash ", seq, " ", e.Hash)
			hashed = e.Seq
		}
	}
	if hashed != h.Last() || len(h.entries) == 0 {
		w.line("history hash ", strconv.FormatUint(h.Last(), 10), " ", formatHash(s.hashNow()))
	}
	return []byte(w.b.String())
}

// origin says who or what made an entry, for its comment.
func (h *History) origin(lang string, o Origin) string {
	switch o.Kind {
	case OriginParticipant:
		return exportPhrase(lang, "participant", "name", oneLine(o.Name), "line", oneLine(o.Line))
	case OriginLeave:
		return exportPhrase(lang, "leave", "name", oneLine(o.Name))
	case OriginAMQP:
		if c, ok := h.conns[o.Connection]; ok && (c.Client != "" || c.Address != "") {
			return exportPhrase(lang, "amqpClient", "connection", oneLine(o.Connection), "client", oneLine(c.Client), "address", oneLine(c.Address))
		}
		return exportPhrase(lang, "amqp", "connection", oneLine(o.Connection))
	case OriginClock:
		return exportPhrase(lang, "clock")
	}
	if o.Line == "" {
		return exportPhrase(lang, "serverBare") // a seed closing its channels
	}
	return exportPhrase(lang, "server", "line", oneLine(o.Line))
}

// scriptWriter builds a script.
type scriptWriter struct {
	b    strings.Builder
	lang string
}

func (w *scriptWriter) line(parts ...string) {
	for _, p := range parts {
		w.b.WriteString(p)
	}
	w.b.WriteByte('\n')
}

func (w *scriptWriter) comment(key string, nameValues ...string) {
	w.line("# ", exportPhrase(w.lang, key, nameValues...))
}

// oneLine keeps a value on its comment's line: a value with a line break
// or another control character (a participant's line may hold one; the
// script's lexer takes it for a space) is written quoted, as Go quotes
// it.
func oneLine(v string) string {
	for _, r := range v {
		if !unicode.IsPrint(r) && r != ' ' {
			return strconv.Quote(v)
		}
	}
	return v
}
