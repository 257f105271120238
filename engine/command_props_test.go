package engine

import (
	"reflect"
	"testing"
)

// TestCommandPropsBeforePresence decodes a publish record written before
// the command log kept property presence (marker 1, every property but
// cluster-id, no flags): a command log from an older Warren still
// replays, each property present when its value is not zero, as that
// Warren took it.
func TestCommandPropsBeforePresence(t *testing.T) {
	e := encoder{buf: []byte{CommandFormat}}
	e.tag(kindBasicPublish)
	e.channel(ch1)
	e.str("x")
	e.str("k")
	e.boolean(false)
	e.boolean(false)
	e.buf = append(e.buf, propsAllFields)
	e.str("text/plain")
	e.str("")
	e.table(Table{"h": "v"}, 0)
	e.buf = append(e.buf, 2, 0) // delivery mode, priority
	for _, s := range []string{"", "", "5000", "m-1"} {
		e.str(s)
	}
	e.varint(0)
	for _, s := range []string{"", "", "app"} {
		e.str(s)
	}
	e.bytes([]byte("body"))
	got, err := DecodeCommand(e.buf)
	if err != nil {
		t.Fatal(err)
	}
	want := CmdBasicPublish{Channel: ch1, Publish: BasicPublish{Exchange: "x", RoutingKey: "k", Body: []byte("body"),
		Props: &Properties{ContentType: "text/plain", Headers: Table{"h": "v"}, DeliveryMode: 2, Expiration: "5000", MessageID: "m-1", AppID: "app",
			Present: FlagContentType | FlagHeaders | FlagDeliveryMode | FlagExpiration | FlagMessageID | FlagAppID}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n%#v\nwant\n%#v", got, want)
	}
	if f := got.(CmdBasicPublish).Publish.Props.Flags(); f != FlagContentType|FlagHeaders|FlagDeliveryMode|FlagExpiration|FlagMessageID|FlagAppID {
		t.Errorf("flags %#04x", f)
	}
}

// TestCommandPropsKeepPresence checks that a record keeps each property
// present but zero or empty, one at a time and all together.
func TestCommandPropsKeepPresence(t *testing.T) {
	flags := []PropertyFlags{FlagContentType, FlagContentEncoding, FlagHeaders, FlagDeliveryMode, FlagPriority, FlagCorrelationID,
		FlagReplyTo, FlagExpiration, FlagMessageID, FlagTimestamp, FlagType, FlagUserID, FlagAppID, FlagClusterID, AllPropertyFlags}
	for _, f := range flags {
		c := CmdBasicPublish{Channel: ch1, Publish: BasicPublish{Props: &Properties{Present: f}}}
		rec, err := AppendCommand(nil, c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeCommand(rec)
		if err != nil {
			t.Fatalf("%#04x: %v", f, err)
		}
		if g := got.(CmdBasicPublish).Publish.Props.Flags(); g != f {
			t.Errorf("flags %#04x came back as %#04x", f, g)
		}
	}
	bad := []byte{CommandFormat, byte(kindBasicPublish), 1, 1, 0, 0, 0, 0, propsWithFlags, 0x01, 0}
	if _, err := DecodeCommand(bad); err == nil {
		t.Error("a property flag beyond class basic's decoded")
	}
}
