package hub

// bucket is a token bucket on the wall time the driver passes in: it
// holds up to burst tokens and gains rate a second. Tokens are counted in
// thousandths so that a refill over a few milliseconds is not lost.
type bucket struct {
	rate, burst int
	milli       int64 // tokens × 1000
	lastMs      int64
}

func newBucket(rate, burst int, nowMs int64) bucket {
	return bucket{rate: rate, burst: burst, milli: int64(burst) * 1000, lastMs: nowMs}
}

// take takes a token at nowMs, reporting false when there is none.
func (b *bucket) take(nowMs int64) bool {
	b.refill(nowMs)
	if b.milli < 1000 {
		return false
	}
	b.milli -= 1000
	return true
}

// give returns a token take took, for an input refused after all.
func (b *bucket) give() {
	b.milli = min(b.milli+1000, int64(b.burst)*1000)
}

func (b *bucket) refill(nowMs int64) {
	if nowMs > b.lastMs {
		// rate tokens a second is rate thousandths a millisecond.
		b.milli = min(b.milli+(nowMs-b.lastMs)*int64(b.rate), int64(b.burst)*1000)
		b.lastMs = nowMs
	}
}
