package script

import (
	"fmt"
	"strings"

	"warren/engine"
)

func init() {
	register(&verbSpec{name: "show queues", usage: "show queues", run: runShowQueues})
	register(&verbSpec{name: "show queue", minArgs: 1, maxArgs: 1, usage: "show queue NAME   (its messages, head first)", run: runShowQueue})
	register(&verbSpec{name: "show msg", minArgs: 2, maxArgs: 2, usage: "show msg QUEUE INDEX   (properties, headers and x-death of a ready message)", run: runShowMsg})
	register(&verbSpec{name: "show exchanges", usage: "show exchanges", run: runShowExchanges})
	register(&verbSpec{name: "show bindings", usage: "show bindings", run: runShowBindings})
	register(&verbSpec{name: "show consumers", usage: "show consumers", run: runShowConsumers})
	register(&verbSpec{name: "show channels", usage: "show channels   (modes, prefetch and unacked deliveries)", run: runShowChannels})
	register(&verbSpec{name: "show timers", usage: "show timers   (everything scheduled, soonest first)", run: runShowTimers})
	register(&verbSpec{name: "show next", usage: "show next   (what the next step will do, and when)", run: runShowNext})
	register(&verbSpec{name: "show policies", usage: "show policies", run: runShowPolicies})
	register(&verbSpec{name: "show time", usage: "show time", run: runShowTime})
	register(&verbSpec{name: "help", maxArgs: 2, usage: "help [COMMAND]   (every command; with COMMAND, its usage: help publish, help show)", run: runHelp})
}

func (r *Runner) print(format string, args ...any) {
	fmt.Fprintf(&r.pendingOut, format, args...)
}

// ShowLimit is how many items (messages, unacknowledged deliveries,
// timers) a show command lists; a line after them says how many more there
// are. The output is bounded where it is made: a page that shows a queue of
// 100,000 messages must not first build 100,000 lines.
const ShowLimit = 100

// cut says that a list of all items showed only shown of them.
func (r *Runner) cut(all, shown int, what string) {
	if all > shown {
		r.print("  ... %d more %s not shown (output cut: show lists the first %d)\n", all-shown, what, shown)
	}
}

// state is the broker's state with at most n messages, deliveries and held
// messages listed per queue, channel and exchange; n = 1 when only names
// and counts are read.
func (r *Runner) state(n int) engine.Snapshot { return r.B.SnapshotLimit(n) }

func vhostPrefix(v string) string {
	if v == "/" {
		return ""
	}
	return v + ": "
}

func runShowQueues(r *Runner, c *Command) error {
	s := r.state(1)
	n := 0
	for _, v := range s.Vhosts {
		for _, q := range v.Queues {
			r.print("%s%s\n", vhostPrefix(v.Name), describeQueue(q))
			n++
		}
	}
	if n == 0 {
		r.print("no queues\n")
	}
	return nil
}

func runShowQueue(r *Runner, c *Command) error {
	s := r.state(ShowLimit)
	q, ok := findQueue(s, c.Args[0])
	if !ok {
		return newError(KeyNoQueue, "queue", quote(c.Args[0]))
	}
	r.print("%s\n", describeQueue(q))
	defer r.cut(q.ReadyCount, len(q.Ready), "messages")
	for i, m := range q.Ready {
		line := fmt.Sprintf("  %d: msg=%d body=%q", i, m.Msg.ID, string(m.Msg.Body))
		if m.ExpiresAt != engine.Never {
			line += " expires-at=" + engine.FormatDuration(int64(m.ExpiresAt))
		}
		if m.Priority > 0 {
			line += fmt.Sprintf(" priority=%d", m.Priority)
		}
		if m.Redelivered {
			line += " redelivered"
		}
		if m.Expired {
			line += " expired(waiting-behind-head)"
		}
		r.print("%s\n", line)
	}
	return nil
}

