package server

import (
	"errors"
	"net"
	"strings"
	"testing"
)

// A taken address is refused with both languages and the way out; the
// error still unwraps to the system's.
func TestListenSaysAnAddressIsTaken(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	_, err = listen("AMQP", "amqp", "AMQP", addr)
	if err == nil {
		t.Fatal("a second listener on a held address was opened")
	}
	for _, want := range []string{"AMQP address " + addr + " is in use by another program", "AMQP 地址 " + addr + " 已被其他程序占用", "warren serve --amqp ADDR", "make run AMQP=ADDR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	var le *listenError
	if !errors.As(err, &le) {
		t.Errorf("error %T is not a *listenError", err)
	}
	ln, err := listen("HTTP", "http", "HTTP", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("a free address: %v", err)
	}
	ln.Close()
}
