package store

import (
	"bufio"
	"errors"
	"io"
	"os"
)

// segment is one log file as recovery found it.
type segment struct {
	path  string
	first Pos   // position of its first record (from the header)
	last  Pos   // position of its last complete record; first-1 if none
	end   int64 // offset just past the last complete record
	size  int64 // file size; size > end means a torn or corrupt tail
	// bad is set when the header itself is missing, torn or wrong.
	bad bool
}

// readBufferBytes is the read-ahead for scanning a log: large enough that
// reading a million small records is a few hundred syscalls.
const readBufferBytes = 1 << 20

// scanSegment reads the log file at path, checking every record, and
// calls fn (if not nil) with each complete record in order (lost is set
// for a placeholder, which has no payload). It stops at the first record
// that is cut short or fails its checksum; what came before it is
// reported in the result. An error from fn stops the scan and is
// returned; damage is not an error, it is the result's end < size (what
// it is, a torn tail or worse, inspect decides with mapSegment).
func scanSegment(path string, maxRecordBytes int, fn func(p Pos, rec []byte, lost bool) error) (segment, error) {
	s := segment{path: path}
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return s, err
	}
	s.size = info.Size()
	r := bufio.NewReaderSize(f, readBufferBytes)
	h := make([]byte, logHeaderBytes)
	if _, err := io.ReadFull(r, h); err != nil {
		s.bad = true
		return s, nil
	}
	if s.first, err = parseLogHeader(h); err != nil {
		if !errors.Is(err, errCorrupt) {
			return s, err
		}
		s.bad = true
		return s, nil
	}
	s.last, s.end = s.first-1, logHeaderBytes
	var payload []byte // for records larger than the read buffer
	for {
		rh, err := r.Peek(recordHeaderBytes)
		if err != nil {
			return s, nil // clean end of file, or a torn record header
		}
		n, crc, lost, err := parseRecordHeader(rh, maxRecordBytes)
		if err != nil || int64(n) > s.size-s.end-recordHeaderBytes {
			return s, nil // a length no complete record can have here
		}
		if lost {
			// A placeholder Repair wrote for a record lost to damage: it
			// takes its position, and there is nothing to replay.
			if recordCRC(rh, nil) != crc {
				return s, nil
			}
			if fn != nil {
				if err := fn(s.last+1, nil, true); err != nil {
					return s, err
				}
			}
			r.Discard(recordHeaderBytes)
			s.last++
			s.end += recordHeaderBytes
			continue
		}
		// Records that fit the read buffer are checked and passed on in
		// place (Peek, no copy): that halves the time to replay a log
		// of small records.
		var rec []byte
		if recordHeaderBytes+n <= readBufferBytes {
			b, err := r.Peek(recordHeaderBytes + n)
			if err != nil {
				return s, nil
			}
			rh, rec = b[:recordHeaderBytes], b[recordHeaderBytes:]
		} else {
			var h [recordHeaderBytes]byte
			copy(h[:], rh)
			rh = h[:]
			r.Discard(recordHeaderBytes)
			if cap(payload) < n {
				payload = make([]byte, n)
			}
			rec = payload[:n]
			if _, err := io.ReadFull(r, rec); err != nil {
				return s, nil
			}
		}
		if recordCRC(rh, rec) != crc {
			return s, nil
		}
		if fn != nil {
			if err := fn(s.last+1, rec, false); err != nil {
				return s, err
			}
		}
		if recordHeaderBytes+n <= readBufferBytes {
			r.Discard(recordHeaderBytes + n)
		}
		s.last++
		s.end += int64(recordHeaderBytes + n)
	}
}
