package store

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// layout is what a read-only look at a data directory found: what Open
// loads, what it tidies (unfinished snapshots, a torn tail, obsolete
// files) and the damage that makes it refuse instead. inspect changes
// nothing, so that a directory Open refuses is left exactly as it was.
type layout struct {
	dir      string
	rec      *Recovered
	tmps     []string // unfinished snapshots and repairs (*.tmp)
	obsolete []string // files a snapshot made obsolete
	// tornFile is a last log file no longer than its header, which fails:
	// the crash came as the file was created, so it holds no records.
	tornFile string
	torn     *TornTail
	tornMend *mend // the torn file taken apart, for Repair
	damage   []Damage
	// seen[i] is how many intact chain records come before damage[i].
	seen      []int
	chainRecs int
	snaps     []string // damaged snapshots
	mends     []mend   // damaged log files taken apart, for Repair
	cannot    string
}

// mend is a damaged log file as Repair rewrites it: lost[i] placeholders
// stand in for the damaged piece i.
type mend struct {
	path string
	b    []byte
	m    segMap
	lost []int
}

func inspect(dir string, maxRecordBytes int) (*layout, error) {
	l := &layout{dir: dir, rec: &Recovered{maxRecordBytes: maxRecordBytes}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var snaps, segs []Pos
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") {
			l.tmps = append(l.tmps, name)
		} else if p, ok := parseName(name, "snap-", ".snap"); ok {
			snaps = append(snaps, p)
		} else if p, ok := parseName(name, "log-", ".wlog"); ok {
			segs = append(segs, p)
		}
	}
	slices.Sort(snaps)
	slices.Sort(segs)
	if err := l.pickSnapshot(snaps); err != nil {
		return nil, err
	}
	if err := l.chain(segs); err != nil {
		return nil, err
	}
	l.judge()
	return l, nil
}

