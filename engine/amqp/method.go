package amqp

import "encoding/binary"

// Method is one AMQP method with its arguments, e.g. *QueueDeclare. Every
// method of the spec has a generated struct with named, typed fields
// (methods_gen.go); the connection layer switches on the concrete type.
type Method interface {
	// ClassID and MethodID are the method's ids on the wire (queue.declare
	// is 50, 10).
	ClassID() uint16
	MethodID() uint16
	// Name is the spec's name, e.g. "queue.declare".
	Name() string
	// Synchronous reports whether the sender waits for a reply (the spec's
	// "synchronous" flag: queue.declare expects queue.declare-ok).
	Synchronous() bool
	// HasContent reports whether a content header and body follow the
	// method: basic.publish, basic.return, basic.deliver, basic.get-ok.
	HasContent() bool
	// AppendArgs appends the encoded arguments (without class and method
	// ids). It fails only for values AMQP cannot carry: a shortstr longer
	// than 255 bytes, a table value of an unsupported Go type, a table
	// nested deeper than MaxTableDepth.
	AppendArgs(b []byte) ([]byte, error)
}

// methodInfo is one row of the dispatch table: what DecodeMethod needs to
// know about a (class, method) pair.
type methodInfo struct {
	name   string
	decode func(d *decoder) Method
}

func methodKey(classID, methodID uint16) uint32 {
	return uint32(classID)<<16 | uint32(methodID)
}

// DecodeMethod decodes a method frame's payload: class-id, method-id, then
// the arguments. It finds the decoder in a table indexed by (class, method),
// as http2 finds a frame parser by frame type. The result shares no memory
// with payload.
//
// Errors are *Error, all connection errors, with RabbitMQ's texts:
//
//	payload shorter than 4 bytes   501 "type 1, all octets = <<...>>: unknown_frame"
//	unknown class or method        503 "unknown method {99,10}" (RabbitMQ 3.10
//	                               drops the connection without a close)
//	arguments too short or long    501 "cannot decode <<...>>"
//	malformed field table          501 "cannot decode field table: ..."
//	shortstr not UTF-8             501 "Malformed UTF-8 in shortstr" (checked,
//	                               as RabbitMQ does, in methods without content)
func DecodeMethod(payload []byte) (Method, error) {
	var d decoder
	return decodeMethod(&d, payload)
}

// decodeMethod is DecodeMethod with a decoder of the caller's: an
// Assembler reuses one, since a decoder handed to a method's decode
// function through the table escapes to the heap.
func decodeMethod(d *decoder, payload []byte) (Method, error) {
	if len(payload) < 4 {
		return nil, frameError(FrameMethod, 0, payload, "unknown_frame")
	}
	classID := binary.BigEndian.Uint16(payload)
	methodID := binary.BigEndian.Uint16(payload[2:])
	info, ok := methodTable[methodKey(classID, methodID)]
	if !ok {
		return nil, newError(CommandInvalid, classID, methodID, "unknown method {%d,%d}", classID, methodID)
	}
	args := payload[4:]
	*d = decoder{b: args, recent: d.recent, slabs: d.slabs}
	m := info.decode(d)
	switch {
	case d.failed && d.reason != "":
		return nil, newError(FrameError, classID, methodID, "cannot decode field table: %s", d.reason)
	case d.failed || d.remaining() != 0:
		return nil, cannotDecode(classID, methodID, args)
	case d.badUTF8:
		// RabbitMQ raises this without naming the method.
		return nil, newError(FrameError, 0, 0, "Malformed UTF-8 in shortstr")
	}
	return m, nil
}

// MethodName returns the spec's name of a method, e.g. "queue.declare", or
// "" for ids the spec does not define.
func MethodName(classID, methodID uint16) string {
	return methodTable[methodKey(classID, methodID)].name
}
