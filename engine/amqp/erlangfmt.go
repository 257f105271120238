package amqp

import (
	"strconv"
	"strings"
)

// RabbitMQ's frame error texts come from io_lib:format's ~p, which lays a
// term out for an 80-column line starting at the column where it is
// printed: a term that does not fit is broken over lines, each indented
// past the term's opening bracket. rabbit_reader sends the result as it
// is, newlines included, so the texts below are laid out the same way
// (observed, RabbitMQ 3.10.8, with raw frames; the limits are what it was
// seen to do, not io_lib_pretty's code).
const (
	// prettyBinaryFlat: a binary is printed on one line when it ends at
	// or before this column.
	prettyBinaryFlat = 81
	// prettyTupleFlat: the same for a tuple.
	prettyTupleFlat = 78
	// prettyFill: a broken binary puts as many bytes on a line as end at
	// or before this column (not counting the comma after them).
	prettyFill = 78
)

// prettyBinary is ~p of b printed at column col: <<"text">> when every byte
// is printable, else <<1,2,3>>, broken over lines when too long.
//
// Erlang also counts Latin-1 letters (bytes 160 to 255) as printable and
// then sends them as raw bytes, which are not UTF-8; those are shown as
// numbers here, so that a reply text is always valid UTF-8.
func prettyBinary(b []byte, col int) string {
	if q, ok := erlangQuoted(b); ok {
		return "<<" + q + ">>"
	}
	flat := erlangBinary(b, false)
	if col+len(flat) <= prettyBinaryFlat {
		return flat
	}
	var sb strings.Builder
	sb.WriteString("<<")
	at := col + 2
	for i, c := range b {
		n := strconv.Itoa(int(c))
		if i > 0 {
			sb.WriteByte(',')
			at++
			if at+len(n) > prettyFill {
				sb.WriteByte('\n')
				sb.WriteString(strings.Repeat(" ", col+2))
				at = col + 2
			}
		}
		sb.WriteString(n)
		at += len(n)
	}
	sb.WriteString(">>")
	return sb.String()
}

// prettyTuple is ~p at column col of a tuple of atoms and integers given
// flat, e.g. "{invalid_frame_end_marker,205}": broken after each element,
// the rest indented past the brace, when it does not fit.
func prettyTuple(flat string, col int) string {
	if col+len(flat) <= prettyTupleFlat || !strings.HasPrefix(flat, "{") {
		return flat
	}
	return strings.ReplaceAll(flat, ",", ",\n"+strings.Repeat(" ", col+1))
}

// erlangQuoted is b as Erlang's ~p quotes a printable binary, with its
// escapes (\n, \t, \e ...), or ok false when some byte is not printable.
func erlangQuoted(b []byte) (string, bool) {
	if len(b) == 0 {
		return "", false
	}
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c >= ' ' && c <= '~':
			sb.WriteByte(c)
		default:
			esc, ok := erlangEscapes[c]
			if !ok {
				return "", false
			}
			sb.WriteString(esc)
		}
	}
	sb.WriteByte('"')
	return sb.String(), true
}

// erlangEscapes are the control characters io_lib counts as printable, as
// ~p writes them.
var erlangEscapes = map[byte]string{
	'\n': `\n`, '\r': `\r`, '\t': `\t`, '\v': `\v`, '\b': `\b`, '\f': `\f`, 0x1b: `\e`,
}

// lastLineLen is the column after s: the length of its last line.
func lastLineLen(s string) int {
	return len(s) - 1 - strings.LastIndexByte(s, '\n')
}
