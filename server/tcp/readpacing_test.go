package tcp

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestReadPacing walks the policy through the clients it was written for.
// Each step is one read: "quick" (its bytes came in less than hotGap),
// "slow" (they took longer), or "waited N [had B]" (it waited for what
// waitFor said and brought N bytes, B of which were there before it
// waited); after each, the bytes the next read waits for (into a 64 KiB
// buffer) must be as listed.
func TestReadPacing(t *testing.T) {
	cases := []struct {
		name  string
		steps []string
		want  []int
	}{{
		name:  "a client at 10,000 msgs/s never makes a read wait",
		steps: rep(50, "slow"),
		want:  make([]int, 50),
	}, {
		name:  "quick reads start waiting after hotReads in a row, and a slow one starts the count again",
		steps: []string{"quick", "quick", "quick", "slow", "quick", "quick", "quick", "quick"},
		want:  []int{0, 0, 0, 0, 0, 0, 0, startLowat},
	}, {
		name:  "a stream that keeps up doubles what a read waits for, up to maxLowat",
		steps: concat(rep(hotReads, "quick"), []string{"waited 2048", "waited 4096", "waited 9000", "waited 16384", "waited 16384"}),
		want:  []int{0, 0, 0, startLowat, 4096, 8192, 16384, 16384, 16384},
	}, {
		name:  "a stream that slows waits for what came in readWait, rounded down to a power of two",
		steps: concat(rep(hotReads, "quick"), []string{"waited 2048", "waited 1500", "waited 1024"}),
		want:  []int{0, 0, 0, startLowat, 4096, 1024, 2048},
	}, {
		name: "a client that waits for each answer stops the waiting at once, for a cool-down that doubles",
		steps: concat(rep(hotReads, "quick"), []string{"waited 90"}, rep(minCool, "quick"),
			rep(hotReads, "quick"), []string{"waited 0"}, rep(2*minCool+hotReads-1, "quick"), []string{"quick"}),
		want: concat(
			[]int{0, 0, 0, startLowat, 0}, make([]int, minCool),
			[]int{0, 0, 0, startLowat, 0}, make([]int, 2*minCool+hotReads-1), []int{startLowat}),
	}, {
		name: "a streak of waits that got their bytes earns the short cool-down back",
		steps: concat(rep(hotReads, "quick"), []string{"waited 0"}, rep(minCool+hotReads, "quick"),
			rep(trustedWaits, "waited 16384"), []string{"waited 0"}, rep(minCool+hotReads, "quick")),
		want: concat(
			[]int{0, 0, 0, startLowat, 0}, make([]int, minCool+hotReads-1), []int{startLowat},
			[]int{4096, 8192}, rep16(trustedWaits-2), []int{0}, make([]int, minCool+hotReads-1), []int{startLowat}),
	}, {
		name:  "a caller with large requests: the first wait is met at once, the next brings nothing new, and waiting stops",
		steps: concat(rep(hotReads, "quick"), []string{"waited 3000 had 3000", "waited 3000 had 3000"}, rep(minCool, "quick")),
		want:  concat([]int{0, 0, 0, startLowat, 4096, 0}, make([]int, minCool)),
	}, {
		name:  "the cool-down stops doubling at maxCool",
		steps: fooled(12),
		want:  nil, // checked below
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p readPacing
			var got []int
			for _, s := range tc.steps {
				apply(&p, s)
				got = append(got, p.waitFor(64<<10))
			}
			if tc.want == nil {
				if p.coolLen != maxCool {
					t.Fatalf("cool-down after being fooled 12 times: %d reads, want %d", p.coolLen, maxCool)
				}
				return
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("waitFor after each read:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestReadPacingSmallBuffer: a read never waits for more than its buffer
// holds, and filling the buffer counts as getting the bytes without
// raising what later reads wait for.
func TestReadPacingSmallBuffer(t *testing.T) {
	var p readPacing
	for range hotReads {
		p.plainRead(time.Microsecond)
	}
	p.lowat = maxLowat
	if got := p.waitFor(4096); got != 4096 {
		t.Fatalf("waitFor(4096) with lowat %d = %d", maxLowat, got)
	}
	p.lowat = 8192
	p.waited(4096, 0, 4096)
	if p.lowat != 8192 || p.met != 1 {
		t.Fatalf("after a full 4 KiB buffer: lowat %d met %d, want 8192 and 1", p.lowat, p.met)
	}
}

// concat joins steps, or expected values, in order.
func concat[T any](parts ...[]T) []T {
	var all []T
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// rep16 is n steps at maxLowat.
func rep16(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = maxLowat
	}
	return s
}

// fooled is the steps of a client that waits for each answer being
// mistaken for a stream n times, each after its cool-down.
func fooled(n int) []string {
	var s []string
	cool := 0
	for range n {
		for range cool + hotReads {
			s = append(s, "quick")
		}
		s = append(s, "waited 100")
		cool = min(max(2*cool, minCool), maxCool)
	}
	return s
}

func apply(p *readPacing, step string) {
	switch {
	case step == "quick":
		p.plainRead(time.Microsecond)
	case step == "slow":
		p.plainRead(100 * time.Microsecond)
	case strings.HasPrefix(step, "waited "):
		// "waited N": N bytes, all arrived during the wait; "waited N
		// had B": B of them were there when it began.
		var n, before int
		fmt.Sscanf(step, "waited %d had %d", &n, &before)
		p.waited(p.waitFor(64<<10), before, n)
	default:
		panic(step)
	}
}

// TestReadPacingAckWaits: once told that acks come from a client with
// deliveries in hand (acksHeld), the next read waits for ackLowat bytes
// whatever the stream policy says, a caller's cool-down included, and
// what that wait brings, or its not happening, leaves the policy as it
// was.
func TestReadPacingAckWaits(t *testing.T) {
	var p readPacing
	for _, s := range concat(rep(hotReads, "quick"), []string{"waited 90"}) {
		apply(&p, s)
	}
	if p.waitFor(64<<10) != 0 || p.cool != minCool {
		t.Fatalf("a caller: waitFor %d, cool %d", p.waitFor(64<<10), p.cool)
	}
	before := p
	p.acksHeld()
	if got := p.waitFor(64 << 10); got != ackLowat {
		t.Fatalf("after acksHeld in a cool-down: waitFor %d, want %d", got, ackLowat)
	}
	if got := p.waitFor(512); got != 512 {
		t.Fatalf("into a 512-byte buffer: waitFor %d", got)
	}
	p.waited(ackLowat, 0, 300)
	if after := p; after.waits != before.waits+1 || after.cool != before.cool || after.coolLen != before.coolLen || after.lowat != 0 || after.acks {
		t.Fatalf("an ack wait changed the policy: %+v, before %+v", after, before)
	}
	if got := p.waitFor(64 << 10); got != 0 {
		t.Fatalf("the read after an ack wait waits for %d", got)
	}

	// An ack wait that did not happen (no thread free to wait) is
	// forgotten with the plain read that took its place.
	p.acksHeld()
	p.plainRead(time.Microsecond)
	if p.acks || p.waitFor(64<<10) != 0 || p.cool != before.cool-1 {
		t.Fatalf("after a plain read in place of an ack wait: acks %v, waitFor %d, cool %d", p.acks, p.waitFor(64<<10), p.cool)
	}

	// In a stream, an ack wait neither doubles nor lowers what the
	// stream's reads wait for.
	s := readPacing{lowat: 4096}
	s.acksHeld()
	s.waited(s.waitFor(64<<10), 0, ackLowat)
	if s.lowat != 4096 || s.met != 0 {
		t.Fatalf("a stream after an ack wait: lowat %d, met %d", s.lowat, s.met)
	}
}

// rep is n copies of step.
func rep(n int, step string) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = step
	}
	return s
}
