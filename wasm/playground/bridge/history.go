package bridge

import (
	"strings"

	"warren/engine/hub"
	"warren/engine/script"
)

// A shared session's exported history (engine/hub's History.Script) is a
// script of engine/script's history verbs: opened in the page, its lines
// run as any others, so that they enter the log, and rewinding, share
// links and restoring after the engine died replay them too. Their words
// are base64 state and command records, so a history line may be longer
// than a typed one, up to MaxHistoryLineBytes. StateHash then says the
// page's state hash, which is the session's when the replay got through
// (its history hash lines check it on the way).

// MaxHistoryLineBytes bounds one history line: the state a history
// starts from (a session's whole broker), or an entry's records (a
// publish count=N line makes N). A session's history in the server's
// default bounds fits.
const MaxHistoryLineBytes = 32 << 20

// lineLimit is the longest line may be: MaxHistoryLineBytes for a
// history line, MaxLineBytes for any other.
func lineLimit(line string) int {
	if strings.HasPrefix(strings.TrimLeft(line, " \t"), "history ") {
		return MaxHistoryLineBytes
	}
	return MaxLineBytes
}

// StateHash is the page's state hash (hub.HashState's: FNV-64a of the
// broker's Save bytes), 16 hexadecimal digits. History, when the page
// replays a shared session's history, is the last entry of it applied:
// with no line run since, Hash is the session's after that entry. Live
// is true on a page that replicates a shared session, whose hash is its
// replica's after entry Seq.
type StateHash struct {
	Hash    string  `json:"hash"`
	History *uint64 `json:"history,omitempty"`
	Live    bool    `json:"live,omitempty"`
	Seq     uint64  `json:"seq,omitempty"`
}

// Hash returns the page's state hash.
func (s *Session) Hash() StateHash {
	if s.live != nil {
		return StateHash{Hash: hub.FormatHash(s.live.rep.Hash()), Live: true, Seq: s.live.rep.Seq}
	}
	out := StateHash{Hash: script.FormatStateHash(script.StateHash(s.r.B))}
	if seq, ok := s.r.HistorySeq(); ok {
		out.History = &seq
	}
	return out
}
