package script

import (
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"warren/engine"
)

// A shared session's history (issue 11) replays here exactly: not by
// running its participants' lines again, which each ran in a script
// context of their own and beside AMQP clients and clock moves that have
// no line, but by applying the engine command records the session's
// broker logged, in order, to the broker state it started from:
//
//	history start SEQ STATE        the session's broker after entry SEQ (0: as it was created)
//	history entry SEQ [RECORD ...] entry SEQ's command records, applied as the session applied them
//	history hash SEQ HASH          the state hash after entry SEQ must be HASH
//
// STATE is engine.Broker.Save's bytes and each RECORD one
// engine.AppendCommand record, both in unpadded base64url (RFC 4648 §5,
// no "=", so that a word is never taken for an option). HASH is
// StateHash's, 16 hexadecimal digits: the hash the session's pages
// compare. The verbs leave the broker as they found it between records
// (no Settle: the session's driver may have left a backlog's batches for
// later), and the runner drops the records the loaded broker logs. The
// server writes the form (engine/hub's History.Script), with a comment
// before each entry saying who did what.

// historyReplay is what a runner replaying a history knows.
type historyReplay struct {
	seq uint64 // the last entry applied
	// names are the broker's connections' names (from the state, then
	// from each connection.opened), to name their channels in traces
	// as the session's pages name them.
	names map[engine.ConnID]string
}

func init() {
	register(&verbSpec{name: "history start", minArgs: 2, maxArgs: 2, exact: true,
		usage: "history start SEQ STATE   (replace the broker with a shared session's, as it was after entry SEQ: an exported history's first line)", run: runHistoryStart})
	register(&verbSpec{name: "history entry", minArgs: 1, maxArgs: -1, exact: true,
		usage: "history entry SEQ [RECORD ...]   (apply entry SEQ of a shared session's log: its engine command records, exactly)", run: runHistoryEntry})
	register(&verbSpec{name: "history hash", minArgs: 2, maxArgs: 2, exact: true,
		usage: "history hash SEQ HASH   (check that the state hash after entry SEQ is the session's)", run: runHistoryHash})
}

// b64 is the encoding of STATE and RECORD words.
var b64 = base64.RawURLEncoding

func runHistoryStart(r *Runner, c *Command) error {
	if !r.ownsBroker {
		return newError(KeyHistoryShared, "verb", c.Verb)
	}
	seq, err := parseEntrySeq(c.Args[0])
	if err != nil {
		return err
	}
	state, err := b64.DecodeString(c.Args[1])
	if err != nil {
		return newError(KeyHistoryStateBase64, "offset", badOffset(err))
	}
	b, err := engine.Load(state)
	if err != nil {
		return newError(KeyHistoryBadState, "detail", err.Error())
	}
	r.B = b
	// Nothing of the runner's old broker holds on this one: its
	// channels and connections, the last delivery and error, what its
	// publishers were told.
	clear(r.chans)
	clear(r.conns)
	r.lastErr, r.lineErr, r.lastEvents, r.lastTag, r.pubs, r.printedAt = nil, nil, r.lastEvents[:0], 0, nil, 0
	h := &historyReplay{seq: seq, names: map[engine.ConnID]string{}}
	for _, v := range b.SnapshotLimit(1).Vhosts {
		for _, conn := range v.Connections {
			h.names[conn.ID] = conn.Name
		}
	}
	r.history = h
	return nil
}

func runHistoryEntry(r *Runner, c *Command) error {
	h, err := r.replaying(c.Verb)
	if err != nil {
		return err
	}
	seq, err := parseEntrySeq(c.Args[0])
	if err != nil {
		return err
	}
	if seq != h.seq+1 {
		return newError(KeyHistoryGap, "seq", c.Args[0], "last", strconv.FormatUint(h.seq, 10))
	}
	// Every record decodes before any applies: a damaged line changes
	// nothing.
	cmds := make([]engine.Command, len(c.Args)-1)
	for i, word := range c.Args[1:] {
		rec, err := b64.DecodeString(word)
		if err != nil {
			return newError(KeyHistoryRecordBase64, "seq", c.Args[0], "n", strconv.Itoa(i+1), "offset", badOffset(err))
		}
		if cmds[i], err = engine.DecodeCommand(rec); err != nil {
			return newError(KeyHistoryBadRecord, "seq", c.Args[0], "n", strconv.Itoa(i+1), "detail", err.Error())
		}
	}
	// A record's AMQP exception is part of the history (the session's
	// client got it too): the line shows the last, as a line shows its
	// command's.
	var amqpErr error
	for _, cmd := range cmds {
		var e *engine.Error
		if res := r.B.Apply(cmd); errors.As(res.Err, &e) && e != nil {
			amqpErr = e
		}
	}
	h.seq = seq
	return amqpErr
}

