package amqp

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestTableValueTypes round-trips every value type and checks its wire
// form byte for byte, so that a value keeps its AMQP type through the
// broker (an int32 stays 'I').
func TestTableValueTypes(t *testing.T) {
	cases := []struct {
		name string
		v    any
		wire []byte // type octet and value
	}{
		{"bool true", true, []byte{'t', 1}},
		{"bool false", false, []byte{'t', 0}},
		{"int8", int8(-2), []byte{'b', 0xfe}},
		{"uint8", uint8(200), []byte{'B', 200}},
		{"int16", int16(-2), []byte{'s', 0xff, 0xfe}},
		{"uint16", uint16(65000), []byte{'u', 0xfd, 0xe8}},
		{"int32", int32(-70000), []byte{'I', 0xff, 0xfe, 0xee, 0x90}},
		{"uint32", uint32(4000000000), []byte{'i', 0xee, 0x6b, 0x28, 0x00}},
		{"int64", int64(-1), []byte{'l', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{"float32", float32(1.5), []byte{'f', 0x3f, 0xc0, 0, 0}},
		{"float64", float64(-2.25), []byte{'d', 0xc0, 0x02, 0, 0, 0, 0, 0, 0}},
		{"decimal", Decimal{Scale: 2, Value: -314}, []byte{'D', 2, 0xff, 0xff, 0xfe, 0xc6}},
		{"longstr", "héllo", []byte{'S', 0, 0, 0, 6, 'h', 0xc3, 0xa9, 'l', 'l', 'o'}},
		{"binary", []byte{0, 1, 2}, []byte{'x', 0, 0, 0, 3, 0, 1, 2}},
		{"timestamp", Timestamp(1700000000), []byte{'T', 0, 0, 0, 0, 0x65, 0x53, 0xf1, 0x00}},
		{"table", Table{"a": int8(1)}, []byte{'F', 0, 0, 0, 4, 1, 'a', 'b', 1}},
		{"array", []any{int8(1), "x"}, []byte{'A', 0, 0, 0, 8, 'b', 1, 'S', 0, 0, 0, 1, 'x'}},
		{"void", nil, []byte{'V'}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := Table{"k": c.v}
			got, err := AppendTable(nil, in)
			if err != nil {
				t.Fatal(err)
			}
			field := append([]byte{1, 'k'}, c.wire...)
			want := append([]byte{0, 0, 0, byte(len(field))}, field...)
			if !bytes.Equal(got, want) {
				t.Fatalf("encoded % x, want % x", got, want)
			}
			back, err := DecodeTable(got)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, in) {
				t.Fatalf("decoded %#v, want %#v", back, in)
			}
		})
	}
}

func TestTableIntEncodesAsLong(t *testing.T) {
	got, err := AppendTable(nil, Table{"n": 7})
	if err != nil {
		t.Fatal(err)
	}
	back, _ := DecodeTable(got)
	if v, ok := back["n"].(int64); !ok || v != 7 {
		t.Fatalf("int came back as %#v, want int64(7)", back["n"])
	}
}

func TestTableNaNKeepsItsBits(t *testing.T) {
	nan := math.Float64frombits(0x7ff8000000000001)
	got, _ := AppendTable(nil, Table{"n": nan})
	back, err := DecodeTable(got)
	if err != nil {
		t.Fatal(err)
	}
	if bits := math.Float64bits(back["n"].(float64)); bits != 0x7ff8000000000001 {
		t.Fatalf("NaN bits %x", bits)
	}
}

// TestTableEncodingIsSorted: keys are written in sorted order, so the same
// table always encodes to the same bytes whatever the map iteration order.
func TestTableEncodingIsSorted(t *testing.T) {
	in := Table{"b": true, "a": true, "c": true, "aa": true}
	want := []byte{0, 0, 0, 17, 1, 'a', 't', 1, 2, 'a', 'a', 't', 1, 1, 'b', 't', 1, 1, 'c', 't', 1}
	for range 20 {
		got, err := AppendTable(nil, in)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("encoded % x, want % x", got, want)
		}
	}
}

func TestTableEmptyIsNil(t *testing.T) {
	got, _ := AppendTable(nil, nil)
	if !bytes.Equal(got, []byte{0, 0, 0, 0}) {
		t.Fatalf("nil table encoded as % x", got)
	}
	back, err := DecodeTable(got)
	if err != nil || back != nil {
		t.Fatalf("empty table decoded as %#v, %v", back, err)
	}
}

