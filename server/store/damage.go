package store

import (
	"fmt"
	"strings"
)

// DamageKind says what is wrong with a stretch of the data directory.
type DamageKind uint8

const (
	// DamagedRecord: a record fails its checksum or has a length no record
	// can have, and intact records follow it (in the same log file or in a
	// later one). A crash leaves damage only at the very end of the log
	// (a torn tail, which Open cuts); this is damaged media or a stray
	// write, and cutting here would drop the records after it.
	DamagedRecord DamageKind = iota + 1
	// DamagedHeader: a log file's header fails its checksum or names
	// another first record than the file's name. Its records can be intact.
	DamagedHeader
	// DamagedSnapshot: a snapshot fails its checksum. Snapshots are
	// written to a temporary file and renamed once synced, so a crash
	// never leaves one half-written under its name.
	DamagedSnapshot
	// BrokenChain: records are missing between the snapshot and the log
	// files (a file is gone), or two files claim the same records.
	BrokenChain
)

// Damage is one stretch of the data directory that recovery cannot use.
type Damage struct {
	Kind DamageKind
	// File is the file's name in the data directory.
	File string
	// Offset and Bytes delimit the damaged bytes in File (DamagedSnapshot:
	// the whole file, since its one checksum cannot say where).
	Offset, Bytes int64
	// Pos is the position of the first record lost (DamagedRecord,
	// BrokenChain); Records how many a repair gives up (placeholders it
	// writes in their place); Intact how many intact records follow in
	// the same file, which a repair keeps.
	Pos     Pos
	Records int
	Intact  int
	// Exact says Records is known: the next log file's first position
	// pins it. In the last file a damaged stretch counts as one record,
	// though it may have held more.
	Exact bool
	// Payload is the damaged record's bytes after its header, up to the
	// next intact record, for the caller to try to decode (the store does
	// not know what records mean). Nil for other kinds.
	Payload []byte
	// Version, for a DamagedSnapshot, is the format version its header
	// names when this build does not read it (0 when the checksum failed
	// instead): a newer Warren's snapshot, or a damaged byte there,
	// which the snapshot's checksum does not cover.
	Version uint16
	// Restored says Payload is the record as it was written: one changed
	// byte (in its length, its checksum or its payload) explains the
	// damage. Repair still sets it aside; this only says what was lost.
	Restored bool
}

// TornTail is the incomplete end of the log a crash in the middle of a
// write leaves: Open cuts it, and says so in Recovered.Notes.
type TornTail struct {
	File          string
	Offset, Bytes int64
	Pos           Pos    // the position the record would have had
	Payload       []byte // as in Damage
}

// Describe says in English and Simplified Chinese what is damaged.
func (d Damage) Describe() string {
	switch d.Kind {
	case DamagedRecord:
		return fmt.Sprintf("%s, offset 偏移 %d (%d bytes 字节): record %d fails its checksum, %d intact records follow 第 %[4]d 条记录校验失败，其后还有 %[5]d 条完好的记录",
			d.File, d.Offset, d.Bytes, d.Pos, d.Intact)
	case DamagedHeader:
		return fmt.Sprintf("%s, offset 偏移 %d (%d bytes 字节): the log file's header is damaged, its %d records are intact 日志文件头已损坏，其中 %[4]d 条记录完好",
			d.File, d.Offset, d.Bytes, d.Intact)
	case DamagedSnapshot:
		if d.Version != 0 {
			return fmt.Sprintf("%s, offset 偏移 6 (2 bytes 字节): the snapshot names format version %d, this Warren reads %d: a newer Warren wrote it, or those bytes are damaged 快照标明的格式版本为 %[2]d，本 Warren 只能读取 %[3]d：要么是更新的 Warren 写的，要么这两个字节已损坏",
				d.File, d.Version, formatVersion)
		}
		return fmt.Sprintf("%s, offset 偏移 %d (%d bytes 字节): the snapshot fails its checksum 快照校验失败",
			d.File, d.Offset, d.Bytes)
	case BrokenChain:
		return fmt.Sprintf("%s: records %d to %d are missing or held twice 第 %[2]d 至 %[3]d 条记录缺失或重复",
			d.File, d.Pos, d.Pos+Pos(max(d.Records, 1))-1)
	}
	return fmt.Sprintf("%s, offset 偏移 %d: damaged 已损坏", d.File, d.Offset)
}

// Report is what Check found in a data directory, or what Repair did.
type Report struct {
	Dir string
	// SnapshotPos is the snapshot a start loads (0: none); Last the last
	// record it replays; Records how many intact records that is.
	SnapshotPos Pos
	Last        Pos
	Records     int
	// Torn is the tail a start cuts, nil if none.
	Torn *TornTail
	// Damage is what makes Open refuse the directory; empty when it is
	// clean (a torn tail aside).
	Damage []Damage
	// CannotRepair says why Repair would refuse ("" when it can repair):
	// what is damaged is the only copy of state that nothing rebuilds.
	CannotRepair string
	// Written names the files Repair wrote (rewritten log files, the
	// damaged bytes set aside as *.damaged).
	Written []string

	l *layout // for Walk and Snapshot
}

// DamagedError is Open's refusal of a damaged directory. Open changes
// nothing in it before refusing; Check says more and Repair mends it.
type DamagedError struct{ Report *Report }

func (e *DamagedError) Error() string {
	var parts []string
	for i, d := range e.Report.Damage {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more 另有 %[1]d 处", len(e.Report.Damage)-i))
			break
		}
		parts = append(parts, d.Describe())
	}
	return "store: " + e.Report.Dir + " is damaged: " + strings.Join(parts, "; ")
}
