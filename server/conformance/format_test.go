package main

import (
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

func TestTypedValue(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{int32(5), "signedint:5"},
		{int64(5), "long:5"},
		{"x", `longstr:"x"`},
		{nil, "void"},
		{time.Now(), "timestamp:<time>"},
		{[]any{int16(1), true}, "array[short:1, bool:true]"},
		{amqp.Table{"b": uint8(1), "a": int8(-1)}, "table{a=byte:-1, b=unsignedbyte:1}"},
	} {
		if got := typedValue(tc.v); got != tc.want {
			t.Errorf("typedValue(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestNormalise(t *testing.T) {
	for in, want := range map[string]string{
		"no queue 'cfab12.s.q' in vhost '/'":                    "no queue 'q' in vhost '/'",
		`name="amq.gen-Lp6wmAT5qfqirO2zCNl0KA" x`:               `name="amq.gen-*" x`,
		`consumer="amq.ctag-abc_DEF-1"`:                         `consumer="amq.ctag-*"`,
		`consumer="ctag-/tmp/go-build1/exe/conformance-17" tag`: `consumer="ctag-<client>" tag`,
	} {
		if got := normalise(in, "cfab12.s."); got != want {
			t.Errorf("normalise(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBodyText(t *testing.T) {
	if got := bodyText([]byte("short")); got != `"short"` {
		t.Errorf("short body: %s", got)
	}
	long := make([]byte, maxBodyText+1)
	if got := bodyText(long); got[:9] != "<65 bytes" {
		t.Errorf("long body: %s", got)
	}
}
