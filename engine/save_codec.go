package engine

import "fmt"

// The snapshot is written with wire.go's encoder in its snapshot form
// (strings interned, so that a name repeated with every message costs
// its bytes once) and read back by its decoder; these are the few
// helpers only the snapshot needs.

func newSnapshotEncoder() encoder {
	return encoder{form: formSnapshot, interned: map[string]uint64{}}
}

func (e *encoder) tally(t tally) {
	e.varint(t.msgs)
	e.varint(t.bytes)
}

func (d *decoder) tally() tally { return tally{msgs: d.varint(), bytes: d.varint()} }

// int reads a non-negative int no larger than limit.
func (d *decoder) int(limit int) int {
	v := d.uvarint()
	if v > uint64(limit) || limit < 0 {
		d.fail("value " + fmt.Sprint(v) + " out of range")
		return 0
	}
	return int(v)
}

// sint reads a signed int that fits in 32 bits.
func (d *decoder) sint() int { return int(d.signed(-1<<31, 1<<31-1)) }

// errCorrupt is what Load returns for bytes that are not a snapshot.
var errCorrupt = fmt.Errorf("engine: snapshot is corrupt or truncated")

// corrupt is Load's error for where the decoder stopped.
func corrupt(e *CodecError, size int) error {
	return fmt.Errorf("%w (at byte %d of %d)", errCorrupt, e.Offset, size)
}
