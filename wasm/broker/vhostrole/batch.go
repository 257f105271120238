package vhostrole

import (
	"encoding/binary"
	"errors"
)

// A batch is the records one write stores, in one row of the vhost
// object's batches table: each record's length (uvarint), then its
// bytes, in order. The row names its first and last positions.

// encodeBatch packs recs into one batch.
func encodeBatch(recs [][]byte) []byte {
	n := 0
	for _, r := range recs {
		n += binary.MaxVarintLen64 + len(r)
	}
	b := make([]byte, 0, n)
	for _, r := range recs {
		b = binary.AppendUvarint(b, uint64(len(r)))
		b = append(b, r...)
	}
	return b
}

// errBatch is a batch that does not hold the records its row says.
var errBatch = errors.New("a stored batch of log records is damaged: its lengths do not add up to its bytes")

// decodeBatch unpacks a batch of want records, calling fn with each.
func decodeBatch(b []byte, want int, fn func(i int, rec []byte) error) error {
	for i := 0; i < want; i++ {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return errBatch
		}
		if err := fn(i, b[k:k+int(n)]); err != nil {
			return err
		}
		b = b[k+int(n):]
	}
	if len(b) != 0 {
		return errBatch
	}
	return nil
}
