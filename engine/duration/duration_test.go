package duration

import "testing"

// TestParse: the forms the script language writes, and each refusal's
// key and English text.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"250ms", 250}, {"1.5s", 1500}, {"1m30s", 90_000}, {"1d", 86_400_000}, {"0.0006s", 1},
	} {
		if got, err := Parse(tc.in); err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, key, text string }{
		{"", KeyEmpty, "empty duration"},
		{"-5", KeyNegative, `negative duration "-5"`},
		{"soon", KeyBad, `bad duration "soon" (use e.g. 250ms, 5s, 1.5s, 2m, 1h)`},
		{"1.2.3s", KeyBadNumber, `bad duration "1.2.3s"`},
		{"5x", KeyBadUnit, `bad duration unit "x" in "5x" (use ms, s, m, h or d)`},
		{"300000000000000d", KeyBadNumber, `bad duration "300000000000000d"`},
	} {
		_, err := Parse(tc.in)
		e, ok := err.(*Error)
		if !ok || e.Key != tc.key || e.Error() != tc.text {
			t.Errorf("Parse(%q): %#v (%v); want key %s, %q", tc.in, err, err, tc.key, tc.text)
		}
	}
}
