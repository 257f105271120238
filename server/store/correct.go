package store

import (
	"encoding/binary"
	"hash/crc32"
)

// A damaged record is set aside, never put back: but to say what it was,
// the one byte that explains its checksum is worth finding. A CRC is
// linear, so a changed byte x at position i of an L-byte record changes
// the checksum by the raw CRC of x followed by L-1-i zero bytes; walking
// that back one zero byte at a time finds i and x in O(L). With 255 L
// single-byte changes to choose from among 2^32 checksums, a false find
// (worse damage that one other byte happens to explain) is about as
// likely as L/2^24, so only records up to maxRestoreBytes are tried (a
// false find there is a chance in 16,000 or less), and only to report
// what was lost.
const maxRestoreBytes = 1 << 10

// crcTopIndex maps the top byte of castagnoli[k] to k: for a reflected
// CRC table that byte is a permutation of k, which is what lets one zero
// byte be taken back off a raw CRC register.
var crcTopIndex = func() (inv [256]byte) {
	for k := range 256 {
		inv[castagnoli[k]>>24] = byte(k)
	}
	return inv
}()

// unzero undoes one zero byte of the raw register update
// r' = table[r&0xff] ^ r>>8.
func unzero(r uint32) uint32 {
	k := crcTopIndex[r>>24]
	return (r^castagnoli[k])<<8 | uint32(k)
}

// restoreOne returns data with the one byte changed that makes its
// CRC-32C want, and false if no single byte does.
func restoreOne(data []byte, want uint32) ([]byte, bool) {
	t := crc32.Update(0, castagnoli, data) ^ want
	if t == 0 {
		return data, true
	}
	for i := len(data) - 1; i >= 0; i-- {
		k := crcTopIndex[t>>24]
		if castagnoli[k] == t {
			fixed := append([]byte(nil), data...)
			fixed[i] ^= byte(k)
			if crc32.Update(0, castagnoli, fixed) == want {
				return fixed, true
			}
		}
		t = unzero(t)
	}
	return nil, false
}

// restored is the damaged piece's payload as it was written, when one
// changed byte explains the damage: in the length field (the piece's own
// extent gives the length back), in the checksum, or in the payload.
func (p piece) restored(b []byte) ([]byte, bool) {
	n := p.n - recordHeaderBytes
	if n <= 0 || n > maxRestoreBytes {
		return nil, false
	}
	want := binary.LittleEndian.Uint32(b[p.off+4 : p.off+8])
	data := make([]byte, 4, 4+n)
	binary.LittleEndian.PutUint32(data, uint32(n))
	data = append(data, b[p.off+recordHeaderBytes:p.off+p.n]...)
	s := crc32.Update(0, castagnoli, data) ^ want
	if s == 0 || oneByte(s) {
		return data[4:], true // the length field or the checksum took the hit
	}
	fixed, ok := restoreOne(data, want)
	if !ok {
		return nil, false
	}
	return fixed[4:], true
}

// oneByte says s differs from 0 in one byte only.
func oneByte(s uint32) bool {
	n := 0
	for ; s != 0; s >>= 8 {
		if s&0xff != 0 {
			n++
		}
	}
	return n == 1
}
