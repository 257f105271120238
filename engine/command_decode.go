package engine

import "strconv"

// DecodeCommand decodes one record, which must be all of src. Bytes that
// are not a record give an error, never a panic; the command holds no
// reference to src.
func DecodeCommand(src []byte) (Command, error) {
	d := decoder{src: src}
	if v := d.byte1(); d.err == nil && v != CommandFormat {
		d.off = 0
		d.fail("unknown format " + strconv.Itoa(int(v)))
	}
	c := d.cmd()
	if d.err == nil && d.off != len(src) {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	return c, nil
}
