package amqp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName>/ (written by
// TestWriteFuzzCorpus); each fuzzer also adds a few seeds in code.

// FuzzFrameReader feeds arbitrary bytes, cut at points derived from seed,
// and checks that the reader never panics, that its errors are *Error (or
// *ProtocolHeaderError), that the cuts make no difference, and that the
// assembler fed with its frames fails only with *Error too. The low bit of
// mode chooses whether the stream starts with the protocol header.
func FuzzFrameReader(f *testing.F) {
	f.Add(clientHandshake(f), uint64(0), uint8(0))
	f.Add(clientHandshake(f)[8:], uint64(7), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, mode uint8) {
		cfg := ReaderConfig{NoProtocolHeader: mode&1 == 1, FrameMax: FrameMinSize}
		whole, errWhole := readAll(data, cfg, nil)
		cuts := randomCuts(rand.New(rand.NewPCG(seed, seed>>32)), len(data))
		split, errSplit := readAll(data, cfg, cuts)
		if !reflect.DeepEqual(whole, split) || !sameError(errWhole, errSplit) {
			t.Fatalf("cuts %v changed the result: %d frames, %v vs %d frames, %v",
				cuts, len(whole), errWhole, len(split), errSplit)
		}
		if errWhole != nil {
			var he *ProtocolHeaderError
			if !errors.As(errWhole, &he) {
				checkError(t, errWhole)
			}
		}
		a := NewAssembler(AssemblerConfig{MaxMessageSize: 1 << 16})
		for _, fr := range whole {
			if _, _, err := a.Add(fr); err != nil {
				if e := checkError(t, err); e.ConnectionError() {
					break
				}
			}
		}
	})
}

// FuzzDecodeMethod decodes arbitrary method payloads; whatever decodes must
// encode, and decode again to the same encoding.
func FuzzDecodeMethod(f *testing.F) {
	f.Add([]byte{0, 50, 0, 10, 0, 0, 1, 'q', 2, 0, 0, 0, 0})
	f.Add([]byte{0, 99, 0, 10})
	f.Fuzz(func(t *testing.T, payload []byte) {
		m, err := DecodeMethod(payload)
		if err != nil {
			checkError(t, err)
			return
		}
		enc1 := reencode(t, m)
		m2, err := DecodeMethod(enc1)
		if err != nil {
			t.Fatalf("re-encoded %s does not decode: %v", m.Name(), err)
		}
		if enc2 := reencode(t, m2); !bytes.Equal(enc1, enc2) {
			t.Fatalf("%s encodes unstably:\n% x\n% x", m.Name(), enc1, enc2)
		}
	})
}

// FuzzTable decodes arbitrary field tables, with the same round-trip check.
func FuzzTable(f *testing.F) {
	f.Add([]byte{0, 0, 0, 6, 1, 'k', 'S', 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		tbl, err := DecodeTable(data)
		if err != nil {
			checkError(t, err)
			return
		}
		enc1, err := AppendTable(nil, tbl)
		if err != nil {
			t.Fatalf("decoded table does not encode: %v", err)
		}
		tbl2, err := DecodeTable(enc1)
		if err != nil {
			t.Fatalf("re-encoded table does not decode: %v", err)
		}
		if enc2, _ := AppendTable(nil, tbl2); !bytes.Equal(enc1, enc2) {
			t.Fatalf("table encodes unstably:\n% x\n% x", enc1, enc2)
		}
	})
}

// FuzzContentHeader decodes arbitrary content header payloads, with the
// same round-trip check.
func FuzzContentHeader(f *testing.F) {
	f.Add([]byte{0, 60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0x11, 0x00, 2, 3, '1', '0', '0'})
	f.Fuzz(func(t *testing.T, payload []byte) {
		class, size, p, err := DecodeContentHeader(payload)
		if err != nil {
			checkError(t, err)
			return
		}
		enc1, err := AppendContentHeader(nil, class, size, p)
		if err != nil {
			t.Fatalf("decoded properties do not encode: %v", err)
		}
		class2, size2, p2, err := DecodeContentHeader(enc1)
		if err != nil || class2 != class || size2 != size {
			t.Fatalf("re-encoded header: %d %d %v", class2, size2, err)
		}
		if enc2, _ := AppendContentHeader(nil, class2, size2, p2); !bytes.Equal(enc1, enc2) {
			t.Fatalf("header encodes unstably:\n% x\n% x", enc1, enc2)
		}
	})
}

func reencode(t *testing.T, m Method) []byte {
	b := binary.BigEndian.AppendUint16(nil, m.ClassID())
	b = binary.BigEndian.AppendUint16(b, m.MethodID())
	b, err := m.AppendArgs(b)
	if err != nil {
		t.Fatalf("decoded %s does not encode: %v", m.Name(), err)
	}
	return b
}

// checkError requires an *Error with a known reply code and a text that
// fits a close method.
func checkError(t *testing.T, err error) *Error {
	t.Helper()
	e := asError(t, err)
	if ReplyName(e.Code) == "" || len(e.Text) > 255 {
		t.Fatalf("bad error: code %d, %d-byte text %q", e.Code, len(e.Text), e.Text)
	}
	return e
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}
