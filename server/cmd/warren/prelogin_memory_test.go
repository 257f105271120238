package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"warren/engine/amqp"
)

// TestMain lets a test run `warren serve` as a process of its own: the test
// binary re-executes itself with WARREN_TEST_SERVE=1, and then runs the
// command line it was given instead of the tests, exactly as the warren
// binary would.
func TestMain(m *testing.M) {
	if os.Getenv("WARREN_TEST_SERVE") == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// servedProcess is a `warren serve` running in a child process.
type servedProcess struct {
	cmd            *exec.Cmd
	amqpAddr, http string
}

// startServe starts `warren serve` on loopback ports the kernel picks and
// reads the addresses from its banner.
func startServe(t *testing.T, args ...string) *servedProcess {
	t.Helper()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to read the server's memory")
	}
	// In memory unless the test names a data directory (a later --data wins).
	args = append([]string{"serve", "--amqp", "127.0.0.1:0", "--http", "127.0.0.1:0", "--data", ""}, args...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "WARREN_TEST_SERVE=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &servedProcess{cmd: cmd}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if _, addr, ok := strings.Cut(line, "amqp://guest:guest@"); ok {
			p.amqpAddr = strings.TrimSuffix(addr, "/")
		}
		if _, addr, ok := strings.Cut(line, "ws://"); ok {
			p.http = strings.TrimSuffix(addr, "/amqp")
		}
		if strings.HasPrefix(line, "Press Ctrl-C") {
			break
		}
	}
	if p.amqpAddr == "" || p.http == "" {
		t.Fatalf("no addresses in the banner (%v)", sc.Err())
	}
	go io.Copy(io.Discard, out)
	return p
}

// memory reads the process's resident set size and its peak (VmRSS and
// VmHWM in /proc/PID/status), in bytes.
func (p *servedProcess) memory(t *testing.T) (rss, peak int64) {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return rss, peak
}

// stream writes prefix, then chunk over and over up to total bytes, and
// reports how much got written before the server closed the connection
// (err is nil if everything was written).
func stream(nc net.Conn, prefix []byte, total int, chunk []byte) (int, error) {
	nc.SetWriteDeadline(time.Now().Add(20 * time.Second))
	if _, err := nc.Write(prefix); err != nil {
		return 0, err
	}
	sent := 0
	for sent < total {
		n, err := nc.Write(chunk)
		sent += n
		if err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// repeat is n copies of frame, one after the other.
func repeat(frame []byte, n int) []byte {
	var b []byte
	for range n {
		b = append(b, frame...)
	}
	return b
}

// webSocketUpgrade opens a WebSocket to /amqp by hand, so that the test can
// write a frame header announcing any length.
func webSocketUpgrade(t *testing.T, httpAddr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", httpAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	fmt.Fprintf(nc, "GET /amqp HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", httpAddr)
	br := bufio.NewReader(nc)
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 101 ") {
		t.Fatalf("upgrade: %q %v", status, err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\r\n" {
			return nc
		}
	}
}

// webSocketBinaryHeader is the header of a final, masked binary WebSocket
// frame of n bytes. The mask key is zero, so the payload goes as it is.
func webSocketBinaryHeader(n uint64) []byte {
	h := []byte{0x82, 0x80 | 127}
	h = binary.BigEndian.AppendUint64(h, n)
	return append(h, 0, 0, 0, 0)
}

// TestPreLoginMemoryBounded: a client that has not logged in cannot move
// the server's memory by more than a few MiB. Against a `warren serve`
// process it sends a WebSocket message announcing 400 MB, a TCP frame
// announcing 400 MB, and a publish on channel 1 with a 16 MiB body; each
// connection must be closed long before 64 MiB are written, and the
// server's peak resident set must stay within a few MiB of what it was.
func TestPreLoginMemoryBounded(t *testing.T) {
	p := startServe(t)
	const sendAtMost = 64 << 20
	const allowedGrowth = 4 << 20

	// Warm up: one connection of each kind, so that the baseline includes
	// what any connection costs.
	for _, nc := range []net.Conn{webSocketUpgrade(t, p.http), dialTCP(t, p.amqpAddr)} {
		nc.Close()
	}
	rss0, peak0 := p.memory(t)

	heartbeats := repeat(amqp.AppendFrame(nil, amqp.FrameHeartbeat, 0, nil), 8192)
	zeros := make([]byte, 64<<10)

	huge := uint32(400 << 20)
	bigFrame := append(amqp.ProtocolHeader[:], amqp.FrameMethod, 0, 0)
	bigFrame = binary.BigEndian.AppendUint32(bigFrame, huge)

	publish, _ := amqp.AppendMethodFrame(amqp.ProtocolHeader[:], 1, &amqp.BasicPublish{RoutingKey: "q"})
	publish, _ = amqp.AppendContentHeaderFrame(publish, 1, amqp.ClassBasic, 16<<20, amqp.Properties{})
	bodyFrames := repeat(amqp.AppendFrame(nil, amqp.FrameBody, 1, make([]byte, 4096)), 16)

	for _, tc := range []struct {
		name   string
		conn   func() net.Conn
		prefix []byte
		chunk  []byte
	}{
		// A protocol header message, then one binary message announcing
		// 400 MB of heartbeat frames.
		{"websocket 400 MB message", func() net.Conn { return webSocketUpgrade(t, p.http) },
			append(append(webSocketBinaryHeader(8), amqp.ProtocolHeader[:]...), webSocketBinaryHeader(uint64(huge))...), heartbeats},
		{"tcp 400 MB frame", func() net.Conn { return dialTCP(t, p.amqpAddr) }, bigFrame, zeros},
		{"tcp publish before login", func() net.Conn { return dialTCP(t, p.amqpAddr) }, publish, bodyFrames},
	} {
		sent, err := stream(tc.conn(), tc.prefix, sendAtMost, tc.chunk)
		if err == nil {
			t.Errorf("%s: the server read all %d MiB without closing the connection", tc.name, sendAtMost>>20)
		} else if !isClosedByPeer(err) {
			t.Errorf("%s: %v after %d bytes, want the server to close the connection", tc.name, err, sent)
		}
		t.Logf("%s: %d KiB written before the server closed the connection", tc.name, sent>>10)
	}
	rss1, peak1 := p.memory(t)
	t.Logf("server RSS %d KiB -> %d KiB, peak %d KiB -> %d KiB", rss0>>10, rss1>>10, peak0>>10, peak1>>10)
	if grew := max(peak1-peak0, rss1-rss0); grew > allowedGrowth {
		t.Errorf("the server's memory grew by %d KiB before any login, want under %d KiB", grew>>10, allowedGrowth>>10)
	}
}

func dialTCP(t *testing.T, addr string) net.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// isClosedByPeer says whether a write failed because the server closed the
// connection (reset, broken pipe), not because of a timeout.
func isClosedByPeer(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
