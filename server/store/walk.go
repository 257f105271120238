package store

// Walk calls fn, in log order, with each record after the snapshot that
// a start (or, for a damaged directory, a repair) keeps, and with each
// damaged stretch in its place (damaged set, rec its Payload), so that a
// caller who knows what records mean can rebuild the state with and
// without them and say what a repair loses. A torn tail is not passed: a
// start cuts it. It reads the files as Check found them (call it before
// Repair changes them); rec is reused between calls.
func (r *Report) Walk(fn func(p Pos, rec []byte, damaged bool) error) error {
	l := r.l
	mended := map[string]*mend{}
	for i := range l.mends {
		mended[l.mends[i].path] = &l.mends[i]
	}
	snap := l.rec.SnapshotPos
	for _, sg := range l.rec.segs {
		md := mended[sg.path]
		if md == nil {
			_, err := scanSegment(sg.path, l.rec.maxRecordBytes, func(p Pos, rec []byte, lost bool) error {
				if p <= snap || lost {
					return nil
				}
				return fn(p, rec, false)
			})
			if err != nil {
				return err
			}
			continue
		}
		p := md.m.first
		for i, pc := range md.m.pieces {
			switch {
			case pc.intact:
				if p > snap && !pc.lost {
					if err := fn(p, md.b[pc.off+recordHeaderBytes:pc.off+pc.n], false); err != nil {
						return err
					}
				}
				p++
			default:
				if p > snap {
					payload, _ := pc.payload(md.b)
					if err := fn(p, payload, true); err != nil {
						return err
					}
				}
				p += Pos(md.lost[i])
			}
		}
	}
	return nil
}

// Snapshot is the snapshot a start (or a repair) begins from; nil if none.
func (r *Report) Snapshot() []byte { return r.l.rec.Snapshot }
