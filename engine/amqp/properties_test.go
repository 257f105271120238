package amqp

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestPropertiesRoundTripAll(t *testing.T) {
	in := Properties{
		ContentType: "application/json", ContentEncoding: "gzip",
		Headers:      Table{"x-death": []any{Table{"count": int64(1), "time": Timestamp(1700000000)}}},
		DeliveryMode: 2, Priority: 9, CorrelationID: "corr", ReplyTo: "rt", Expiration: "60000",
		MessageID: "mid", Timestamp: 1700000000, Type: "typ", UserID: "guest", AppID: "app", ClusterID: "c1",
	}
	payload, err := AppendContentHeader(nil, ClassBasic, 42, in)
	if err != nil {
		t.Fatal(err)
	}
	class, size, out, err := DecodeContentHeader(payload)
	if err != nil {
		t.Fatal(err)
	}
	in.Flags = 0xfffc // every property present
	if class != ClassBasic || size != 42 || !reflect.DeepEqual(out, in) {
		t.Fatalf("got class %d size %d\n%+v\nwant\n%+v", class, size, out, in)
	}
}

// TestPropertiesGolden pins the header payload for two properties, by hand:
// class 60, weight 0, body size, flags (delivery-mode 0x1000 | expiration
// 0x0100), then the properties in flag order.
func TestPropertiesGolden(t *testing.T) {
	got, err := AppendContentHeader(nil, ClassBasic, 5, Properties{DeliveryMode: 2, Expiration: "100"})
	if err != nil {
		t.Fatal(err)
	}
	want := frameBytes(
		[]byte{0, 60, 0, 0},
		[]byte{0, 0, 0, 0, 0, 0, 0, 5},
		[]byte{0x11, 0x00},
		[]byte{2},
		[]byte{3, '1', '0', '0'})
	if !bytes.Equal(got, want) {
		t.Fatalf("got % x\nwant % x", got, want)
	}
}

// TestPropertiesPresenceKept: an expiration that is present but empty must
// be told from an absent one, because RabbitMQ rejects the former.
func TestPropertiesPresenceKept(t *testing.T) {
	present, _ := AppendContentHeader(nil, ClassBasic, 0, Properties{Flags: FlagExpiration})
	_, _, p, err := DecodeContentHeader(present)
	if err != nil || !p.Has(FlagExpiration) || p.Expiration != "" {
		t.Fatalf("present empty expiration: %+v, %v", p, err)
	}
	again, _ := AppendContentHeader(nil, ClassBasic, 0, p)
	if !bytes.Equal(again, present) {
		t.Fatalf("re-encoded % x, want % x", again, present)
	}
	absent, _ := AppendContentHeader(nil, ClassBasic, 0, Properties{})
	_, _, p, _ = DecodeContentHeader(absent)
	if p.Has(FlagExpiration) || p.Flags != 0 {
		t.Fatalf("absent expiration: %+v", p)
	}
}

func TestPropertiesMalformed(t *testing.T) {
	head := []byte{0, 60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	cases := map[string]struct {
		props []byte
		text  string
	}{
		// The continuation bit is ignored, so a second flag word is
		// bytes after the last property (RabbitMQ 3.10.8's decoder
		// crashes on them: 541 INTERNAL_ERROR).
		"continuation flag and a second word": {[]byte{0x00, 0x01, 0, 0}, "FRAME_ERROR - cannot decode <<0,1,0,0>>"},
		"truncated shortstr":                  {[]byte{0x80, 0x00, 5, 'a'}, "FRAME_ERROR - cannot decode <<128,0,5,97>>"},
		"trailing bytes":                      {[]byte{0x00, 0x00, 1}, "FRAME_ERROR - cannot decode <<0,0,1>>"},
		"bad headers table":                   {[]byte{0x20, 0x00, 0, 0, 0, 3, 1, 'k', 'Q'}, "FRAME_ERROR - cannot decode content header: unknown field type 'Q'"},
		"truncated flag word":                 {[]byte{0x80}, "FRAME_ERROR - cannot decode <<128>>"},
		"timestamp cut short":                 {[]byte{0x00, 0x40, 0, 0, 0}, "FRAME_ERROR - cannot decode <<0,64,0,0,0>>"},
		"headers claims 4 GiB":                {[]byte{0x20, 0x00, 0xff, 0xff, 0xff, 0xff}, "FRAME_ERROR - cannot decode <<32,0,255,255,255,255>>"},
	}
	for name, c := range cases {
		_, _, _, err := DecodeContentHeader(append(bytes.Clone(head), c.props...))
		if e := asError(t, err); e.Code != FrameError || e.Text != c.text {
			t.Errorf("%s: got %q, want %q", name, e.Text, c.text)
		}
	}
	if _, _, _, err := DecodeContentHeader([]byte{0, 60, 0}); err == nil {
		t.Error("a 3-byte header decoded")
	}
	// The two low flag bits name no property and are ignored, as RabbitMQ
	// 3.10.8 ignores them (observed: a publish whose flags are 0x0001 or
	// 0x0002 is accepted, as if they were 0).
	for _, flags := range [][]byte{{0x00, 0x01}, {0x00, 0x02}, {0x80, 0x03, 1, 't'}} {
		_, _, p, err := DecodeContentHeader(append(bytes.Clone(head), flags...))
		if err != nil || p.Flags&0x0003 != 0 {
			t.Errorf("flags % x: %+v, %v", flags, p, err)
		}
	}
	// No flag word at all is malformed (RabbitMQ 3.10.8: 541
	// INTERNAL_ERROR, its channel crashing on the header).
	if _, _, _, err := DecodeContentHeader(head); err == nil || asError(t, err).Text != "FRAME_ERROR - cannot decode <<>>" {
		t.Errorf("header without flags: %v", err)
	}
}

func TestPropertiesEncodeError(t *testing.T) {
	if _, err := AppendContentHeader(nil, ClassBasic, 0, Properties{ReplyTo: strings.Repeat("r", 256)}); err == nil ||
		!strings.Contains(err.Error(), "reply-to") {
		t.Fatalf("err = %v", err)
	}
	if _, err := AppendContentHeaderFrame([]byte("x"), 1, ClassBasic, 0, Properties{Headers: Table{"k": uint64(1)}}); err == nil {
		t.Fatal("an unencodable header encoded")
	}
}
