package bridge

import "strings"

// Limits. A playground tab must stay responsive whatever is typed into it
// (publish q x count=1000000 makes two million events), so everything the
// bridge returns or keeps is bounded; a result that hit a limit says so.
const (
	// MaxLineBytes bounds one script line.
	MaxLineBytes = 64 << 10
	// MaxLogLines bounds the log, and so a replay. Reset or Replay a
	// shorter history to go on.
	MaxLogLines = 10_000
	// MaxEventsPerResult and MaxOutputBytes bound what one Exec, AdvanceBy,
	// AdvanceTo or Step returns.
	MaxEventsPerResult = 10_000
	MaxOutputBytes     = 1 << 20
	// MaxReplayEvents and MaxReplayOutputBytes bound what one Replay
	// returns, over all its lines.
	MaxReplayEvents      = 100_000
	MaxReplayOutputBytes = 8 << 20
	// MaxMessagesShown bounds the messages a snapshot lists per queue
	// (ready), per channel (unacked) and per delayed exchange (held); the
	// counts beside them are exact.
	MaxMessagesShown = 50
	// MaxTimersShown bounds the timers a snapshot lists and those a Step
	// says fired: a delayed exchange holding 100,000 messages arms a timer
	// for each, and listing them all made every snapshot 8 MB of JSON. The
	// counts beside them (timerCount, firedCount) are exact.
	MaxTimersShown = 100
	// MaxBodyBytes bounds the body text shown per message.
	MaxBodyBytes = 4096
	// MaxTimeMs is the latest virtual time AdvanceBy and AdvanceTo reach:
	// 2^53-1, the largest integer a JavaScript number holds exactly.
	MaxTimeMs = 1<<53 - 1
)

// budget is what is left to return: events and output bytes. One Exec gets
// its own; a Replay shares one across its lines.
type budget struct {
	events      int
	outputBytes int
}

func resultBudget() *budget {
	return &budget{events: MaxEventsPerResult, outputBytes: MaxOutputBytes}
}

func replayBudget() *budget {
	return &budget{events: MaxReplayEvents, outputBytes: MaxReplayOutputBytes}
}

// output returns as much of out as the budget allows, cut after a whole
// line, and whether it cut anything.
func (b *budget) output(out string) (string, bool) {
	if len(out) <= b.outputBytes {
		b.outputBytes -= len(out)
		return out, false
	}
	cut := out[:strings.LastIndexByte(out[:b.outputBytes], '\n')+1]
	b.outputBytes = 0
	return cut, true
}

// event takes one event from the budget; false when none is left.
func (b *budget) event() bool {
	if b.events <= 0 {
		return false
	}
	b.events--
	return true
}