func runHistoryHash(r *Runner, c *Command) error {
	h, err := r.replaying(c.Verb)
	if err != nil {
		return err
	}
	seq, err := parseEntrySeq(c.Args[0])
	if err != nil {
		return err
	}
	if seq != h.seq {
		return newError(KeyHistoryHashSeq, "seq", c.Args[0], "last", strconv.FormatUint(h.seq, 10))
	}
	want, ok := parseStateHash(c.Args[1])
	if !ok {
		return newError(KeyHistoryBadHash, "value", quote(c.Args[1]))
	}
	if got := StateHash(r.B); got != want {
		return newError(KeyHistoryDiverged, "seq", c.Args[0], "got", FormatStateHash(got), "want", FormatStateHash(want))
	}
	return nil
}

// RefusedOnShared returns the error a runner over a broker others share
// (NewOn) gives c, or nil when it runs it: the history verbs replace or
// replay into a broker, which only a runner of its own may. A driver that
// checks lines before running any (a shared session's seed) asks it.
func RefusedOnShared(c *Command) error {
	if c != nil && strings.HasPrefix(c.Verb, "history ") {
		return newError(KeyHistoryShared, "verb", c.Verb)
	}
	return nil
}

// replaying returns the history being replayed, or the error verb gets
// without one.
func (r *Runner) replaying(verb string) (*historyReplay, error) {
	switch {
	case !r.ownsBroker:
		return nil, newError(KeyHistoryShared, "verb", verb)
	case r.history == nil:
		return nil, newError(KeyHistoryNotStarted, "verb", verb)
	}
	return r.history, nil
}

// dropRecords drops the command records of a history's broker, which
// logs them as the session's did (its Config.RecordCommands is part of
// its state and of its hash) for no one to read. Other runners' records
// are their driver's.
func (r *Runner) dropRecords() {
	if r.history != nil {
		r.B.DrainCommands(func([]byte) {})
	}
}

// HistorySeq returns the last entry of a shared session's history the
// runner applied, and false when it replays none.
func (r *Runner) HistorySeq() (uint64, bool) {
	if r.history == nil {
		return 0, false
	}
	return r.history.seq, true
}

// noteEvent learns the name of a connection the history opened.
func (h *historyReplay) noteEvent(e engine.Event) {
	if h != nil && e.Kind == engine.EvConnectionOpened {
		h.names[e.Channel.Conn] = e.Name
	}
}

// channelName names a channel of the history's broker as the session's
// pages do: CONN for channel 1 of connection CONN, CONN.N otherwise.
func (h *historyReplay) channelName(id engine.ChannelID) (string, bool) {
	if h == nil {
		return "", false
	}
	name, ok := h.names[id.Conn]
	if !ok {
		return "", false
	}
	if id.Num == 1 {
		return name, true
	}
	return name + "." + strconv.Itoa(int(id.Num)), true
}

func parseEntrySeq(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, newError(KeyHistoryBadSeq, "value", quote(s))
	}
	return n, nil
}

// badOffset is where a base64 word went wrong.
func badOffset(err error) string {
	var c base64.CorruptInputError
	if errors.As(err, &c) {
		return strconv.FormatInt(int64(c), 10)
	}
	return "0"
}

// StateHash returns a broker's state hash: FNV-64a of its Save bytes, as
// a shared session's hub and pages compute it (engine/hub's HashState).
// Like Save, it needs the broker's events and command records drained.
func StateHash(b *engine.Broker) uint64 {
	h := fnv.New64a()
	h.Write(b.Save())
	return h.Sum64()
}

// FormatStateHash writes a state hash as 16 hexadecimal digits.
func FormatStateHash(h uint64) string { return fmt.Sprintf("%016x", h) }

func parseStateHash(s string) (uint64, bool) {
	if len(s) != 16 {
		return 0, false
	}
	h, err := strconv.ParseUint(s, 16, 64)
	return h, err == nil
}
