package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"warren/server/store"
)

const storeUsage = `Usage:
  warren store check [--data DIR]
        read the data directory without changing it and say what is
        damaged (file, offset, kind) and what a repair would lose (records,
        messages, declarations). Exit status: 0 clean (a torn tail, which
        a start cuts, is normal after a crash), 1 damaged, 2 usage, 3 the
        directory could not be read (missing, or in use by warren serve)
  warren store repair [--data DIR]
        keep every intact record before and after the damage, set the
        damaged bytes aside as <file>.<offset>.damaged beside the log and
        print what was lost; then warren serve starts again. It changes
        nothing when what is damaged is the only copy of the state (a
        snapshot with no older one, a missing log file). Exit status 0
        repaired (or nothing to repair), 1 not repairable or failed
DIR defaults to warren serve's (--data); give --max-message-size as
warren serve was given it, if it was.
用法：warren store check 只读检查数据目录，报告损坏之处及修复将丢失的内容；
warren store repair 保留损坏前后所有完好的记录，把损坏的字节另存为 *.damaged，并报告丢失了什么。
`

// runStore is `warren store`: check and repair a data directory that
// warren serve refused as damaged (package store says what counts).
func runStore(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, storeUsage)
		return 2
	}
	switch args[0] {
	case "check", "repair":
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, storeUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "warren store: unknown command %q\n\n%s", args[0], storeUsage)
		return 2
	}
	fs := flag.NewFlagSet("warren store "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data", defaultDataDir(), "the data directory (as warren serve --data)")
	maxMsg := fs.Uint64("max-message-size", 16<<20, "as warren serve --max-message-size: larger records are damage")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *dir == "" {
		fmt.Fprint(stderr, storeUsage)
		return 2
	}
	opts := store.Options{MaxRecordBytes: recordLimit(*maxMsg)}
	if args[0] == "check" {
		return storeCheck(*dir, opts, stdout, stderr)
	}
	return storeRepair(*dir, opts, stdout, stderr)
}

func storeCheck(dir string, opts store.Options, stdout, stderr io.Writer) int {
	r, err := store.Check(dir, opts)
	if err != nil {
		fmt.Fprintf(stderr, "warren store check: %v\n", err)
		return 3
	}
	fmt.Fprint(stdout, describeReport(r))
	if t := r.Torn; t != nil {
		l := newLoss()
		l.add(store.Damage{Kind: store.DamagedRecord, Records: 1, Exact: true, Payload: t.Payload})
		fmt.Fprintf(stdout, "a start cuts 启动时截掉:\n%s", l)
	}
	if len(r.Damage) == 0 {
		fmt.Fprintln(stdout, "clean: warren serve starts from it 完好：warren serve 可以直接启动")
		return 0
	}
	if r.CannotRepair != "" {
		fmt.Fprintf(stdout, "a repair cannot mend it 无法修复: %s\n", r.CannotRepair)
		return 1
	}
	fmt.Fprintf(stdout, "a repair would lose 修复将丢失:\n%s", lossReport(r))
	fmt.Fprintf(stdout, "to repair 修复: warren store repair --data %s\n", dir)
	return 1
}

func storeRepair(dir string, opts store.Options, stdout, stderr io.Writer) int {
	// What is lost is worked out from the files before Repair changes them.
	var lost string
	if before, err := store.Check(dir, opts); err == nil && len(before.Damage) > 0 && before.CannotRepair == "" {
		lost = lossReport(before)
	}
	r, err := store.Repair(dir, opts)
	if errors.Is(err, store.ErrCannotRepair) {
		fmt.Fprint(stdout, describeReport(r))
		fmt.Fprintf(stderr, "warren store repair: nothing was changed, the damage cannot be repaired 未做任何改动，损坏无法修复: %s\n", r.CannotRepair)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "warren store repair: %v\n", err)
		return 1
	}
	if len(r.Damage) == 0 && r.Torn == nil {
		fmt.Fprintf(stdout, "data directory 数据目录 %s: clean, nothing to repair 完好，无需修复\n", dir)
		return 0
	}
	fmt.Fprint(stdout, describeReport(r))
	if lost == "" {
		lost = "  records 记录: 0\n"
	}
	fmt.Fprintf(stdout, "repaired 已修复; lost 丢失:\n%s", lost)
	fmt.Fprintf(stdout, "written 已写入: %s\n", strings.Join(r.Written, ", "))
	fmt.Fprintf(stdout, "start it 启动: warren serve --data %s\n", dir)
	return 0
}

// describeReport says what the directory holds and what is wrong with it.
func describeReport(r *store.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "data directory 数据目录 %s\n", r.Dir)
	if r.SnapshotPos > 0 {
		fmt.Fprintf(&b, "  snapshot 快照: after record %d 第 %[1]d 条记录之后\n", r.SnapshotPos)
	}
	fmt.Fprintf(&b, "  log 日志: %d records to replay, up to record %d 待重放 %[1]d 条记录，至第 %[2]d 条\n", r.Last-r.SnapshotPos, r.Last)
	if t := r.Torn; t != nil {
		fmt.Fprintf(&b, "  torn tail 残缺的末尾: %s, offset 偏移 %d (%d bytes 字节): a crash during a write leaves this; a start cuts it 写入时崩溃会留下这样的末尾，启动时会截掉\n", t.File, t.Offset, t.Bytes)
	}
	for _, d := range r.Damage {
		fmt.Fprintf(&b, "  damaged 已损坏: %s\n", d.Describe())
	}
	return b.String()
}
