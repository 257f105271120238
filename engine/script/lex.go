package script

import "strings"

// token is one whitespace-separated word. Quotes group words and force a
// value to be a string; quoted reports whether any part was quoted.
type token struct {
	text   string
	quoted bool
	// eq is the index of the first unquoted '=' (key=value), or -1.
	eq int
}

// lex splits a line into tokens. Double quotes allow \" and \\ escapes;
// single quotes are literal (so JSON can be written as in a shell:
// '{"message-ttl":60000}'). A '#' outside quotes begins a comment at the
// start of the line or when it stands alone before a space; anywhere else
// at the start of a word it is part of the word, so that a topic
// pattern can be written as it is: bind q x #, bind q x #.error.
func lex(line string) ([]token, error) {
	var toks []token
	var cur strings.Builder
	in := false
	t := token{eq: -1}
	flush := func() {
		if in {
			t.text = cur.String()
			toks = append(toks, t)
		}
		cur.Reset()
		in = false
		t = token{eq: -1}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			flush()
		case c == '#' && !in && (len(toks) == 0 || i+1 < len(line) && isSpace(line[i+1])):
			flush()
			return toks, nil
		case c == '"' || c == '\'':
			in = true
			t.quoted = true
			j := i + 1
			for ; j < len(line) && line[j] != c; j++ {
				if c == '"' && line[j] == '\\' && j+1 < len(line) {
					j++
				}
				cur.WriteByte(line[j])
			}
			if j >= len(line) {
				return nil, newError(KeyUnterminatedQuote, "line", quote(line))
			}
			i = j
		default:
			if c == '=' && t.eq < 0 && !t.quoted {
				t.eq = cur.Len()
			}
			in = true
			cur.WriteByte(c)
		}
	}
	flush()
	return toks, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (t token) isKV() bool { return t.eq > 0 }

func (t token) key() string { return t.text[:t.eq] }

func (t token) value() string { return t.text[t.eq+1:] }
