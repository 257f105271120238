package server

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultDiskFreeLimit is RabbitMQ's default disk_free_limit: 50 MB.
const DefaultDiskFreeLimit = "50MB"

// maxDiskFreeLimit bounds --disk-free-limit: 1 EiB, far above any disk,
// and far from overflowing the byte counts it is compared with.
const maxDiskFreeLimit = 1 << 60

// ParseDiskFreeLimit reads --disk-free-limit in the forms RabbitMQ's
// disk_free_limit takes: bytes ("50000000"), bytes with one of RabbitMQ's
// information units ("50MB", "1GB", "512MiB", "2G": k K kiB KiB kib KIB
// are 1024, kB KB kb Kb are 1000, and likewise for M and G), or a
// multiple of the machine's memory, "mem_relative:1.5" (RabbitMQ's
// {mem_relative, 1.5}, disk_free_limit.relative in rabbitmq.conf). 0
// turns the disk alarm off. totalMemory is the machine's memory in bytes,
// 0 where it is unknown.
func ParseDiskFreeLimit(s string, totalMemory int64) (int64, error) {
	if r, ok := strings.CutPrefix(s, "mem_relative:"); ok {
		f, err := strconv.ParseFloat(r, 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 100 {
			return 0, fmt.Errorf("--disk-free-limit %q: the ratio after mem_relative: must be a number from 0 to 100 mem_relative: 之后的比例必须是 0 到 100 之间的数", s)
		}
		if totalMemory <= 0 {
			return 0, fmt.Errorf("--disk-free-limit %q: the machine's memory cannot be read here, give a size such as 1GB 无法读取本机内存大小，请给出绝对大小，例如 1GB", s)
		}
		return int64(math.Round(f * float64(totalMemory))), nil
	}
	digits := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	mult, ok := informationUnits[s[len(digits):]]
	n, err := strconv.ParseUint(digits, 10, 64)
	if !ok || err != nil || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, fmt.Errorf("--disk-free-limit %q: want bytes (50000000), a size with a unit (50MB, 1GB, 512MiB) or mem_relative:RATIO (1.0: as much as the machine's memory) 应为字节数（50000000）、带单位的大小（50MB、1GB、512MiB）或 mem_relative:比例（1.0 即与本机内存一样大）", s)
	}
	if n > maxDiskFreeLimit/uint64(mult) {
		return 0, fmt.Errorf("--disk-free-limit %q: at most 1 EiB 最大为 1 EiB", s)
	}
	return int64(n) * mult, nil
}

// informationUnits are the unit suffixes RabbitMQ's
// rabbit_resource_monitor_misc:parse_information_unit accepts, each with
// its multiplier ("" is plain bytes).
var informationUnits = map[string]int64{
	"":  1,
	"k": 1 << 10, "K": 1 << 10, "kiB": 1 << 10, "KiB": 1 << 10, "kib": 1 << 10, "KIB": 1 << 10,
	"m": 1 << 20, "M": 1 << 20, "MiB": 1 << 20, "mib": 1 << 20, "MIB": 1 << 20,
	"g": 1 << 30, "G": 1 << 30, "GiB": 1 << 30, "gib": 1 << 30, "GIB": 1 << 30,
	"kB": 1e3, "KB": 1e3, "kb": 1e3, "Kb": 1e3,
	"MB": 1e6, "mb": 1e6, "Mb": 1e6,
	"GB": 1e9, "gb": 1e9, "Gb": 1e9,
}
