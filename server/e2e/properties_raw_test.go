package e2e

import (
	"bytes"
	"encoding/binary"
	"net"
	"net/url"
	"testing"
	"time"

	"warren/engine/amqp"
)

// TestRawPropertiesRoundTrip speaks raw frames over TCP: it publishes
// each basic property present but zero or empty, then all of them
// together, and checks that basic.get-ok's content header carries the
// same flags and property bytes. With WARREN_REFERENCE_AMQP set it runs
// against that RabbitMQ too. Observed, RabbitMQ 3.10.8: every case came
// back byte for byte as sent, cluster-id included. Expiration, user-id
// and delivery-mode are sent with values: RabbitMQ refuses them present
// but empty or zero (driver/conn's TestPropertiesRefused).
func TestRawPropertiesRoundTrip(t *testing.T) {
	type prop struct {
		flag  uint16
		bytes string
	}
	empty := []prop{
		{amqp.FlagContentType, "\x00"}, {amqp.FlagContentEncoding, "\x00"}, {amqp.FlagHeaders, "\x00\x00\x00\x00"},
		{amqp.FlagDeliveryMode, "\x01"}, {amqp.FlagPriority, "\x00"}, {amqp.FlagCorrelationID, "\x00"},
		{amqp.FlagReplyTo, "\x00"}, {amqp.FlagExpiration, "\x0560000"}, {amqp.FlagMessageID, "\x00"},
		{amqp.FlagTimestamp, "\x00\x00\x00\x00\x00\x00\x00\x00"}, {amqp.FlagType, "\x00"}, {amqp.FlagUserID, "\x05guest"},
		{amqp.FlagAppID, "\x00"}, {amqp.FlagClusterID, "\x00"},
	}
	encode := func(ps ...prop) []byte {
		var flags uint16
		var rest []byte
		for _, p := range ps {
			flags |= p.flag
			rest = append(rest, p.bytes...)
		}
		return append(binary.BigEndian.AppendUint16(nil, flags), rest...)
	}
	cases := [][]byte{encode()}
	for _, p := range empty {
		cases = append(cases, encode(p))
	}
	cases = append(cases, encode(empty...), encode(prop{amqp.FlagClusterID, "\x02c1"}))
	for name, u := range propertyBrokers(t) {
		t.Run(name, func(t *testing.T) {
			c := rawDial(t, u)
			c.method(1, &amqp.ChannelOpen{})
			c.expect(&amqp.ChannelOpenOk{})
			c.method(1, &amqp.QueueDeclare{Queue: "props-raw", AutoDelete: true})
			c.expect(&amqp.QueueDeclareOk{})
			for _, want := range cases {
				c.method(1, &amqp.BasicPublish{RoutingKey: "props-raw"})
				header := binary.BigEndian.AppendUint16(nil, amqp.ClassBasic)
				header = binary.BigEndian.AppendUint16(header, 0)
				header = binary.BigEndian.AppendUint64(header, 1)
				c.send(amqp.AppendFrame(amqp.AppendFrame(nil, amqp.FrameHeader, 1, append(header, want...)), amqp.FrameBody, 1, []byte("x")))
				c.method(1, &amqp.BasicGet{Queue: "props-raw", NoAck: true})
				c.expect(&amqp.BasicGetOk{})
				f := c.frame()
				if f.Type != amqp.FrameHeader || len(f.Payload) < 12 {
					t.Fatalf("after get-ok: frame type %d", f.Type)
				}
				if got := f.Payload[12:]; !bytes.Equal(got, want) {
					t.Errorf("sent properties % x, received % x", want, got)
				}
				c.frame() // the body
			}
			c.method(1, &amqp.QueueDelete{Queue: "props-raw"})
			c.expect(&amqp.QueueDeleteOk{})
		})
	}
}

// rawConn is a client that speaks frames over a socket, for what the
// client libraries cannot send.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	fr *amqp.FrameReader
}

// rawDial connects to an AMQP URL and logs in with PLAIN, its user and
// password, to the default vhost.
func rawDial(t *testing.T, rawURL string) *rawConn {
	t.Helper()
	u, err := url.Parse(rawURL)
	must(t, err)
	nc, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	must(t, err)
	t.Cleanup(func() { nc.Close() })
	c := &rawConn{t: t, nc: nc, fr: amqp.NewFrameReader(amqp.ReaderConfig{NoProtocolHeader: true, FrameMax: 1 << 17})}
	pass, _ := u.User.Password()
	c.send(amqp.ProtocolHeader[:])
	c.expect(&amqp.ConnectionStart{})
	c.method(0, &amqp.ConnectionStartOk{Mechanism: "PLAIN", Response: "\x00" + u.User.Username() + "\x00" + pass, Locale: "en_US"})
	tune := c.expect(&amqp.ConnectionTune{}).(*amqp.ConnectionTune)
	c.method(0, &amqp.ConnectionTuneOk{ChannelMax: tune.ChannelMax, FrameMax: 1 << 17})
	c.method(0, &amqp.ConnectionOpen{VirtualHost: "/"})
	c.expect(&amqp.ConnectionOpenOk{})
	return c
}

func (c *rawConn) send(b []byte) {
	c.t.Helper()
	must(c.t, c.nc.SetWriteDeadline(time.Now().Add(5*time.Second)))
	_, err := c.nc.Write(b)
	must(c.t, err)
}

func (c *rawConn) method(ch uint16, m amqp.Method) {
	c.t.Helper()
	b, err := amqp.AppendMethodFrame(nil, ch, m)
	must(c.t, err)
	c.send(b)
}

// frame returns the next frame other than a heartbeat.
func (c *rawConn) frame() amqp.Frame {
	c.t.Helper()
	buf := make([]byte, 4096)
	for {
		f, ok, err := c.fr.Next()
		must(c.t, err)
		if ok && f.Type != amqp.FrameHeartbeat {
			f.Payload = append([]byte(nil), f.Payload...)
			return f
		}
		if ok {
			continue
		}
		must(c.t, c.nc.SetReadDeadline(time.Now().Add(5*time.Second)))
		n, err := c.nc.Read(buf)
		must(c.t, err)
		c.fr.Feed(append([]byte(nil), buf[:n]...))
	}
}

// expect reads a method frame and fails unless it is want's method.
func (c *rawConn) expect(want amqp.Method) amqp.Method {
	c.t.Helper()
	f := c.frame()
	if f.Type != amqp.FrameMethod {
		c.t.Fatalf("frame type %d, want %s", f.Type, want.Name())
	}
	m, err := amqp.DecodeMethod(f.Payload)
	must(c.t, err)
	if m.Name() != want.Name() {
		c.t.Fatalf("got %s %+v, want %s", m.Name(), m, want.Name())
	}
	return m
}
