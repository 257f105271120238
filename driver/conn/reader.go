package conn

import (
	"errors"
	"io"
	"os"
	"time"

	"warren/engine/amqp"
)

// command is one complete inbound command, or a heartbeat.
type command struct {
	amqp.Command
	heartbeat bool
}

// reader turns the transport's bytes into commands with the codec's
// sans-I/O frame reader and content assembler.
type reader struct {
	src io.Reader
	fr  *amqp.FrameReader
	asm *amqp.Assembler
	buf []byte
	// open is set once connection.open has succeeded; before that only
	// channel 0 may carry frames (see next).
	open bool

	// Heartbeat detection, once the connection is open (see
	// watchLiveness): the transport's read deadline, pushed forward by
	// every read that brings bytes.
	deadline  Transport
	timeout   time.Duration // silence after which the client is gone
	renewedAt time.Time

	// t and handshakeAt are the transport and its deadline before the
	// connection opens (the handshake timeout); wake is the owner's
	// wake-up, which ends a read early (wake.go).
	t           Transport
	handshakeAt time.Time
	wake        *wakeup
}

func newReader(t Transport, cfg *Config, wake *wakeup) *reader {
	return &reader{
		src: t, t: t, wake: wake,
		fr:  amqp.NewFrameReader(amqp.ReaderConfig{}),
		asm: amqp.NewAssembler(amqp.AssemblerConfig{MaxMessageSize: cfg.MaxMessageSize}),
		buf: make([]byte, minReadBuffer),
	}
}

// A connection reads into a buffer of minReadBuffer bytes at first, which
// doubles, up to maxReadBuffer, each time a read fills it: a client that
// pipelines gets large reads after a few, and an idle connection holds 4
// KiB rather than 64 (a thousand idle connections held 64 MB of them,
// warren-bench idle-memory).
const (
	minReadBuffer = 4 << 10
	maxReadBuffer = 64 << 10
)

// fill reads once from the transport into the frame reader. A wake-up
// ends it with errWoken; so does one that came before it began.
func (r *reader) fill() error {
	if r.wake.woken.Load() {
		return errWoken
	}
	n, err := r.src.Read(r.buf)
	for n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
		if r.wake.woken.Load() {
			return errWoken
		}
		if at := r.intended(); !at.IsZero() && !time.Now().Before(at) {
			break // the deadline itself: the handshake timeout or silence
		}
		// A wake-up's deadline, set after the owner had taken the
		// inbox: put the deadline back and read again.
		r.wake.clear(r.restoreDeadline)
		n, err = r.src.Read(r.buf)
	}
	if n > 0 {
		r.fr.Feed(r.buf[:n])
		if n == len(r.buf) && n < maxReadBuffer {
			// A new array: the frame reader may still be reading the
			// old one (Feed does not copy).
			r.buf = make([]byte, 2*n)
		}
		r.alive()
		return nil
	}
	if err == nil {
		return nil
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF
	}
	return err
}

// setHandshakeDeadline bounds the reads before connection.open.
func (r *reader) setHandshakeDeadline(at time.Time) {
	r.handshakeAt = at
	r.t.SetReadDeadline(at)
}

// intended is the read deadline the reader wants (zero: none): the
// handshake's, or the liveness one.
func (r *reader) intended() time.Time {
	if r.deadline != nil {
		return r.renewedAt.Add(r.timeout + r.timeout/16)
	}
	return r.handshakeAt
}

// restoreDeadline puts back the read deadline a wake-up moved.
func (r *reader) restoreDeadline() { r.t.SetReadDeadline(r.intended()) }

// watchLiveness starts heartbeat detection: the client is taken as gone
// when nothing at all (a heartbeat or any other frame) has arrived for
// silenceMs, the machine's SilenceLimitMs (two intervals, as RabbitMQ's
// receiver decides); the read deadline is the timer. 0 (heartbeats off)
// clears the handshake's deadline.
func (r *reader) watchLiveness(t Transport, silenceMs int64) {
	r.handshakeAt = time.Time{}
	if silenceMs == 0 {
		t.SetReadDeadline(time.Time{})
		return
	}
	r.deadline = t
	r.timeout = time.Duration(silenceMs) * time.Millisecond
	r.renewedAt = time.Time{}
	r.alive()
}

// alive pushes the read deadline forward after bytes arrived. Setting a
// deadline is a system call, so it is renewed at most every sixteenth of
// the timeout, and set that much later than the timeout: the client always
// has at least two whole intervals.
func (r *reader) alive() {
	if r.deadline == nil {
		return
	}
	slack := r.timeout / 16
	now := time.Now()
	if now.Sub(r.renewedAt) < slack {
		return
	}
	r.deadline.SetReadDeadline(now.Add(r.timeout + slack))
	r.renewedAt = now
}

// protocolHeader reads the 8-byte "AMQP\x00\x00\x09\x01"; any other bytes
// are an *amqp.ProtocolHeaderError.
func (r *reader) protocolHeader() error {
	for {
		ok, err := r.fr.ReadProtocolHeader()
		if err != nil || ok {
			return err
		}
		if err := r.fill(); err != nil {
			return err
		}
	}
}

// opened lets frames on channels other than 0 through.
func (r *reader) opened() { r.open = true }

// setFrameMax applies the negotiated frame_max.
func (r *reader) setFrameMax(n uint32) { r.fr.SetFrameMax(n) }

// next returns the next command, reading more bytes as needed.
func (r *reader) next() (command, error) {
	for {
		f, ok, err := r.fr.Next()
		if err != nil {
			return command{}, err
		}
		if !ok {
			if err := r.fill(); err != nil {
				return command{}, err
			}
			continue
		}
		if !r.open && f.Channel != 0 {
			// rabbit_reader refuses any frame on a channel before
			// connection.open, so nothing is assembled for a client
			// that has not logged in.
			return command{}, amqp.UnexpectedFrameError(f)
		}
		if amqp.IsHeartbeat(f) {
			return command{heartbeat: true}, nil
		}
		cmd, done, err := r.asm.Add(f)
		if err != nil {
			return command{}, err
		}
		if done {
			return command{Command: cmd}, nil
		}
	}
}

// nextBuffered returns the next command if the bytes already read hold
// one, without reading more; ok is false when they do not.
func (r *reader) nextBuffered() (cmd command, ok bool, err error) {
	for {
		f, got, err := r.fr.Next()
		if err != nil || !got {
			return command{}, false, err
		}
		if amqp.IsHeartbeat(f) {
			return command{heartbeat: true}, true, nil
		}
		c, done, err := r.asm.Add(f)
		if err != nil {
			return command{}, false, err
		}
		if done {
			return command{Command: c}, true, nil
		}
	}
}
