package vhostrole

import (
	"bytes"
	"errors"
	"testing"
)

// TestBatch: records packed into one batch come back as they went in;
// a batch cut short, or holding more than its row says, is refused.
func TestBatch(t *testing.T) {
	recs := [][]byte{{}, []byte("one"), bytes.Repeat([]byte{7}, 300), []byte("last")}
	b := encodeBatch(recs)
	var got [][]byte
	if err := decodeBatch(b, len(recs), func(i int, rec []byte) error {
		got = append(got, append([]byte(nil), rec...))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("decoded %d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if !bytes.Equal(got[i], recs[i]) {
			t.Fatalf("record %d: %q, want %q", i, got[i], recs[i])
		}
	}
	nop := func(int, []byte) error { return nil }
	for _, tc := range []struct {
		name string
		b    []byte
		want int
	}{
		{"cut short", b[:len(b)-1], len(recs)},
		{"a record more than the row says", b, len(recs) - 1},
		{"a record fewer", b, len(recs) + 1},
	} {
		if err := decodeBatch(tc.b, tc.want, nop); !errors.Is(err, errBatch) {
			t.Errorf("%s: %v, want errBatch", tc.name, err)
		}
	}
}
