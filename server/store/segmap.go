package store

import "encoding/binary"

// piece is a stretch of a log file: an intact record (or placeholder), or
// damaged bytes running up to the next intact record or the end.
type piece struct {
	off, n int64
	intact bool
	lost   bool // an intact placeholder
}

// segMap is a whole log file taken apart, for a file the streaming scan
// found damaged: where its intact records are, even after the damage.
type segMap struct {
	headerOK bool    // the header checks out and names the file's position
	first    Pos     // the file's first position, from its name
	pieces   []piece // from offset logHeaderBytes on
}

// mapSegment takes b, a log file named for position first, apart. After
// damage it looks for the next intact record at every following offset:
// a record there is intact only if its length fits and its CRC-32C over
// length and payload holds, which random or zeroed bytes pass with a
// chance of about 2^-32 per offset (a zero length's checksum is not 0).
func mapSegment(b []byte, first Pos, maxRecordBytes int) segMap {
	m := segMap{first: first}
	if len(b) < logHeaderBytes {
		return m
	}
	if p, err := parseLogHeader(b[:logHeaderBytes]); err == nil && p == first {
		m.headerOK = true
	}
	off := int64(logHeaderBytes)
	for off < int64(len(b)) {
		if n, lost, ok := recordAt(b, off, maxRecordBytes); ok {
			m.pieces = append(m.pieces, piece{off: off, n: n, intact: true, lost: lost})
			off += n
			continue
		}
		next := off + 1
		for ; next < int64(len(b)); next++ {
			if _, _, ok := recordAt(b, next, maxRecordBytes); ok {
				break
			}
		}
		m.pieces = append(m.pieces, piece{off: off, n: next - off})
		off = next
	}
	return m
}

// recordAt says whether an intact record (or placeholder) starts at off in
// b, and how many bytes it takes with its header.
func recordAt(b []byte, off int64, maxRecordBytes int) (n int64, lost, ok bool) {
	rest := int64(len(b)) - off
	if rest < recordHeaderBytes {
		return 0, false, false
	}
	h := b[off : off+recordHeaderBytes]
	size, crc, lost, err := parseRecordHeader(h, maxRecordBytes)
	if err != nil || int64(size) > rest-recordHeaderBytes {
		return 0, false, false
	}
	payload := b[off+recordHeaderBytes : off+recordHeaderBytes+int64(size)]
	if recordCRC(h, payload) != crc {
		return 0, false, false
	}
	return recordHeaderBytes + int64(size), lost, true
}

// dropZeroTail takes the last file's preallocated zeros (prealloc.go) out
// of its map: a damaged last piece of nothing but zeros is no damage but
// the log's end, and a torn record before zeros is the bytes up to its
// last non-zero byte, or as long as its length field says when that is
// longer (a payload may end in zeros), so that a torn tail or damaged
// record is reported, set aside and cut at its own size, not the zeros'.
func (m *segMap) dropZeroTail(b []byte, maxRecordBytes int) {
	n := len(m.pieces)
	if n == 0 || m.pieces[n-1].intact {
		return
	}
	p := &m.pieces[n-1]
	end := p.off + p.n
	keep := end
	for keep > p.off && b[keep-1] == 0 {
		keep--
	}
	if keep == p.off {
		m.pieces = m.pieces[:n-1]
		return
	}
	if p.n >= recordHeaderBytes {
		if size, _, lost, err := parseRecordHeader(b[p.off:p.off+recordHeaderBytes], maxRecordBytes); err == nil && !lost {
			keep = max(keep, min(end, p.off+recordHeaderBytes+int64(size)))
		}
	}
	p.n = max(keep, min(end, p.off+recordHeaderBytes)) - p.off
}

// intact counts the file's intact records and placeholders.
func (m segMap) intact() int {
	n := 0
	for _, p := range m.pieces {
		if p.intact {
			n++
		}
	}
	return n
}

// damaged counts its damaged pieces.
func (m segMap) damaged() int { return len(m.pieces) - m.intact() }

// tornTail says whether the only damage is the end of the file: nothing
// intact after it, as a crash in the middle of writing the last records
// leaves (a partial record, or a tail the file system zero-filled).
func (m segMap) tornTail() bool {
	n := len(m.pieces)
	return m.headerOK && n > 0 && !m.pieces[n-1].intact && m.damaged() == 1
}

// payload is what follows the header of the record starting at p, as it
// was written if one changed byte explains the damage (restored), else
// as it is: the bytes a decoder can try.
func (p piece) payload(b []byte) (out []byte, restored bool) {
	if p.n <= recordHeaderBytes {
		return nil, false
	}
	if r, ok := p.restored(b); ok {
		return r, true
	}
	out = make([]byte, p.n-recordHeaderBytes)
	copy(out, b[p.off+recordHeaderBytes:p.off+p.n])
	return out, false
}

// oneRecord says a damaged piece held exactly one record: it is too
// short for two, or its length field spans it exactly (the damage is in
// the checksum or the payload), or the checksum holds with the length
// the piece has (the damage is in the length field).
func (p piece) oneRecord(b []byte, maxRecordBytes int) bool {
	if p.n < 2*recordHeaderBytes {
		return true
	}
	h := b[p.off : p.off+recordHeaderBytes]
	if n, _, lost, err := parseRecordHeader(h, maxRecordBytes); err == nil && !lost && int64(n)+recordHeaderBytes == p.n {
		return true
	}
	var fixed [recordHeaderBytes]byte
	copy(fixed[:], h)
	binary.LittleEndian.PutUint32(fixed[0:4], uint32(p.n-recordHeaderBytes))
	return recordCRC(fixed[:], b[p.off+recordHeaderBytes:p.off+p.n]) == binary.LittleEndian.Uint32(h[4:8])
}
