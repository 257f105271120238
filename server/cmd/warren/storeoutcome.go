package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"warren/engine"
	"warren/server/broker"
	"warren/server/store"
)

// outcome is what a broker holds after a restart, as far as a repair can
// change it: the ready messages of each queue, and the definitions.
type outcome struct {
	ready map[string]int  // "vhost queue" → messages
	defs  map[string]bool // "queue …", "exchange …", "binding …", "user …", "vhost …", "policy …"
}

// rebuild replays what r found on an engine, as a start would, and
// restarts it (connections close, their unacked messages come back,
// transient state goes). With damaged, each damaged stretch that decodes
// as a command is applied in its place too: the log as it was before the
// damage, as far as the damaged bytes still say.
func rebuild(r *store.Report, damaged bool) (*outcome, error) {
	eng := engine.New(engine.Config{})
	if snap := r.Snapshot(); snap != nil {
		var err error
		if eng, err = engine.Load(snap); err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", r.SnapshotPos, err)
		}
	}
	drop := func() {
		eng.DrainCommands(func([]byte) {})
		eng.DrainEventsTo(func([]engine.Event) {})
	}
	drop()
	err := r.Walk(func(p store.Pos, rec []byte, isDamaged bool) error {
		if isDamaged && !damaged {
			return nil
		}
		next, err := broker.ReplayRecord(eng, rec)
		if err != nil {
			if isDamaged {
				return nil // counted as undecoded by loss
			}
			return fmt.Errorf("log record %d: %w", p, err)
		}
		eng = next
		drop()
		return nil
	})
	if err != nil {
		return nil, err
	}
	eng.Restart(eng.Now())
	drop()
	return observe(eng), nil
}

func observe(eng *engine.Broker) *outcome {
	o := &outcome{ready: map[string]int{}, defs: map[string]bool{}}
	for _, v := range eng.Vhosts() {
		o.defs["vhost "+quote(v)] = true
		var queues []string
		for _, chunk := range eng.QueueNames(v) {
			queues = append(queues, chunk...)
		}
		for _, q := range eng.QueueSummaries(v, queues) {
			o.defs["queue "+quote(q.Name)+" vhost "+quote(v)] = true
			o.ready[quote(q.Name)+" vhost "+quote(v)] = q.ReadyCount
		}
		for _, chunk := range eng.ExchangeNames(v) {
			for _, x := range chunk {
				o.defs["exchange "+quote(x)+" vhost "+quote(v)] = true
			}
		}
		for _, b := range eng.Bindings(v) {
			o.defs[fmt.Sprintf("binding %s → %s key %s vhost %s", quote(b.Source), quote(b.Destination), quote(b.RoutingKey), quote(v))] = true
		}
		for _, p := range eng.OperatorPolicies(v) {
			o.defs["policy "+quote(p.Name)+" vhost "+quote(v)] = true
		}
	}
	for _, u := range eng.Users() {
		o.defs["user "+quote(u.Name)] = true
	}
	return o
}

// diff says, in both languages, what kept lacks (or has extra) against
// was: the messages per queue and the definitions.
func diff(was, kept *outcome) string {
	var b strings.Builder
	lost, back := 0, 0
	var per []string
	for _, q := range slices.Sorted(maps.Keys(was.ready)) {
		if d := was.ready[q] - kept.ready[q]; d > 0 {
			lost += d
			per = append(per, fmt.Sprintf("queue 队列 %s: %d", q, d))
		}
	}
	for q, n := range kept.ready {
		back += max(0, n-was.ready[q])
	}
	fmt.Fprintf(&b, "  messages 消息: %d\n", lost)
	for _, p := range per {
		fmt.Fprintf(&b, "    %s\n", p)
	}
	if back > 0 {
		fmt.Fprintf(&b, "  messages that were settled and come back 已被确认或移除、修复后又回来的消息: %d\n", back)
	}
	for _, d := range slices.Sorted(maps.Keys(was.defs)) {
		if !kept.defs[d] {
			fmt.Fprintf(&b, "  lost 丢失: %s\n", d)
		}
	}
	for _, d := range slices.Sorted(maps.Keys(kept.defs)) {
		if !was.defs[d] {
			fmt.Fprintf(&b, "  comes back 又回来: %s\n", d)
		}
	}
	return b.String()
}
