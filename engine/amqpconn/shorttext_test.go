package amqpconn

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShortTextCutsBetweenCharacters: a reply text naming a long UTF-8
// queue is cut to 255 bytes without splitting a character.
func TestShortTextCutsBetweenCharacters(t *testing.T) {
	for _, s := range []string{
		"NOT_FOUND - no queue 'x" + strings.Repeat("é", 200) + "' in vhost '/'",
		"NOT_FOUND - no queue '" + strings.Repeat("a", 300) + "'",
		"ok",
	} {
		got := ShortText(s)
		if len(got) > 255 || !utf8.ValidString(got) || !strings.HasPrefix(s, strings.TrimSuffix(got, "...")) {
			t.Errorf("ShortText cut %d bytes to %q (%d bytes)", len(s), got, len(got))
		}
	}
}
