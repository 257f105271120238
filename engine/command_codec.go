package engine

// CommandFormat is the first byte of every command record: the version of
// the encoding below. A future format gets a new number, so a reader can
// tell which one a log (or one record of it) was written in, and refuse
// what it does not know rather than misread it.
//
// A record is: CommandFormat, the kind (CommandKind), then the command's
// fields in declaration order. Integers are varints (zig-zag for signed
// ones), strings and byte slices are length-prefixed, booleans are one
// byte 0 or 1; tables, properties and permissions are written as
// wire.go and command_values.go describe. Nothing depends on map order, the platform
// or the time, so the same command is the same bytes natively and in wasm.
const CommandFormat = 1

// AppendCommand appends c's record to dst and returns the extended slice.
// It fails only for a table value that is not an AMQP field value (see
// Table), or nesting deeper than 64; dst is then returned unchanged.
func AppendCommand(dst []byte, c Command) ([]byte, error) {
	e := encoder{buf: dst}
	e.buf = append(e.buf, CommandFormat)
	e.cmd(c)
	if e.err != nil {
		return dst, e.err
	}
	return e.buf, nil
}

// tag writes a command's kind.
func (e *encoder) tag(k CommandKind) { e.buf = append(e.buf, byte(k)) }
