package server

import (
	"fmt"
	"strings"

	"warren/server/store"
)

// errDamaged is startDurable's refusal of a damaged data directory: the
// broker does not start (an empty broker would lose what the files hold,
// and users such as guest with it), the directory is left exactly as it
// was, and the message says where the damage is and what to run.
func errDamaged(dir string, de *store.DamagedError) error {
	var b strings.Builder
	fmt.Fprintf(&b, "data directory 数据目录 %s is damaged; nothing in it was changed and the broker did not start 已损坏；其中的文件均未改动，代理未启动:\n", dir)
	for i, d := range de.Report.Damage {
		if i == maxDamageLines {
			fmt.Fprintf(&b, "  and %d more 另有 %[1]d 处\n", len(de.Report.Damage)-i)
			break
		}
		fmt.Fprintf(&b, "  %s\n", d.Describe())
	}
	fmt.Fprintf(&b, "  to see what a repair would lose 查看修复会丢失什么: warren store check --data %s\n", dir)
	fmt.Fprintf(&b, "  to keep every intact record and set the damaged bytes aside 保留所有完好的记录并把损坏的字节另存: warren store repair --data %s", dir)
	return &damagedError{msg: b.String(), de: de}
}

// maxDamageLines bounds the damage the refusal lists (a zeroed stretch of
// a disk can hit many files); warren store check lists it all.
const maxDamageLines = 10

type damagedError struct {
	msg string
	de  *store.DamagedError
}

func (e *damagedError) Error() string { return e.msg }
func (e *damagedError) Unwrap() error { return e.de }
