package lessons

import (
	"fmt"
	"strings"
)

// Parse reads a lesson. The format is line-based:
//
//	# a comment
//	title: Messages that expire
//	summary: One sentence for the list of lessons.
//
//	step: A queue with a message TTL
//	Prose, as many lines as needed; a blank line ends a paragraph.
//	Text in `backquotes` is code.
//	setup: declare exchange dlx fanout
//	try: declare queue orders ttl=10s
//	check: expect queue orders ready=1
//
// title, summary and at least one step are required; each step needs prose
// and, when it has try lines, check lines (a step without try lines is
// read, not done). Every setup, try and check line must parse as a script
// line, and check lines must be expect lines. Errors name the file and line.
func Parse(name, src string) (*Lesson, error) {
	l := &Lesson{}
	var step *Step
	var para []string
	flush := func() {
		if step != nil && len(para) > 0 {
			step.Text = append(step.Text, spans(strings.Join(para, " ")))
		}
		para = nil
	}
	for n, raw := range strings.Split(src, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		errorf := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n+1, fmt.Sprintf(format, args...))
		}
		key, value, keyed := field(line)
		switch {
		case strings.HasPrefix(line, "#"):
			continue
		case line == "":
			flush()
			continue
		case !keyed:
			if step == nil {
				return nil, errorf("prose before the first step: start a step with \"step: TITLE\"")
			}
			para = append(para, strings.TrimSpace(line))
			continue
		}
		flush()
		if value == "" {
			return nil, errorf("%s: is empty", key)
		}
		switch key {
		case "title", "summary":
			if step != nil {
				return nil, errorf("%s: belongs before the first step", key)
			}
			if key == "title" {
				l.Title = value
			} else {
				l.Summary = value
			}
		case "step":
			l.Steps = append(l.Steps, Step{Title: value})
			step = &l.Steps[len(l.Steps)-1]
		case "setup", "try", "check":
			if step == nil {
				return nil, errorf("%s: before the first step", key)
			}
			if err := checkLine(key, value); err != nil {
				return nil, errorf("%v", err)
			}
			switch key {
			case "setup":
				step.Setup = append(step.Setup, value)
			case "try":
				step.Try = append(step.Try, value)
			default:
				step.Check = append(step.Check, value)
			}
		}
	}
	flush()
	switch {
	case l.Title == "":
		return nil, fmt.Errorf("%s: no title: line", name)
	case l.Summary == "":
		return nil, fmt.Errorf("%s: no summary: line", name)
	case len(l.Steps) == 0:
		return nil, fmt.Errorf("%s: no steps", name)
	}
	for i, s := range l.Steps {
		switch {
		case len(s.Text) == 0:
			return nil, fmt.Errorf("%s: step %d (%s) has no prose", name, i+1, s.Title)
		case len(s.Try) > 0 && len(s.Check) == 0:
			return nil, fmt.Errorf("%s: step %d (%s) has try lines but no check lines: nothing would say it is done", name, i+1, s.Title)
		}
	}
	return l, nil
}

// keys are the words that start a keyed line.
var keys = []string{"title", "summary", "step", "setup", "try", "check"}

// field splits "key: value" for the known keys.
func field(line string) (key, value string, ok bool) {
	for _, k := range keys {
		if rest, found := strings.CutPrefix(line, k+":"); found {
			return k, strings.TrimSpace(rest), true
		}
	}
	return "", "", false
}

// spans splits prose at backquotes: `code` becomes a code span. An
// unmatched backquote is kept as text.
func spans(text string) Paragraph {
	var p Paragraph
	for {
		i := strings.IndexByte(text, '`')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(text[i+1:], '`')
		}
		if i < 0 || j < 0 {
			if text != "" {
				p = append(p, Span{Text: text})
			}
			return p
		}
		if i > 0 {
			p = append(p, Span{Text: text[:i]})
		}
		p = append(p, Span{Text: text[i+1 : i+1+j], Code: true})
		text = text[i+2+j:]
	}
}