// pickSnapshot takes the newest snapshot that checks out; older ones are
// obsolete, and newer ones that fail their checksum are damage.
func (l *layout) pickSnapshot(snaps []Pos) error {
	rec := l.rec
	for i := len(snaps) - 1; i >= 0; i-- {
		name := snapName(snaps[i])
		path := join(l.dir, name)
		if rec.Snapshot != nil {
			l.obsolete = append(l.obsolete, path)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pos, data, err := parseSnapshot(b)
		if err == nil && pos != snaps[i] {
			err = errCorrupt
		}
		var ve *versionError
		if errors.As(err, &ve) {
			l.addDamage(Damage{Kind: DamagedSnapshot, File: name, Bytes: int64(len(b)), Pos: snaps[i], Version: ve.found})
			l.snaps = append(l.snaps, path)
			continue
		}
		if errors.Is(err, errCorrupt) {
			l.addDamage(Damage{Kind: DamagedSnapshot, File: name, Bytes: int64(len(b)), Pos: snaps[i]})
			l.snaps = append(l.snaps, path)
			continue
		} else if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rec.Snapshot, rec.SnapshotPos, rec.Last = data, pos, pos
		if info, err := os.Stat(path); err == nil {
			rec.snapTime = info.ModTime()
		}
	}
	return nil
}

// chain scans the log files in order and finds the records that follow
// the snapshot. Only the end of the last file may be torn; damage
// anywhere else is recorded, with what a repair would keep.
func (l *layout) chain(firsts []Pos) error {
	rec := l.rec
	snap := rec.SnapshotPos
	next := snap + 1
	for i, first := range firsts {
		name := segmentName(first)
		path := join(l.dir, name)
		last := i == len(firsts)-1
		if !last && firsts[i+1] <= snap+1 {
			l.obsolete = append(l.obsolete, path) // all before the snapshot
			continue
		}
		sg, err := scanSegment(path, rec.maxRecordBytes, nil)
		if err != nil {
			return err
		}
		// Zeros after the last record are the log's preallocated end
		// (prealloc.go): clean in the last file, and in an earlier one
		// whose records the next file's first position follows on from
		// (its zeros were cut when the next file began, unless a crash
		// lost the cut).
		zeroTail := false
		if !sg.bad && sg.end < sg.size && (last || firsts[i+1] == sg.last+1) {
			if zeroTail, err = zeroFrom(path, sg.end); err != nil {
				return err
			}
		}
		clean := !sg.bad && sg.first == first && (sg.end == sg.size || zeroTail)
		if clean && len(rec.segs) == 0 && sg.first <= snap && sg.last <= snap {
			l.obsolete = append(l.obsolete, path)
			continue
		}
		if !clean && last && sg.size <= logHeaderBytes {
			l.tornFile = path
			continue
		}
		if first > next {
			l.addDamage(Damage{Kind: BrokenChain, File: name, Pos: next, Records: int(first - next)})
		} else if first < next && len(rec.segs) > 0 {
			l.addDamage(Damage{Kind: BrokenChain, File: name, Pos: first, Records: int(next - first)})
		}
		if clean {
			rec.segs = append(rec.segs, sg)
			l.chainRecs += int(sg.last + 1 - sg.first)
			next = sg.last + 1
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		md := mend{path: path, b: b, m: mapSegment(b, first, rec.maxRecordBytes)}
		if last {
			md.m.dropZeroTail(b, rec.maxRecordBytes)
		}
		md.lost = make([]int, len(md.m.pieces))
		if last && md.m.tornTail() && len(rec.segs) == 0 && sg.first <= snap && sg.last <= snap {
			l.obsolete = append(l.obsolete, path) // torn, but the snapshot has it all
			continue
		}
		if last && md.m.tornTail() {
			p := md.m.pieces[len(md.m.pieces)-1]
			payload, _ := p.payload(b)
			l.torn = &TornTail{File: name, Offset: p.off, Bytes: p.n, Pos: sg.last + 1, Payload: payload}
			l.tornMend = &md
			rec.segs = append(rec.segs, sg)
			l.chainRecs += int(sg.last + 1 - sg.first)
			next = sg.last + 1
			continue
		}
		var total int // positions the damaged pieces held
		if !last {
			total = int(firsts[i+1]-first) - md.m.intact()
		}
		l.mendPieces(&md, name, total, last)
		l.mends = append(l.mends, md)
		sg.first, sg.last = first, first+Pos(md.m.intact()+sum(md.lost))-1
		sg.end = sg.size
		rec.segs = append(rec.segs, sg)
		next = sg.last + 1
	}
	rec.Last = max(rec.Last, next-1)
	return nil
}

// mendPieces records the damage in a log file and decides how many
// placeholders stand in for each damaged piece: one each in the last file
// (nothing after it pins the positions down), and in an earlier file as
// many as the next file's first position says are missing.
func (l *layout) mendPieces(md *mend, name string, total int, last bool) {
	m := md.m
	k := m.damaged()
	if last {
		total = k
	}
	if total < k || (k == 0 && total != 0) {
		l.cannot = fmt.Sprintf("%s: its records do not add up to the next log file's first position 其记录数与下一个日志文件的起始位置对不上", name)
		total = max(total, k)
	}
	if !m.headerOK {
		l.addDamage(Damage{Kind: DamagedHeader, File: name, Bytes: min(int64(len(md.b)), logHeaderBytes), Intact: m.intact()})
	}
	pos, left := m.first, total
	lastDamaged := -1
	for i, p := range m.pieces {
		if !p.intact {
			lastDamaged = i
			md.lost[i] = 1
			left--
		}
	}
	if lastDamaged >= 0 {
		md.lost[lastDamaged] += left
	}
	for i, p := range m.pieces {
		if p.intact {
			pos++
			l.chainRecs++
			continue
		}
		exact := !last || p.oneRecord(md.b, l.rec.maxRecordBytes)
		payload, restored := p.payload(md.b)
		l.addDamage(Damage{Kind: DamagedRecord, File: name, Offset: p.off, Bytes: p.n, Pos: pos, Records: md.lost[i], Exact: exact,
			Payload: payload, Restored: restored})
		pos += Pos(md.lost[i])
	}
}

func (l *layout) addDamage(d Damage) {
	l.damage = append(l.damage, d)
	l.seen = append(l.seen, l.chainRecs)
}

// judge fills in what follows each damage, and whether Repair can mend
// the directory without inventing state.
func (l *layout) judge() {
	for i := range l.damage {
		if l.damage[i].Kind == DamagedRecord {
			l.damage[i].Intact = l.chainRecs - l.seen[i]
		}
	}
	for _, d := range l.damage {
		switch {
		case d.Kind == BrokenChain:
			l.cannot = fmt.Sprintf("records %d to %d are in no file: restore the missing file from a backup 第 %[1]d 至 %[2]d 条记录不在任何文件中：请从备份恢复缺失的文件", d.Pos, d.Pos+Pos(d.Records)-1)
		case d.Kind == DamagedSnapshot && (l.rec.Snapshot == nil || d.Pos > l.rec.Last):
			// Without an older snapshot the log would be replayed on a
			// new state, without what the first snapshot holds (the
			// broker's configuration): that is not the same broker.
			l.cannot = fmt.Sprintf("%s is the only copy of the state up to record %d: restore it from a backup 是第 %[2]d 条记录为止的状态的唯一副本：请从备份恢复", d.File, d.Pos)
		}
	}
}

// report is the layout as Check and Repair tell it.
func (l *layout) report() *Report {
	return &Report{Dir: l.dir, SnapshotPos: l.rec.SnapshotPos, Last: l.rec.Last,
		Torn: l.torn, Damage: l.damage, CannotRepair: l.cannot, l: l}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