func runShowMsg(r *Runner, c *Command) error {
	m, extra, err := r.msgAt(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	f := msgFields(m)
	for k, v := range extra {
		f[k] = v
	}
	r.print("msg %d in %s:\n%s", m.ID, c.Args[0], formatFields(f))
	return nil
}

func runShowExchanges(r *Runner, c *Command) error {
	for _, v := range r.state(1).Vhosts {
		for _, x := range v.Exchanges {
			name := x.Name
			if name == "" {
				name = "(default)"
			}
			line := fmt.Sprintf("%s%s type=%s", vhostPrefix(v.Name), name, x.Type)
			if x.Internal {
				line += " internal"
			}
			if x.AutoDelete {
				line += " auto-delete"
			}
			if x.Alternate != "" {
				line += " ae=" + x.Alternate
			}
			if x.HeldCount > 0 {
				line += fmt.Sprintf(" holding=%d", x.HeldCount)
			}
			r.print("%s\n", line)
		}
	}
	return nil
}

func runShowBindings(r *Runner, c *Command) error {
	n := 0
	for _, v := range r.state(1).Vhosts {
		for _, b := range v.Bindings {
			dst := b.Destination
			if b.DestinationIsExchange {
				dst = "exchange " + dst
			}
			line := fmt.Sprintf("%s%s -> %s key=%q", vhostPrefix(v.Name), b.Source, dst, b.RoutingKey)
			if len(b.Args) > 0 {
				line += " args=" + formatTable(b.Args)
			}
			r.print("%s\n", line)
			n++
		}
	}
	if n == 0 {
		r.print("no bindings\n")
	}
	return nil
}

func runShowConsumers(r *Runner, c *Command) error {
	n := 0
	for _, v := range r.state(1).Vhosts {
		for _, q := range v.Queues {
			for _, cv := range q.Consumers {
				line := fmt.Sprintf("%s%s on %s ch=%s prefetch=%d unacked=%d priority=%d", vhostPrefix(v.Name), cv.Tag, q.Name, r.channelName(cv.Channel), cv.Prefetch, cv.Unacked, cv.Priority)
				if cv.NoAck {
					line += " no-ack"
				}
				if cv.Exclusive {
					line += " exclusive"
				}
				if !cv.Active {
					line += " waiting(single-active-consumer)"
				}
				r.print("%s\n", line)
				n++
			}
		}
	}
	if n == 0 {
		r.print("no consumers\n")
	}
	return nil
}

func runShowChannels(r *Runner, c *Command) error {
	for _, v := range r.state(ShowLimit).Vhosts {
		for _, conn := range v.Connections {
			for _, ch := range conn.Channels {
				var modes []string
				if ch.Confirm {
					modes = append(modes, "confirm")
				}
				if ch.Tx {
					modes = append(modes, fmt.Sprintf("tx(pending=%d)", ch.PendingTx))
				}
				if ch.ReplyTo != "" {
					modes = append(modes, "reply-to="+ch.ReplyTo+" reply-consumer="+ch.ReplyConsumer)
				}
				r.print("%s%s prefetch=%d global-prefetch=%d unacked=%d %s\n", vhostPrefix(v.Name), r.channelName(ch.ID), ch.Prefetch, ch.GlobalPrefetch, ch.UnackedCount, strings.Join(modes, " "))
				for _, u := range ch.Unacked {
					r.print("  tag=%d msg=%d q=%s consumer=%s delivered-at=%s\n", u.DeliveryTag, u.Msg.ID, u.Queue, quoteEmpty(u.ConsumerTag), engine.FormatDuration(int64(u.DeliveredAt)))
				}
				r.cut(ch.UnackedCount, len(ch.Unacked), "deliveries")
			}
		}
	}
	return nil
}

func describeTimer(r *Runner, t engine.PendingTimer) string {
	switch t.Kind {
	case "message-ttl":
		return fmt.Sprintf("@%s message-ttl q=%s msg=%d", engine.FormatDuration(int64(t.At)), t.Queue, t.MsgID)
	case "queue-expires":
		return fmt.Sprintf("@%s queue-expires q=%s", engine.FormatDuration(int64(t.At)), t.Queue)
	case "dispatch", "bulk-end":
		return fmt.Sprintf("@%s %s q=%s", engine.FormatDuration(int64(t.At)), t.Kind, t.Queue)
	case "delayed-release":
		return fmt.Sprintf("@%s delayed-release x=%s msg=%d", engine.FormatDuration(int64(t.At)), t.Queue, t.MsgID)
	}
	return fmt.Sprintf("@%s consumer-timeout ch=%s", engine.FormatDuration(int64(t.At)), r.channelName(t.Channel))
}

func runShowTimers(r *Runner, c *Command) error {
	ts, all := r.B.TimersUntil(engine.Never, ShowLimit)
	if all == 0 {
		r.print("nothing scheduled\n")
	}
	for _, t := range ts {
		r.print("%s\n", describeTimer(r, t))
	}
	r.cut(all, len(ts), "timers")
	return nil
}

func runShowNext(r *Runner, c *Command) error {
	ts, _ := r.B.TimersUntil(engine.Never, 1)
	if len(ts) == 0 {
		r.print("nothing scheduled\n")
		return nil
	}
	r.print("next %s\n", describeTimer(r, ts[0]))
	return nil
}

func runShowPolicies(r *Runner, c *Command) error {
	n := 0
	for _, v := range r.B.Vhosts() {
		for _, kind := range []string{"policy", "operator-policy"} {
			list := r.B.Policies
			if kind == "operator-policy" {
				list = r.B.OperatorPolicies
			}
			for _, p := range list(v) {
				r.print("%s%s %s pattern=%s apply-to=%s priority=%d definition=%s\n", vhostPrefix(v), kind, p.Name, p.Pattern, p.ApplyTo, p.Priority, formatTable(p.Definition))
				n++
			}
		}
	}
	if n == 0 {
		r.print("no policies\n")
	}
	return nil
}

func runShowTime(r *Runner, c *Command) error {
	r.print("time %s\n", engine.FormatDuration(int64(r.B.Now())))
	return nil
}

func runHelp(r *Runner, c *Command) error {
	if len(c.Args) == 0 {
		r.pendingOut.WriteString(Help() + "\n")
		return nil
	}
	text, err := HelpFor(strings.Join(c.Args, " "))
	if err != nil {
		return err
	}
	r.pendingOut.WriteString(text + "\n")
	return nil
}
