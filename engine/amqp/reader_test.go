package amqp

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var bigFrames = ReaderConfig{FrameMax: 131072}

// TestReaderSplitAnywhere feeds a client's first frames cut at every
// possible point, then at every pair of points, and checks that the frames
// come out the same as from one Feed.
func TestReaderSplitAnywhere(t *testing.T) {
	stream := clientHandshake(t)
	want, err := readAll(stream, bigFrames, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 14 {
		t.Fatalf("read %d frames from the handshake, want 14", len(want))
	}
	for i := range len(stream) + 1 {
		got, err := readAll(stream, bigFrames, []int{i})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("split at %d: %d frames, %v", i, len(got), err)
		}
	}
	for i := 0; i <= len(stream); i += 3 {
		for j := i; j <= len(stream); j++ {
			got, err := readAll(stream, bigFrames, []int{i, j})
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("split at %d and %d: %d frames, %v", i, j, len(got), err)
			}
		}
	}
}

func TestReaderRandomSplits(t *testing.T) {
	stream := clientHandshake(t)
	stream = append(stream, stream[8:]...) // twice, without a second header
	want, err := readAll(stream, bigFrames, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		cuts := randomCuts(rng, len(stream))
		got, err := readAll(stream, bigFrames, cuts)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("cuts %v: %d frames, %v", cuts, len(got), err)
		}
	}
	// One byte at a time.
	every := make([]int, len(stream))
	for i := range every {
		every[i] = i
	}
	if got, err := readAll(stream, bigFrames, every); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("byte at a time: %d frames, %v", len(got), err)
	}
}

func randomCuts(rng *rand.Rand, n int) []int {
	cuts := make([]int, rng.IntN(12))
	for i := range cuts {
		cuts[i] = rng.IntN(n + 1)
	}
	slices.Sort(cuts)
	return cuts
}

// TestReaderOversizedFrameRejectedAtHeader feeds only a frame header that
// claims a 2 GB payload: the reader must refuse it at once, with RabbitMQ's
// text, without allocating anything near that size.
func TestReaderOversizedFrameRejectedAtHeader(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewFrameReader(ReaderConfig{NoProtocolHeader: true, FrameMax: 131072})
	r.Feed([]byte{3, 0, 1, 0x80, 0, 0, 0})
	_, ok, err := r.Next()
	runtime.ReadMemStats(&after)
	if ok {
		t.Fatal("got a frame")
	}
	e := asError(t, err)
	want := "FRAME_ERROR - type 3, all octets = <<>>: {frame_too_large,2147483648,131064}"
	if e.Code != FrameError || e.Text != want || !e.ConnectionError() || e.Channel != 1 {
		t.Fatalf("got %d %q on channel %d", e.Code, e.Text, e.Channel)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<10 {
		t.Fatalf("allocated %d bytes for a refused frame", grew)
	}
	// Sticky: the stream is out of sync.
	r.Feed([]byte{8, 0, 0, 0, 0, 0, 0, 0xce})
	if _, _, err2 := r.Next(); err2 != err {
		t.Fatalf("after an error Next returned %v", err2)
	}
}

// TestReaderFrameMaxBoundary: like RabbitMQ, a payload of exactly frame-max
// bytes is let through (clients often forget the 8 bytes of overhead);
// one byte more is refused.
func TestReaderFrameMaxBoundary(t *testing.T) {
	ok := AppendFrame(nil, FrameBody, 1, make([]byte, 4096))
	if frames, err := readAll(ok, ReaderConfig{NoProtocolHeader: true}, nil); err != nil || len(frames) != 1 {
		t.Fatalf("payload of frame-max: %d frames, %v", len(frames), err)
	}
	tooBig := AppendFrame(nil, FrameBody, 1, make([]byte, 4097))
	_, err := readAll(tooBig, ReaderConfig{NoProtocolHeader: true}, nil)
	if e := asError(t, err); e.Text != "FRAME_ERROR - type 3, all octets = <<>>: {frame_too_large,4097,4088}" {
		t.Fatalf("got %q", e.Text)
	}
	// SetFrameMax raises the limit after tune-ok.
	r := NewFrameReader(ReaderConfig{NoProtocolHeader: true})
	r.SetFrameMax(131072)
	r.Feed(tooBig)
	if _, ok, err := r.Next(); !ok || err != nil {
		t.Fatalf("after SetFrameMax: %t, %v", ok, err)
	}
}

func TestReaderBadFrameEnd(t *testing.T) {
	frame := AppendFrame(nil, FrameMethod, 0, []byte{0, 10, 0, 51})
	frame[len(frame)-1] = 0
	_, err := readAll(frame, ReaderConfig{NoProtocolHeader: true}, nil)
	e := asError(t, err)
	if want := "FRAME_ERROR - type 1, all octets = <<0,10,0,51>>: {invalid_frame_end_marker,0}"; e.Text != want {
		t.Fatalf("got %q, want %q", e.Text, want)
	}
	long := AppendFrame(nil, FrameBody, 1, []byte("a body of more than sixteen bytes"))
	long[len(long)-1] = 'x'
	_, err = readAll(long, ReaderConfig{NoProtocolHeader: true}, nil)
	e = asError(t, err)
	// The tuple would end past column 78, so ~p breaks it (observed,
	// RabbitMQ 3.10.8, for a 26-byte payload of letters and end byte 205:
	// the same text with 205).
	if want := "FRAME_ERROR - type 3, first 16 octets = <<\"a body of more t\">>: {invalid_frame_end_marker,\n" + strings.Repeat(" ", 51) + "120}"; e.Text != want {
		t.Fatalf("got %q, want %q", e.Text, want)
	}
}

func TestReaderProtocolHeader(t *testing.T) {
	r := NewFrameReader(ReaderConfig{})
	for i, c := range ProtocolHeader {
		if ok, err := r.ReadProtocolHeader(); ok || err != nil {
			t.Fatalf("after %d bytes: %t, %v", i, ok, err)
		}
		r.Feed([]byte{c})
	}
	if ok, err := r.ReadProtocolHeader(); !ok || err != nil {
		t.Fatalf("full header: %t, %v", ok, err)
	}
	if ok, err := r.ReadProtocolHeader(); !ok || err != nil {
		t.Fatalf("header already read: %t, %v", ok, err)
	}

	for _, bad := range []string{"AMQP\x00\x00\x09\x00", "AMQP\x01\x01\x00\x09", "GET / HTTP/1.1\r\n"} {
		r := NewFrameReader(ReaderConfig{})
		r.Feed([]byte(bad))
		ok, err := r.ReadProtocolHeader()
		he, isHeaderErr := err.(*ProtocolHeaderError)
		if ok || !isHeaderErr || string(he.Got[:]) != bad[:8] {
			t.Fatalf("%q: %t, %v", bad, ok, err)
		}
		if _, _, err := r.Next(); err != he {
			t.Fatalf("%q: Next after a bad header returned %v", bad, err)
		}
	}
}

func TestReaderNextBeforeHeaderPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	NewFrameReader(ReaderConfig{}).Next()
}

