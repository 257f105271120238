package script

import (
	"strconv"
	"strings"

	"warren/engine"
)

// The expect verbs in this file judge state that lives at a channel: its
// modes and unacknowledged deliveries (the broker's), and what its
// publisher was told (publisher.go). Like expect queue and expect msg, and
// unlike expect event, they give the same answer however many other lines
// ran since, which is what a lesson's check needs.
func init() {
	register(&verbSpec{name: "expect channel", minArgs: 1, maxArgs: 1, anyOpt: true,
		usage: "expect channel CHANNEL [open=true|false] [confirm=B] [tx=B] [prefetch=N] [global-prefetch=N] [consumers=N] [unacked=N] [pending-tx=N]", run: runExpectChannel})
	register(&verbSpec{name: "expect unacked", minArgs: 2, maxArgs: 2, anyOpt: true,
		usage: "expect unacked CHANNEL TAG [queue=Q] [consumer=C] [redelivered=B] [body=B] [header.NAME=V] ...   (a delivery awaiting its ack)", run: runExpectUnacked})
	register(&verbSpec{name: "expect confirm", minArgs: 3, maxArgs: 3,
		usage: "expect confirm CHANNEL TAG ack|nack   (how the broker confirmed publish TAG)", run: runExpectConfirm})
	register(&verbSpec{name: "expect returned", minArgs: 1, maxArgs: 1, anyOpt: true,
		usage: "expect returned CHANNEL [x=E] [key=K] [code=N] [text=T] [body=B] ...   (a message returned to the publisher)", run: runExpectReturned})
}

// openChannel returns the view of a named channel, or a failed expectation
// when the script never opened it or it is closed.
func (r *Runner) openChannel(name string) (engine.ChannelView, error) {
	if ch, ok := r.chans[name]; ok && ch.open {
		for _, v := range r.B.Snapshot().Vhosts {
			for _, conn := range v.Connections {
				for _, cv := range conn.Channels {
					if cv.ID == ch.id {
						return cv, nil
					}
				}
			}
		}
	}
	return engine.ChannelView{}, fail(newError(KeyChannelNotOpen, "channel", name))
}

func runExpectChannel(r *Runner, c *Command) error {
	name := c.Args[0]
	cv, err := r.openChannel(name)
	if err != nil {
		// A closed channel has one fact to check: that it is closed.
		if len(c.Opts) == 1 && c.Opts[0].Key == "open" && c.Opts[0].Value == "false" {
			return nil
		}
		return err
	}
	return compareFields(map[string]string{
		"open":            "true",
		"confirm":         strconv.FormatBool(cv.Confirm),
		"tx":              strconv.FormatBool(cv.Tx),
		"prefetch":        strconv.Itoa(cv.Prefetch),
		"global-prefetch": strconv.Itoa(cv.GlobalPrefetch),
		"consumers":       strconv.Itoa(len(cv.Consumers)),
		"unacked":         strconv.Itoa(cv.UnackedCount),
		"pending-tx":      strconv.Itoa(cv.PendingTx),
		"reply-to":        cv.ReplyTo,
	}, c.Opts, KeyChannelDiffers, "channel", name)
}

func parseTag(s string) (uint64, error) {
	tag, err := strconv.ParseUint(s, 10, 64)
	if err != nil || tag == 0 {
		return 0, newError(KeyBadTag, "value", quote(s))
	}
	return tag, nil
}

func runExpectUnacked(r *Runner, c *Command) error {
	name := c.Args[0]
	tag, err := parseTag(c.Args[1])
	if err != nil {
		return wrapIn(c.Verb, err)
	}
	cv, err := r.openChannel(name)
	if err != nil {
		return err
	}
	for _, u := range cv.Unacked {
		if u.DeliveryTag != tag {
			continue
		}
		f := msgFields(u.Msg)
		f["queue"] = u.Queue
		f["consumer"] = u.ConsumerTag
		f["redelivered"] = strconv.FormatBool(u.Redelivered)
		f["delivered-at"] = engine.FormatDuration(int64(u.DeliveredAt))
		return compareFields(f, c.Opts, KeyUnackedDiffers, "channel", name, "tag", strconv.FormatUint(tag, 10))
	}
	tags := make([]string, len(cv.Unacked))
	for i, u := range cv.Unacked {
		tags[i] = strconv.FormatUint(u.DeliveryTag, 10)
	}
	if len(tags) == 0 {
		return fail(newError(KeyNoUnackedAtAll, "channel", name, "tag", strconv.FormatUint(tag, 10)))
	}
	return fail(newError(KeyNoUnacked, "channel", name, "tag", strconv.FormatUint(tag, 10), "tags", strings.Join(tags, ",")))
}

func runExpectConfirm(r *Runner, c *Command) error {
	name, want := c.Args[0], c.Args[2]
	tag, err := parseTag(c.Args[1])
	if err != nil {
		return wrapIn(c.Verb, err)
	}
	if want != "ack" && want != "nack" {
		return newError(KeyBadConfirmWant, "value", quote(want))
	}
	cv, err := r.openChannel(name)
	if err != nil {
		return err
	}
	p := r.pubs[cv.ID]
	if p == nil {
		p = &publisherRecord{floor: 1}
	}
	got, forgotten := p.outcome(tag)
	tagText := strconv.FormatUint(tag, 10)
	switch {
	case forgotten:
		return fail(newError(KeyConfirmForgotten, "channel", name, "tag", tagText, "floor", strconv.FormatUint(p.floor, 10)))
	case got == "" && !cv.Confirm:
		return fail(newError(KeyNotConfirmMode, "channel", name, "tag", tagText))
	case got == "":
		return fail(newError(KeyNoConfirm, "channel", name, "tag", tagText, "highest", strconv.FormatUint(p.highest(), 10)))
	case got != want:
		return fail(newError(KeyWrongConfirm, "channel", name, "tag", tagText, "got", got, "want", want))
	}
	return nil
}

func runExpectReturned(r *Runner, c *Command) error {
	name := c.Args[0]
	cv, err := r.openChannel(name)
	if err != nil {
		return err
	}
	var returns []returnedMsg
	if p := r.pubs[cv.ID]; p != nil {
		returns = p.returns
	}
	for _, m := range returns {
		if len(mismatches(returnedFields(m), c.Opts)) == 0 {
			return nil
		}
	}
	if len(returns) == 0 {
		return fail(newError(KeyNoReturn, "channel", name))
	}
	e := newError(KeyNoMatchingReturn, "count", strconv.Itoa(len(returns)), "channel", name)
	e.Mismatches = mismatches(returnedFields(returns[len(returns)-1]), c.Opts)
	return fail(e)
}

// returnedFields are a returned message's fields for expect returned: the
// basic.return's exchange, routing key, reply code and text, and the
// message's own (msgFields).
func returnedFields(m returnedMsg) map[string]string {
	f := msgFields(m.msg)
	f["x"], f["key"], f["code"], f["text"] = m.exchange, m.key, strconv.Itoa(m.code), m.text
	return f
}
