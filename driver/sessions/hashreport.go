package sessions

import "warren/engine/hub"

// logReport logs a participant's report that its replica's state hash
// differs from the session's (hub.Divergence), with who sent it: its id,
// name, role and source address. The line says the participant reports
// it and never that it is a bug: the hub cannot see a page's state, only
// the hash the page sends, and any page, a read-only one included, can
// send a made-up hash. A real replica bug shows as the same report from
// Warren's own playground, whose console also says "diverged"; the hub's
// own check is the hash every entry carries, which each page compares.
func (s *session) logReport(d hub.Divergence) {
	addr := "an unknown address 未知地址"
	if k := s.socks[d.Participant.ID]; k != nil && k.addr != "" {
		addr = k.addr
	}
	s.m.cfg.Logf("sessions: session %s: participant %d %q (%s, from %s) reports state hash %s after entry %d, the session's is %s: its page says its replica differs, which the session cannot check 会话 %[1]s：参与者 %[2]d %[3]q（%[4]s，来自 %[5]s）报告第 %[7]d 条日志之后的状态哈希为 %[6]s，会话的是 %[8]s：这是该页面的说法，会话无法核实",
		s.id, d.Participant.ID, d.Participant.Name, d.Participant.Role, addr, hub.FormatHash(d.Got), d.Seq, hub.FormatHash(d.Want))
}
