package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// castagnoli is the CRC-32C table. Castagnoli rather than IEEE because it
// detects more error patterns at this length and modern CPUs compute it in
// hardware (SSE4.2, ARMv8), which is what etcd's WAL and ext4 use too.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	// formatVersion is written in every file header; a reader refuses a
	// version it does not know rather than guess at its layout.
	formatVersion = 1

	// logMagic and snapMagic start log segments and snapshots, so that a
	// file from somewhere else (or a snapshot named like a log) is refused.
	logMagic  = "WRNLOG"
	snapMagic = "WRNSNP"

	// logHeaderBytes: magic(6) version(2) first pos(8) crc(4).
	logHeaderBytes = 20
	// snapHeaderBytes: magic(6) version(2) pos(8) length(8) crc(4); the
	// crc covers pos, length and the data that follows.
	snapHeaderBytes = 28
	// recordHeaderBytes: length(4) crc(4) before each record's payload.
	recordHeaderBytes = 8

	// lostMark in a record's length field marks a placeholder: a position
	// whose record was lost to damage, written by Repair so that the
	// records after it keep their positions. It has no payload and Replay
	// skips it. A real record is shorter than lostMark (maxRecordLimit).
	lostMark = 1 << 31
	// maxRecordLimit caps Options.MaxRecordBytes below lostMark.
	maxRecordLimit = lostMark - 1
)

// errCorrupt marks content that fails its checksum or is cut short: the
// signature of a crash in the middle of a write (or of damaged media).
var errCorrupt = errors.New("store: corrupt or torn data")

// appendRecord frames payload as length + CRC-32C + payload. The checksum
// covers the length too: a torn or flipped length would otherwise send the
// reader off to read a wrong-sized payload whose own checksum might, by bad
// luck, still be checked against the wrong bytes.
func appendRecord(dst, payload []byte) []byte {
	// The header is built in dst itself: a local array handed to crc32
	// escapes, an allocation per record.
	n := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(payload)))
	dst = append(dst, 0, 0, 0, 0)
	crc := crc32.Update(0, castagnoli, dst[n:n+4])
	crc = crc32.Update(crc, castagnoli, payload)
	binary.LittleEndian.PutUint32(dst[n+4:n+8], crc)
	return append(dst, payload...)
}

// appendPlaceholder frames the placeholder for one lost record: the
// length field is lostMark, the checksum covers it, there is no payload.
func appendPlaceholder(dst []byte) []byte {
	var h [recordHeaderBytes]byte
	binary.LittleEndian.PutUint32(h[0:4], lostMark)
	binary.LittleEndian.PutUint32(h[4:8], crc32.Update(0, castagnoli, h[0:4]))
	return append(dst, h[:]...)
}

// parseRecordHeader returns the payload length and expected checksum, or
// errCorrupt when the length is over limit: a torn length must not make
// the reader allocate gigabytes. A placeholder has n 0 and lost set.
func parseRecordHeader(h []byte, maxRecordBytes int) (n int, crc uint32, lost bool, err error) {
	n64 := binary.LittleEndian.Uint32(h[0:4])
	crc = binary.LittleEndian.Uint32(h[4:8])
	if n64 == lostMark {
		return 0, crc, true, nil
	}
	if uint64(n64) > uint64(maxRecordBytes) {
		return 0, 0, false, errCorrupt
	}
	return int(n64), crc, false, nil
}

// recordCRC is the checksum appendRecord writes for header h and payload.
func recordCRC(h, payload []byte) uint32 {
	crc := crc32.Update(0, castagnoli, h[0:4])
	return crc32.Update(crc, castagnoli, payload)
}

// logHeader is the first bytes of a log segment: it names the position of
// the segment's first record, so that a renamed or misplaced file cannot
// be replayed at the wrong place.
func logHeader(first Pos) []byte {
	h := make([]byte, logHeaderBytes)
	copy(h, logMagic)
	binary.LittleEndian.PutUint16(h[6:8], formatVersion)
	binary.LittleEndian.PutUint64(h[8:16], uint64(first))
	binary.LittleEndian.PutUint32(h[16:20], crc32.Checksum(h[:16], castagnoli))
	return h
}

// parseLogHeader checks a segment header and returns its first position.
func parseLogHeader(h []byte) (Pos, error) {
	if len(h) < logHeaderBytes || string(h[:6]) != logMagic {
		return 0, errCorrupt
	}
	if binary.LittleEndian.Uint32(h[16:20]) != crc32.Checksum(h[:16], castagnoli) {
		return 0, errCorrupt
	}
	if v := binary.LittleEndian.Uint16(h[6:8]); v != formatVersion {
		return 0, errors.New("store: log format version not supported")
	}
	return Pos(binary.LittleEndian.Uint64(h[8:16])), nil
}

// snapHeader frames a snapshot of data taken after record pos.
func snapHeader(pos Pos, data ...[]byte) []byte {
	h := make([]byte, snapHeaderBytes)
	copy(h, snapMagic)
	binary.LittleEndian.PutUint16(h[6:8], formatVersion)
	binary.LittleEndian.PutUint64(h[8:16], uint64(pos))
	binary.LittleEndian.PutUint64(h[16:24], uint64(piecesLen(data)))
	crc := crc32.Update(0, castagnoli, h[8:24])
	for _, p := range data {
		crc = crc32.Update(crc, castagnoli, p)
	}
	binary.LittleEndian.PutUint32(h[24:28], crc)
	return h
}

// piecesLen is the length of pieces one after the other.
func piecesLen(pieces [][]byte) int64 {
	var n int64
	for _, p := range pieces {
		n += int64(len(p))
	}
	return n
}

// versionError is a snapshot whose format version this build does not
// read. The snapshot's checksum does not cover its version (a log
// header's does), so this may as well be a damaged byte as a newer
// Warren's file: recovery reports it as damage either way.
type versionError struct{ found uint16 }

func (e *versionError) Error() string {
	return fmt.Sprintf("store: snapshot format version %d, this build reads %d", e.found, formatVersion)
}

// parseSnapshot checks a whole snapshot file's bytes and returns the data
// (a subslice of b) and its position.
func parseSnapshot(b []byte) (Pos, []byte, error) {
	if len(b) < snapHeaderBytes || string(b[:6]) != snapMagic {
		return 0, nil, errCorrupt
	}
	if v := binary.LittleEndian.Uint16(b[6:8]); v != formatVersion {
		return 0, nil, &versionError{found: v}
	}
	n := binary.LittleEndian.Uint64(b[16:24])
	if n != uint64(len(b)-snapHeaderBytes) {
		return 0, nil, errCorrupt
	}
	data := b[snapHeaderBytes:]
	crc := crc32.Update(0, castagnoli, b[8:24])
	crc = crc32.Update(crc, castagnoli, data)
	if crc != binary.LittleEndian.Uint32(b[24:28]) {
		return 0, nil, errCorrupt
	}
	return Pos(binary.LittleEndian.Uint64(b[8:16])), data, nil
}
