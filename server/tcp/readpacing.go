package tcp

import "time"

// readPacing decides, read by read, whether a TCP connection's next read
// waits for a few kilobytes before it returns: interrupt moderation, as a
// network card does it, for one socket (readwait_linux.go does the
// waiting; elsewhere reads never wait).
//
// Why: amqp091-go, pika and amqplib write each publish and each ack with
// a system call of its own. A server that keeps up with such a client
// reads one or two messages per read, and every read ends with the
// goroutine parking, its thread sleeping and the core going idle, then
// all of it waking again for the next hundred bytes. On the 2-vCPU
// machines of BENCHMARKS.md that round trip costs more CPU than the
// messages it brings. Waiting for a few kilobytes while a client streams
// makes each wake-up carry tens of messages (5bab91e:BENCHMARKS.md, "Reads that wait
// for a streaming client").
//
// When: only once hotReads reads in a row found their bytes in less than
// hotGap (already there, or arriving while the server asked), so a
// connection at 10,000 msgs/s (a message every 100 µs) never waits; and a
// wait never lasts longer than readWait. The bytes waited for follow the
// stream: they double while waits get them and drop to what came in
// readWait when they do not. A client that sends one request and waits
// for the answer (a call, a confirm it waits for, a consumer with
// prefetch 1) is fooled into one wait during which nothing arrives (the
// socket holds as many bytes at its end as at its start), or less than
// minLowat in all; waiting then stops for a cool-down that doubles each time it
// is fooled, up to maxCool reads, so such a client pays readWait a dozen
// times and then once in thousands of requests. A streak whose waits got
// their bytes at least trustedWaits times earns the short cool-down back.
//
// A consumer's acks look like a caller to the stream policy: in
// warren-bench publish-consume (prefetch 500, a 21-byte ack per message)
// its waits brought about 13 acks in readWait, and stopped as a caller's
// do. Nor can a wait gather more than a few dozen segments: a loopback
// sender stopped after 18 to 28 until the reader read (5bab91e:BENCHMARKS.md,
// the same section), which for acks is a few hundred bytes. Acks are
// therefore waited for on another ground (AcksHeld, driver/conn/acks.go): when the
// connection goroutine knows the client still holds many deliveries, the
// next read waits up to readWait for ackLowat bytes, whatever the stream
// policy says, and its outcome teaches that policy nothing.
//
// readPacing is pure: the transport tells it what each read brought and
// when, and asks it what the next read should wait for.
type readPacing struct {
	acks    bool // the next read waits for a consumer's acks (acksHeld)
	lowat   int  // bytes the next read waits for; 0: it does not wait
	quick   int  // reads in a row that found their bytes in less than hotGap
	cool    int  // reads left before waiting may start again
	coolLen int  // length of the last cool-down
	met     int  // waits in this streak that got their bytes
	waits   int  // reads that waited, in all (for tests)
}

const (
	hotGap       = 30 * time.Microsecond
	hotReads     = 4
	readWait     = 200 * time.Microsecond
	startLowat   = 2 << 10
	minLowat     = 512
	maxLowat     = 16 << 10
	minCool      = 8
	maxCool      = 4096
	trustedWaits = 8
	// ackLowat is what a wait for acks wants: some fifty of a 21-byte
	// basic.ack. The loopback stall above usually ends it at readWait
	// with a few dozen.
	ackLowat = 1 << 10
)

// waitFor returns the bytes the next read, into a buffer of room bytes,
// should wait for (at most readWait); 0: none, it returns with whatever
// arrives first.
func (p *readPacing) waitFor(room int) int {
	if p.acks {
		return min(ackLowat, room)
	}
	return min(p.lowat, room)
}

// acksHeld says the connection's last request was acks from a client that
// still holds many deliveries (driver/conn/acks.go): the next read waits for more of
// them.
func (p *readPacing) acksHeld() { p.acks = true }

// plainRead records a read that did not wait and took took to bring its
// bytes: how long the client kept the server waiting. A read that should
// have waited but did not (too many other connections were waiting, see
// readwait_linux.go) changes nothing.
func (p *readPacing) plainRead(took time.Duration) {
	p.acks = false // a wait for acks that did not happen
	switch {
	case p.lowat > 0:
	case p.cool > 0:
		p.cool--
	case took >= hotGap:
		p.quick = 0
	default:
		p.quick++
		if p.quick >= hotReads {
			p.lowat, p.quick = startLowat, 0
		}
	}
}

// waited records a read that waited for want bytes (waitFor's answer),
// found before of them already there when it began, and brought n.
func (p *readPacing) waited(want, before, n int) {
	p.waits++
	if p.acks {
		// A wait for acks: the client holds deliveries and answers
		// nothing, so what it brought says nothing of a stream or a
		// caller.
		p.acks = false
		return
	}
	switch {
	case n >= want:
		p.met++
		if want == p.lowat {
			p.lowat = min(2*p.lowat, maxLowat)
		}
	case n > before && n >= minLowat:
		// The stream slowed: wait for about what it brings in readWait.
		p.lowat = floorPow2(n)
	default:
		// Nothing came while it waited, or hardly anything: the client
		// waits for an answer.
		p.lowat = 0
		if p.met >= trustedWaits {
			p.coolLen = minCool
		} else {
			p.coolLen = min(max(2*p.coolLen, minCool), maxCool)
		}
		p.cool, p.met = p.coolLen, 0
	}
}

// floorPow2 rounds n >= 1 down to a power of two, so the socket's
// SO_RCVLOWAT changes seldom.
func floorPow2(n int) int {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}
