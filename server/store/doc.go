// Package store keeps a broker's state on disk as one snapshot file plus a
// log of records written after it. Records are opaque bytes (the engine's
// encoded commands); the store knows nothing about what they mean.
//
// The directory holds:
//
//	snap-<pos>.snap   the state after record <pos> (20 decimal digits)
//	log-<first>.wlog  records <first>, <first>+1, ... in order
//	*.tmp             a snapshot being written (deleted at Open)
//	*.damaged         bytes Repair set aside (<file>.<offset>.damaged)
//
// Every file starts with a magic string and a format version, and every
// byte of content is covered by a CRC-32C (Castagnoli), so a torn record
// or a partial file is detected instead of being replayed as garbage.
//
// Damage is told apart from a crash, as etcd's WAL does. A crash in the
// middle of a write can only leave the end of the last log file torn: a
// record cut short, or a last stretch that fails its checksum with no
// intact record anywhere after it. Open cuts that tail and says so in
// Recovered.Notes; those records were never synced, so never confirmed.
// (The last log file is kept ahead of its records by zeros the store
// writes in advance, so that a sync changes data only (prealloc.go):
// nothing but zeros after the last record is the log's clean end, not a
// torn tail, and unsynced records a crash lost there leave just that.)
// Anything else —
// a checksum failing with intact records after it, a damaged file header,
// a snapshot failing its checksum, a missing log file — is damaged media,
// and cutting there would drop records that were confirmed. (A file
// system that writes a file's pages out of order could, in a crash, leave
// intact unsynced records after a zeroed page; that cannot be told from
// damage, so it is refused too, and a repair keeps those records.) Open then
// changes nothing in the directory (it decides before it deletes, cuts or
// creates anything) and returns a *DamagedError. Check reads the
// directory and reports the damage and what a repair loses; Repair, an
// explicit step as pg_resetwal is, keeps every intact record before and
// after the damage, leaves a placeholder in each lost record's position
// (Replay skips it), and sets the damaged bytes aside; a damaged snapshot
// is set aside only when an older one and the log after it hold the same
// state, and otherwise Repair refuses. Nothing ever falls back to an
// empty state because a file could not be read.
//
// The driver's duties (one owner at a time, the broker under its lock,
// calls Append and WriteSnapshot; everything else may be called from any
// goroutine):
//
//  1. Open the directory; load Recovered.Snapshot (if any), then apply
//     each record Recovered.Replay yields, in order, before the first
//     WriteSnapshot (which deletes the files Replay reads). Together they
//     are the state at Recovered.Last.
//  2. Append every command as it is applied. Append only buffers: the
//     record is durable once Durable() reaches its Pos. Hold back what
//     must wait for the disk (publisher confirms for persistent messages)
//     until then; Notify() fires when Durable or Err change. A request's
//     records may instead be appended with AppendDeferred and handed
//     over once, at its end: to the syncer (Wake), or written and
//     fsynced by the goroutine that waits for them (SyncNow, a
//     leader/follower group commit: it hands them to the syncer when a
//     round is under way).
//  3. While Err() is not nil, block publishers and report the error; the
//     store keeps retrying the write and clears Err once it succeeds.
//     Nothing that was durable is lost meanwhile.
//  4. When NeedsSnapshot() says the log has grown, save the state and pass
//     it to WriteSnapshot; it covers every record appended before the call.
//  5. Close on shutdown: it writes what is buffered and says if it could not.
//
// Why a format of our own rather than a library such as bbolt: the job is
// an append-only log read back once at start-up, not a key-value index.
// Measured in alternating runs on the same disk (BENCHMARKS.md; the bbolt
// side is testdata/bboltbench), this log stores a 16-byte record in 24
// bytes (bbolt: 86), confirms at least 1.5x as many records per second
// with one writer waiting (one fsync per group; a bbolt commit costs two
// fdatasyncs) and 14-60x as many with 64 waiting (bbolt's Batch waits for
// its batch delay), and replays a million records about as fast as bbolt
// iterates them (39-126 ms against 33-113 ms). It is about 2,000 lines of
// standard-library Go, most of them comments and checks (a third of them
// telling damage from a torn tail, Check and Repair).
package store