// TestTableDuplicateKeyKeepsFirst follows RabbitMQ, whose table lookups
// find the first occurrence of a key.
func TestTableDuplicateKeyKeepsFirst(t *testing.T) {
	wire := []byte{0, 0, 0, 8, 1, 'k', 'b', 1, 1, 'k', 'b', 2}
	back, err := DecodeTable(wire)
	if err != nil {
		t.Fatal(err)
	}
	if back["k"] != int8(1) {
		t.Fatalf("k = %#v, want the first value", back["k"])
	}
}

func TestTableDepthLimit(t *testing.T) {
	nest := func(depth int) Table {
		inner := Table{"leaf": true}
		for range depth - 1 {
			inner = Table{"t": inner}
		}
		return inner
	}
	ok, err := AppendTable(nil, nest(MaxTableDepth))
	if err != nil {
		t.Fatalf("depth %d: %v", MaxTableDepth, err)
	}
	if _, err := DecodeTable(ok); err != nil {
		t.Fatalf("depth %d: %v", MaxTableDepth, err)
	}
	if _, err := AppendTable(nil, nest(MaxTableDepth+1)); err == nil {
		t.Fatal("encoding a table nested too deep succeeded")
	}
	// Build the too-deep wire form by hand, wrapping the legal one.
	deep := append([]byte{1, 't', 'F'}, ok...)
	deep = append(binary.BigEndian.AppendUint32(nil, uint32(len(deep))), deep...)
	_, err = DecodeTable(deep)
	if e := asError(t, err); e.Code != FrameError || !strings.Contains(e.Text, "nested deeper than 100") {
		t.Fatalf("got %v", err)
	}
	// An array nests like a table.
	arr := []any{true}
	for range MaxTableDepth {
		arr = []any{arr}
	}
	if _, err := AppendTable(nil, Table{"a": arr}); err == nil {
		t.Fatal("encoding an array nested too deep succeeded")
	}
}

func TestTableCycleIsRefused(t *testing.T) {
	cyc := Table{}
	cyc["self"] = cyc
	if _, err := AppendTable(nil, cyc); err == nil {
		t.Fatal("a cyclic table encoded")
	}
}

func TestTableMalformed(t *testing.T) {
	cases := []struct {
		name string
		wire []byte
		text string
	}{
		{"length beyond input", []byte{0, 0, 0, 9, 1, 'k'}, "FRAME_ERROR - cannot decode field table: bad length"},
		{"trailing bytes", []byte{0, 0, 0, 0, 1}, "FRAME_ERROR - cannot decode field table: bad length"},
		{"unknown type", []byte{0, 0, 0, 3, 1, 'k', 'L'}, "FRAME_ERROR - cannot decode field table: unknown field type 'L'"},
		{"truncated value", []byte{0, 0, 0, 4, 1, 'k', 'I', 1}, "FRAME_ERROR - cannot decode field table: truncated field"},
		{"truncated key", []byte{0, 0, 0, 2, 5, 'k'}, "FRAME_ERROR - cannot decode field table: truncated field"},
		{"longstr claims 4 GB", []byte{0, 0, 0, 7, 1, 'k', 'S', 0xff, 0xff, 0xff, 0xff}, "FRAME_ERROR - cannot decode field table: truncated field"},
		{"nested claims 4 GB", []byte{0, 0, 0, 7, 1, 'k', 'F', 0xff, 0xff, 0xff, 0xff}, "FRAME_ERROR - cannot decode field table: truncated field"},
		{"array bad element", []byte{0, 0, 0, 8, 1, 'k', 'A', 0, 0, 0, 1, 'Z'}, "FRAME_ERROR - cannot decode field table: unknown field type 'Z'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeTable(c.wire)
			if e := asError(t, err); e.Code != FrameError || e.Text != c.text {
				t.Fatalf("got %q, want %q", e.Text, c.text)
			}
		})
	}
}

func TestTableEncodeErrors(t *testing.T) {
	for name, tbl := range map[string]Table{
		"unsupported type": {"k": struct{}{}},
		"uint64":           {"k": uint64(1)},
		"long key":         {strings.Repeat("k", 256): true},
	} {
		if _, err := AppendTable(nil, tbl); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}

// TestTableDecodedValuesAreCopies: decoded strings and byte arrays must
// not alias the input, which the frame reader reuses.
func TestTableDecodedValuesAreCopies(t *testing.T) {
	wire, _ := AppendTable(nil, Table{"s": "abc", "x": []byte{1, 2, 3}})
	back, _ := DecodeTable(wire)
	for i := range wire {
		wire[i] = 0
	}
	if back["s"] != "abc" || !bytes.Equal(back["x"].([]byte), []byte{1, 2, 3}) {
		t.Fatalf("decoded values changed with the input: %#v", back)
	}
}
