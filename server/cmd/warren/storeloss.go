package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"warren/engine"
	"warren/server/store"
)

// loss is what a repair gives up, in the broker's terms: the store keeps
// opaque records, so the lost ones are decoded here, with the engine's
// command codec, into the messages and definitions they carried.
type loss struct {
	records    int  // records lost (placeholders written)
	atLeast    bool // a stretch in the last log file may have held more
	undecoded  int  // damaged stretches whose bytes are not a command
	guessed    int  // decoded from bytes as damaged, not as restored
	messages   int  // publishes
	persistent int  // of them with delivery-mode 2
	targets    map[string]int
	defs       []string // declarations, deletions, bindings
	other      map[string]int
}

func newLoss() *loss { return &loss{targets: map[string]int{}, other: map[string]int{}} }

// add counts d's lost records. Only the first record of a damaged stretch
// can be decoded (its bytes run up to the next intact record): exactly
// when the store restored it (one changed byte explained the damage),
// else as the bytes are, which is said; one that does not decode is
// counted as such.
func (l *loss) add(d store.Damage) {
	if d.Kind != store.DamagedRecord {
		return
	}
	l.records += d.Records
	l.atLeast = l.atLeast || !d.Exact
	if engine.IsSnapshot(d.Payload) {
		l.def("checkpoint (the whole state) 检查点（完整状态）")
		return
	}
	c, err := engine.DecodeCommand(d.Payload)
	if err != nil {
		l.undecoded++
		return
	}
	if !d.Restored {
		l.guessed++
	}
	switch c := c.(type) {
	case engine.CmdBasicPublish:
		l.publish(c.Publish)
	case engine.CmdQueueDeclare:
		l.def("queue.declare " + quote(c.Declare.Queue))
	case engine.CmdExchangeDeclare:
		l.def("exchange.declare " + quote(c.Declare.Exchange))
	case engine.CmdQueueDelete:
		l.def("queue.delete " + quote(c.Delete.Queue))
	case engine.CmdExchangeDelete:
		l.def("exchange.delete " + quote(c.Delete.Exchange))
	case engine.CmdQueueBind:
		l.def(fmt.Sprintf("queue.bind %s → %s key %s", quote(c.Bind.Exchange), quote(c.Bind.Queue), quote(c.Bind.RoutingKey)))
	case engine.CmdQueueUnbind:
		l.def(fmt.Sprintf("queue.unbind %s → %s key %s", quote(c.Bind.Exchange), quote(c.Bind.Queue), quote(c.Bind.RoutingKey)))
	case engine.CmdExchangeBind:
		l.def(fmt.Sprintf("exchange.bind %s → %s key %s", quote(c.Bind.Source), quote(c.Bind.Destination), quote(c.Bind.RoutingKey)))
	case engine.CmdQueuePurge:
		l.def("queue.purge " + quote(c.Queue))
	case engine.CmdDurableQueue:
		l.def("queue.declare " + quote(c.Name))
	case engine.CmdDurableQueueGone:
		l.def("queue.delete " + quote(c.Name))
	case engine.CmdDurableExchange:
		l.def("exchange.declare " + quote(c.Name))
	case engine.CmdDurableExchangeGone:
		l.def("exchange.delete " + quote(c.Name))
	case engine.CmdDurableBind:
		l.def(fmt.Sprintf("bind %s → %s key %s", quote(c.Source), quote(c.Destination), quote(c.Key)))
	case engine.CmdDurableUnbind:
		l.def(fmt.Sprintf("unbind %s → %s key %s", quote(c.Source), quote(c.Destination), quote(c.Key)))
	case engine.CmdDurablePolicy:
		what := "set_policy "
		if c.Clear {
			what = "clear_policy "
		}
		l.def(what + quote(c.Policy.Name) + ", vhost " + quote(c.Policy.Vhost))
	case engine.CmdDurableVhostGone:
		l.def("delete_vhost " + quote(c.Name))
	case engine.CmdDurableDelay:
		l.messages++
		l.targets[fmt.Sprintf("held by delayed exchange 由延迟交换机持有 %s, vhost 虚拟主机 %s", quote(c.Exchange), quote(c.Vhost))]++
	case engine.CmdDurablePut:
		l.messages++
		l.persistent++
		l.targets[fmt.Sprintf("kept in queue 保留在队列 %s, vhost 虚拟主机 %s", quote(c.Queue), quote(c.Vhost))]++
	default:
		l.other[engine.KindOf(c).String()]++
	}
}

func (l *loss) publish(p engine.BasicPublish) {
	l.messages++
	if p.Props != nil && p.Props.DeliveryMode == 2 {
		l.persistent++
	}
	l.targets[fmt.Sprintf("to exchange 发往交换机 %s, routing key 路由键 %s", quote(p.Exchange), quote(p.RoutingKey))]++
}

func (l *loss) def(s string) { l.defs = append(l.defs, s) }

func quote(s string) string { return fmt.Sprintf("%q", s) }

// String says it in English and Simplified Chinese, one line each: the
// records lost and what the damaged ones were.
func (l *loss) String() string {
	if l.records == 0 {
		return "  records 记录: 0\n"
	}
	var b strings.Builder
	least := ""
	if l.atLeast {
		least = " (at least 至少)"
	}
	fmt.Fprintf(&b, "  records 记录: %d%s; the damaged ones held 损坏的记录是:\n", l.records, least)
	if l.messages > 0 {
		fmt.Fprintf(&b, "    publishes 发布: %d, persistent 持久: %d\n", l.messages, l.persistent)
		for _, t := range slices.Sorted(maps.Keys(l.targets)) {
			fmt.Fprintf(&b, "      %s: %d\n", t, l.targets[t])
		}
	}
	for _, d := range l.defs {
		fmt.Fprintf(&b, "    %s\n", d)
	}
	for _, k := range slices.Sorted(maps.Keys(l.other)) {
		fmt.Fprintf(&b, "    %s: %d\n", k, l.other[k])
	}
	if l.guessed > 0 {
		fmt.Fprintf(&b, "    (%d decoded from the damaged bytes as they are: a name or a value may be off 条按损坏后的字节解码，名称或数值可能有误)\n", l.guessed)
	}
	if l.undecoded > 0 {
		fmt.Fprintf(&b, "    too damaged to tell 损坏过重、无法判断内容: %d\n", l.undecoded)
	}
	return b.String()
}

// lossReport is what a repair of r gives up: the records, what they were,
// and the difference it makes to the broker after a restart, found by
// replaying the log with and without the damaged records that decode.
// Where a damaged record does not decode, what it did is unknown, and the
// difference counts only what the others did.
func lossReport(r *store.Report) string {
	l := newLoss()
	for _, d := range r.Damage {
		l.add(d)
	}
	out := l.String()
	was, err := rebuild(r, true)
	if err == nil {
		var kept *outcome
		if kept, err = rebuild(r, false); err == nil {
			if l.undecoded > 0 {
				out += "  (what the records too damaged to tell did is not counted below 下文未计入无法判断内容的记录的影响)\n"
			}
			return out + "  after a restart, against the log before the damage 重启后，与损坏前的日志相比:\n" + diff(was, kept)
		}
	}
	return out + fmt.Sprintf("  the state could not be rebuilt to compare 无法重建状态以作比较: %v\n", err)
}
