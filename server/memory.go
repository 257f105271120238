package server

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// DefaultMemoryHighWatermark is RabbitMQ's default memory alarm: 40% of the
// machine's memory (vm_memory_high_watermark.relative = 0.4), or 1 GiB
// where that cannot be read.
func DefaultMemoryHighWatermark() int64 {
	if total := TotalMemory(); total > 0 {
		return total * 4 / 10
	}
	return 1 << 30
}

// TotalMemory is the machine's memory in bytes, read from /proc/meminfo;
// 0 where that cannot be read.
func TotalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			if kb, err := strconv.ParseInt(fields[1], 10, 64); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