// TestReaderPayloadInPlace: a frame wholly inside one Feed is returned
// without copying, which is what makes the reader cheap on large reads.
func TestReaderPayloadInPlace(t *testing.T) {
	in := AppendFrame(nil, FrameBody, 1, []byte("body"))
	r := NewFrameReader(ReaderConfig{NoProtocolHeader: true})
	r.Feed(in)
	f, ok, err := r.Next()
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if &f.Payload[0] != &in[7] {
		t.Fatal("payload was copied")
	}
	if cap(f.Payload) != len(f.Payload) {
		t.Fatal("payload's capacity reaches into the next frame")
	}
}

// TestReaderFeedWithoutDrain: feeding twice without draining is a misuse,
// but must not lose or reorder input.
func TestReaderFeedWithoutDrain(t *testing.T) {
	stream := clientHandshake(t)
	want, _ := readAll(stream, bigFrames, nil)
	r := NewFrameReader(bigFrames)
	for i := 0; i < len(stream); i += 100 {
		r.Feed(bytes.Clone(stream[i:min(i+100, len(stream))]))
	}
	var got []Frame
	if err := drain(r, &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%d frames, %v", len(got), err)
	}
}

// TestReaderPartialFrameBufferedOnce: a frame that straddles Feeds is
// buffered in memory sized from its (checked) header, not grown
// repeatedly.
func TestReaderPartialFrameBufferedOnce(t *testing.T) {
	frame := AppendFrame(nil, FrameBody, 1, make([]byte, 100000))
	r := NewFrameReader(bigFrames)
	r.Feed([]byte("AMQP\x00\x00\x09\x01"))
	r.ReadProtocolHeader()
	allocs := testing.AllocsPerRun(1, func() {
		r2 := *r
		r2.own = nil
		for i := 0; i < len(frame); i += 1000 {
			r2.Feed(frame[i:min(i+1000, len(frame))])
			if _, ok, err := r2.Next(); err != nil || ok != (i+1000 >= len(frame)) {
				t.Fatalf("at %d: %t, %v", i, ok, err)
			}
		}
	})
	if allocs > 2 {
		t.Fatalf("%v allocations to buffer one frame", allocs)
	}
}
