package server

import (
	"strings"
	"testing"
)

// TestParseDiskFreeLimit: RabbitMQ's forms of disk_free_limit, and clear
// refusals of everything else.
func TestParseDiskFreeLimit(t *testing.T) {
	const mem = 8 << 30
	for _, c := range []struct {
		in   string
		want int64
		err  string // part of the error; "" for none
	}{
		{"50MB", 50_000_000, ""},
		{"50000000", 50_000_000, ""},
		{"1GB", 1_000_000_000, ""},
		{"1gb", 1_000_000_000, ""},
		{"512MiB", 512 << 20, ""},
		{"2G", 2 << 30, ""},
		{"100k", 100 << 10, ""},
		{"100kB", 100_000, ""},
		{"100KIB", 100 << 10, ""},
		{"0", 0, ""},
		{"mem_relative:1.0", mem, ""},
		{"mem_relative:0.5", mem / 2, ""},
		{"mem_relative:0", 0, ""},
		{"", 0, "want bytes"},
		{"MB", 0, "want bytes"},
		{"50 MB", 0, "want bytes"},
		{"50mB", 0, "want bytes"}, // not in RabbitMQ's pattern either
		{"50TB", 0, "want bytes"},
		{"-5", 0, "want bytes"},
		{"1.5GB", 0, "want bytes"},
		{"2000000000GB", 0, "at most 1 EiB"},
		{"mem_relative:", 0, "0 到 100"},
		{"mem_relative:-1", 0, "from 0 to 100"},
		{"mem_relative:101", 0, "from 0 to 100"},
		{"mem_relative:NaN", 0, "from 0 to 100"},
	} {
		got, err := ParseDiskFreeLimit(c.in, mem)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("%q: %d, %v; want %d", c.in, got, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: %d, %v; want an error with %q", c.in, got, err, c.err)
		}
	}
	if _, err := ParseDiskFreeLimit("mem_relative:1.0", 0); err == nil || !strings.Contains(err.Error(), "1GB") {
		t.Errorf("relative with unknown memory: %v", err)
	}
}
