package store

import (
	"bytes"
	"io"
	"os"
)

// The log file is kept ahead of its records by a stretch of written zeros,
// preallocChunk at a time, so that a round's write changes only data, not
// the file's size: its fdatasync (datasync) then has no metadata to
// write, which on ext4 saves an inode write (without a journal) or a
// journal commit (with one), and a wait for the disk, per confirm
// (BenchmarkFsyncFloor: fdatasync/zeros against fsync/append). Zeros rather than fallocate: an fallocate'd block is
// "unwritten" until its first write, and marking it written is a metadata
// change again, once per 4 KiB block.
//
// The zeros are the log's clean end. No record starts with eight zero
// bytes (a record's checksum covers its length, and the CRC-32C of a zero
// length is not 0), and a crash leaves unsynced records as zeros or torn
// bytes past the last intact record either way; recovery (inspect.go)
// takes an all-zero stretch after the last record as the end of the log,
// with nothing to report, and anything else there as it always did. Close
// and the switch to a new log file cut the zeros off, so that a file
// at rest holds records only. The zeros are used disk space: the
// disk-free accounting counts them when they are written, and Stats'
// DiskBytes includes them.
const preallocChunk = 1 << 20

// zeros is what the log is extended with, a piece at a time; never
// written to.
var zeros = make([]byte, 64<<10)

// grow extends the log file with zeros so that end bytes fit before its
// preallocated end, before a round writes up to end. A failure (no room
// for a chunk on a nearly full disk) is not the round's: the partial
// zeros are cut off again and the round writes past the end of the file,
// as it would without preallocation, which may still fit; the next chunk
// is tried again a chunk further on.
func (s *Store) grow(end int64) {
	seg := &s.seg
	if end <= seg.alloc || end <= seg.noGrowBelow {
		return
	}
	// The round's records fill the file up to end themselves.
	from := end
	to := (end/preallocChunk + 1) * preallocChunk
	for off := from; off < to; {
		n, err := seg.f.WriteAt(zeros[:min(int64(len(zeros)), to-off)], off)
		off += int64(n)
		if err != nil {
			seg.f.Truncate(seg.off)
			seg.alloc, seg.noGrowBelow = seg.off, end+preallocChunk
			return
		}
	}
	s.wrote(to - seg.alloc) // the records' share too: writeHeld counts past alloc only
	seg.alloc = to
}

// trimPrealloc cuts the preallocated zeros off the log file, leaving the
// records, when the file is closed or no longer the one written to. It
// is not synced: if the cut is lost in a crash, the zeros are found
// again at the file's end, which recovery takes as its clean end.
func (seg *openSegment) trimPrealloc() {
	if seg.f != nil && seg.alloc > seg.off {
		if seg.f.Truncate(seg.off) == nil {
			seg.alloc = seg.off
		}
	}
}

// allZero says whether b holds nothing but zero bytes.
func allZero(b []byte) bool {
	for len(b) > 0 {
		n := min(len(b), len(zeros))
		if !bytes.Equal(b[:n], zeros[:n]) {
			return false
		}
		b = b[n:]
	}
	return true
}

// zeroFrom says whether the file at path holds nothing but zeros from
// offset off to its end.
func zeroFrom(path string, off int64) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := f.ReadAt(buf, off)
		if !allZero(buf[:n]) {
			return false, nil
		}
		off += int64(n)
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}
