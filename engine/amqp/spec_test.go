package amqp

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The spec, as the tests read it: independently of server/cmd/amqpgen, so that
// the generator is checked rather than trusted.
type testSpec struct {
	Domains   [][2]string `json:"domains"`
	Constants []struct {
		Name  string `json:"name"`
		Value int    `json:"value"`
		Class string `json:"class"`
	} `json:"constants"`
	Classes []struct {
		ID      uint16 `json:"id"`
		Name    string `json:"name"`
		Methods []struct {
			ID          uint16 `json:"id"`
			Name        string `json:"name"`
			Synchronous bool   `json:"synchronous"`
			Content     bool   `json:"content"`
			Arguments   []struct {
				Name   string `json:"name"`
				Type   string `json:"type"`
				Domain string `json:"domain"`
			} `json:"arguments"`
		} `json:"methods"`
		Properties []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"properties"`
	} `json:"classes"`
}

func loadSpec(t *testing.T) *testSpec {
	t.Helper()
	raw, err := os.ReadFile("spec/amqp-rabbitmq-0.9.1.json")
	if err != nil {
		t.Fatal(err)
	}
	var s testSpec
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// goName is the naming contract: "auto-delete" is AutoDelete, "id" is ID,
// "nowait" is NoWait, and close's class-id/method-id are FailingClassID
// and FailingMethodID (ClassID() and MethodID() are the method's own).
func goName(specName string) string {
	switch specName {
	case "class-id":
		return "FailingClassID"
	case "method-id":
		return "FailingMethodID"
	}
	var sb strings.Builder
	for _, w := range strings.Split(specName, "-") {
		switch w {
		case "id":
			sb.WriteString("ID")
		case "nowait":
			sb.WriteString("NoWait")
		default:
			sb.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return sb.String()
}

// TestEveryMethodRoundTrips encodes every method of the spec by hand with
// non-zero values (two bit patterns, so that every bit position is seen
// both set and clear), decodes it, checks each named field, and checks that
// AppendArgs gives back the same bytes.
func TestEveryMethodRoundTrips(t *testing.T) {
	s := loadSpec(t)
	domains := map[string]string{}
	for _, d := range s.Domains {
		domains[d[0]] = d[1]
	}
	seen := 0
	for _, c := range s.Classes {
		for _, m := range c.Methods {
			seen++
			for pattern := range 2 {
				full := c.Name + "." + m.Name
				var args []byte
				want := map[string]any{}
				bitAt, bitCount := -1, 0
				for i, a := range m.Arguments {
					typ := a.Type
					if typ == "" {
						typ = domains[a.Domain]
					}
					if typ != "bit" {
						bitAt = -1
					}
					var v any
					switch typ {
					case "bit":
						if bitAt < 0 || bitCount == 8 {
							args = append(args, 0)
							bitAt, bitCount = len(args)-1, 0
						}
						set := (bitCount+pattern)%2 == 0
						if set {
							args[bitAt] |= 1 << bitCount
						}
						bitCount++
						v = set
					case "octet":
						v = uint8(0x11 + i + pattern)
						args = append(args, v.(uint8))
					case "short":
						v = uint16(0x1100 + i + pattern)
						args = binary.BigEndian.AppendUint16(args, v.(uint16))
					case "long":
						v = uint32(0x11223300 + i + pattern)
						args = binary.BigEndian.AppendUint32(args, v.(uint32))
					case "longlong":
						v = uint64(0x1122334455667700 + i + pattern)
						args = binary.BigEndian.AppendUint64(args, v.(uint64))
					case "timestamp":
						v = Timestamp(1700000000 + i + pattern)
						args = binary.BigEndian.AppendUint64(args, uint64(v.(Timestamp)))
					case "shortstr":
						str := a.Name + strings.Repeat("!", pattern)
						v = str
						args = append(append(args, byte(len(str))), str...)
					case "longstr":
						str := "long " + a.Name + strings.Repeat("\x00", pattern)
						v = str
						args = binary.BigEndian.AppendUint32(args, uint32(len(str)))
						args = append(args, str...)
					case "table":
						// {"k": S "v", "n": I 42+pattern}, keys in sorted order.
						v = Table{"k": "v", "n": int32(42 + pattern)}
						tbl := []byte{1, 'k', 'S', 0, 0, 0, 1, 'v', 1, 'n', 'I', 0, 0, 0, byte(42 + pattern)}
						args = binary.BigEndian.AppendUint32(args, uint32(len(tbl)))
						args = append(args, tbl...)
					default:
						t.Fatalf("%s: argument %s has type %q", full, a.Name, typ)
					}
					want[goName(a.Name)] = v
				}
				payload := binary.BigEndian.AppendUint16(nil, c.ID)
				payload = binary.BigEndian.AppendUint16(payload, m.ID)
				payload = append(payload, args...)

				got, err := DecodeMethod(payload)
				if err != nil {
					t.Fatalf("%s: %v", full, err)
				}
				if got.ClassID() != c.ID || got.MethodID() != m.ID || got.Name() != full ||
					got.Synchronous() != m.Synchronous || got.HasContent() != m.Content {
					t.Errorf("%s: ids %d/%d, name %q, synchronous %t, content %t", full,
						got.ClassID(), got.MethodID(), got.Name(), got.Synchronous(), got.HasContent())
				}
				if name, wantName := reflect.TypeOf(got).Elem().Name(), goName(c.Name)+goName(m.Name); name != wantName {
					t.Errorf("%s: struct %s, want %s", full, name, wantName)
				}
				rv := reflect.ValueOf(got).Elem()
				if rv.NumField() != len(m.Arguments) {
					t.Errorf("%s: %d fields, spec has %d arguments", full, rv.NumField(), len(m.Arguments))
				}
				for name, w := range want {
					f := rv.FieldByName(name)
					if !f.IsValid() {
						t.Errorf("%s: no field %s", full, name)
						continue
					}
					if !reflect.DeepEqual(f.Interface(), w) {
						t.Errorf("%s.%s = %#v, want %#v", full, name, f.Interface(), w)
					}
				}
				enc, err := got.AppendArgs(nil)
				if err != nil {
					t.Fatalf("%s: %v", full, err)
				}
				if !bytes.Equal(enc, args) {
					t.Errorf("%s: re-encoded\n% x\nwant\n% x", full, enc, args)
				}
			}
		}
	}
	if seen != len(methodTable) {
		t.Errorf("spec has %d methods, dispatch table %d", seen, len(methodTable))
	}
}

// TestConstantsMatchSpec checks the generated constants against the JSON.
func TestConstantsMatchSpec(t *testing.T) {
	s := loadSpec(t)
	byName := map[string]int{
		"FRAME-METHOD": FrameMethod, "FRAME-HEADER": FrameHeader, "FRAME-BODY": FrameBody,
		"FRAME-HEARTBEAT": FrameHeartbeat, "FRAME-MIN-SIZE": FrameMinSize, "FRAME-END": FrameEnd,
	}
	for _, c := range s.Constants {
		if v, ok := byName[c.Name]; ok {
			if v != c.Value {
				t.Errorf("%s = %d, spec %d", c.Name, v, c.Value)
			}
			continue
		}
		code := uint16(c.Value)
		if got := ReplyName(code); got != strings.ReplaceAll(c.Name, "-", "_") {
			t.Errorf("ReplyName(%d) = %q, spec %s", c.Value, got, c.Name)
		}
		if IsHardError(code) != (c.Class == "hard-error") {
			t.Errorf("IsHardError(%d) = %t, spec class %q", c.Value, IsHardError(code), c.Class)
		}
	}
}

// TestPropertiesMatchSpec checks Properties' flag order against the spec's
// property list for class basic: the first property is the top bit.
func TestPropertiesMatchSpec(t *testing.T) {
	s := loadSpec(t)
	flags := map[string]uint16{
		"content-type": FlagContentType, "content-encoding": FlagContentEncoding, "headers": FlagHeaders,
		"delivery-mode": FlagDeliveryMode, "priority": FlagPriority, "correlation-id": FlagCorrelationID,
		"reply-to": FlagReplyTo, "expiration": FlagExpiration, "message-id": FlagMessageID,
		"timestamp": FlagTimestamp, "type": FlagType, "user-id": FlagUserID, "app-id": FlagAppID,
		"cluster-id": FlagClusterID,
	}
	for _, c := range s.Classes {
		if c.Name != "basic" {
			if len(c.Properties) != 0 {
				t.Errorf("class %s has properties; only basic's are decoded", c.Name)
			}
			continue
		}
		if len(c.Properties) != len(flags) {
			t.Fatalf("basic has %d properties, Properties %d", len(c.Properties), len(flags))
		}
		typ := reflect.TypeOf(Properties{})
		for i, p := range c.Properties {
			if want := uint16(0x8000) >> i; flags[p.Name] != want {
				t.Errorf("%s: flag %#x, want %#x", p.Name, flags[p.Name], want)
			}
			if _, ok := typ.FieldByName(goName(p.Name)); !ok {
				t.Errorf("Properties has no field %s", goName(p.Name))
			}
		}
	}
}
