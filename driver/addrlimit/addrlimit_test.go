package addrlimit

import (
	"net"
	"testing"
)

// TestTakeAndRelease: a script of takes and releases against PerAddress 2
// and Total 3, each step with the answer it must get. Ports never matter;
// an IPv6 host counts by its /64, an IPv4-mapped address as the IPv4 one.
func TestTakeAndRelease(t *testing.T) {
	l := New(Limits{PerAddress: 2, Total: 3})
	claims := map[string]*Claim{}
	for i, step := range []struct {
		op, name, addr string // op take or release; name labels the claim
		ok             bool
	}{
		{"take", "a1", "127.0.0.2:1000", true},
		{"take", "a2", "127.0.0.2:1001", true},
		{"take", "", "127.0.0.2:1002", false}, // the address holds 2
		{"take", "", "[::ffff:127.0.0.2]:5", false},
		{"take", "b1", "127.0.0.1:9", true},
		{"take", "", "127.0.0.3:9", false}, // everyone holds 3
		{"release", "a1", "", true},
		{"release", "a1", "", true}, // twice is once
		{"take", "c1", "[2001:db8::1]:9", true},
		{"release", "b1", "", true},
		{"take", "c2", "[2001:db8::ffff]:9", true},
		{"release", "a2", "", true},
		{"take", "", "[2001:db8::2]:9", false}, // the /64 holds 2
		{"take", "d1", "[2001:db8:0:1::2]:9", true},
		{"take", "", "127.0.0.2:1", false}, // everyone holds 3 again
	} {
		switch step.op {
		case "take":
			addr, err := net.ResolveTCPAddr("tcp", step.addr)
			if err != nil {
				t.Fatal(err)
			}
			c, ok := l.Take(addr)
			if ok != step.ok {
				t.Fatalf("step %d: take %s: %v, want %v", i, step.addr, ok, step.ok)
			}
			if ok {
				claims[step.name] = c
			}
		case "release":
			claims[step.name].Release()
		}
	}
	if a, total := l.Held(&net.TCPAddr{IP: net.ParseIP("2001:db8::7")}); a != 2 || total != 3 {
		t.Fatalf("held %d of 3 by 2001:db8::/64 (want 2), %d in all", a, total)
	}
}

// TestAddressFromString: an address known only by its text (an HTTP
// request's RemoteAddr) counts as the same source as the TCP address.
func TestAddressFromString(t *testing.T) {
	l := New(Limits{PerAddress: 1})
	if _, ok := l.Take(&net.TCPAddr{IP: net.ParseIP("127.0.0.2"), Port: 1}); !ok {
		t.Fatal("first take refused")
	}
	if _, ok := l.Take(textAddr("127.0.0.2:2")); ok {
		t.Fatal("the same address by its text took a second place")
	}
	var nilLimiter *Limiter
	c, ok := nilLimiter.Take(textAddr("127.0.0.2:3"))
	if !ok {
		t.Fatal("a nil Limiter refused")
	}
	c.Release()
}

type textAddr string

func (a textAddr) Network() string { return "tcp" }
func (a textAddr) String() string  { return string(a) }
