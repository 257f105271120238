package web

import (
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The Chinese README is a full translation of the English one, not a
// summary: these tests keep the two in step. README.md is the source;
// README.zh-CN.md must have the same headings (level by level, in order),
// the same fenced code blocks byte for byte, prose that is Chinese, and
// every code span and figure of the English prose.

// readmeDoc is a README split into what the tests compare.
type readmeDoc struct {
	headingLevels []int    // the level of each # heading, in order
	headings      []string // the heading lines, for failure messages
	codeBlocks    []string // each fenced block, fences included
	prose         []string // every line outside fenced blocks, numbered from 1 by index+1; block lines are ""
}

var atxHeading = regexp.MustCompile(`^(#{1,6})[ \t]`)

func parseReadme(t *testing.T, path string) readmeDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d readmeDoc
	var block []string
	inBlock := false
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		fence := strings.HasPrefix(strings.TrimLeft(line, " "), "```")
		switch {
		case inBlock:
			block = append(block, line)
			d.prose = append(d.prose, "")
			if fence {
				d.codeBlocks = append(d.codeBlocks, strings.Join(block, "\n"))
				block, inBlock = nil, false
			}
		case fence:
			block, inBlock = []string{line}, true
			d.prose = append(d.prose, "")
		default:
			d.prose = append(d.prose, line)
			if m := atxHeading.FindStringSubmatch(line); m != nil {
				d.headingLevels = append(d.headingLevels, len(m[1]))
				d.headings = append(d.headings, line)
			}
		}
	}
	if inBlock {
		t.Fatalf("%s: a fenced code block is never closed: %q", path, block[0])
	}
	return d
}

func TestReadmeHeadingsMatch(t *testing.T) {
	en := parseReadme(t, "../README.md")
	zh := parseReadme(t, "../README.zh-CN.md")
	if reflect.DeepEqual(en.headingLevels, zh.headingLevels) {
		return
	}
	t.Errorf("README.zh-CN.md has %d headings with levels %v; README.md has %d with levels %v",
		len(zh.headingLevels), zh.headingLevels, len(en.headingLevels), en.headingLevels)
	for i := 0; i < len(en.headings) || i < len(zh.headings); i++ {
		var e, z string
		if i < len(en.headings) {
			e = en.headings[i]
		}
		if i < len(zh.headings) {
			z = zh.headings[i]
		}
		t.Logf("%2d  %-45q %q", i+1, e, z)
	}
}

func TestReadmeCodeBlocksMatch(t *testing.T) {
	en := parseReadme(t, "../README.md")
	zh := parseReadme(t, "../README.zh-CN.md")
	if len(en.codeBlocks) != len(zh.codeBlocks) {
		t.Errorf("README.md has %d fenced code blocks, README.zh-CN.md %d", len(en.codeBlocks), len(zh.codeBlocks))
	}
	for i := 0; i < len(en.codeBlocks) && i < len(zh.codeBlocks); i++ {
		if en.codeBlocks[i] != zh.codeBlocks[i] {
			t.Errorf("fenced code block %d differs (code is copied, never translated):\nREADME.md:\n%s\nREADME.zh-CN.md:\n%s",
				i+1, en.codeBlocks[i], zh.codeBlocks[i])
		}
	}
}

// readmeEnglishRun is the rule for untranslated prose in README.zh-CN.md:
// three or more English words in a row, separated only by spaces or
// commas. A word starts with a letter and may go on with letters, digits,
// '_', '-' and apostrophes, so "AMQP 0-9-1", "2 vCPU" and "UNEXPECTED_FRAME"
// are not runs, and Chinese punctuation (、，：) between words breaks one.
// Before matching, what is English by right is blanked out with a
// character that is no separator (so it breaks a run rather than joining
// the words on its two sides): inline code spans (which also covers table
// cells that are code, and cells like `step [N]`（说明）), links (their text
// and target), bare URLs, and readmeProductNames.
var readmeEnglishRun = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_'’-]*(?:[ ,]+[A-Za-z][A-Za-z0-9_'’-]*){2,}`)

// readmeProductNames are names that stay English in any language.
var readmeProductNames = regexp.MustCompile(`\b(?:RabbitMQ|Warren|Durable Object|amqp091-go)\b`)

var (
	readmeCodeSpan = regexp.MustCompile("`[^`]*`")
	readmeLink     = regexp.MustCompile(`\[[^\]]*\]\([^)]*\)`)
	readmeURL      = regexp.MustCompile(`https?://[^\s)）]+`)
)

// blankOut replaces each match with one NUL, keeping the newlines it held
// so that line numbers still count.
func blankOut(re *regexp.Regexp, s string) string {
	return re.ReplaceAllStringFunc(s, func(m string) string {
		return "\x00" + strings.Repeat("\n", strings.Count(m, "\n"))
	})
}

func TestReadmeChineseHasNoEnglishProse(t *testing.T) {
	zh := parseReadme(t, "../README.zh-CN.md")
	text := strings.Join(zh.prose, "\n")
	for _, re := range []*regexp.Regexp{readmeCodeSpan, readmeLink, readmeURL, readmeProductNames} {
		text = blankOut(re, text)
	}
	for i, line := range strings.Split(text, "\n") {
		for _, run := range readmeEnglishRun.FindAllString(line, -1) {
			t.Errorf("README.zh-CN.md:%d: English left in the prose: %q", i+1, run)
		}
	}
}

// TestReadmeEnglishRunRule keeps the rule itself honest: it must catch an
// untranslated phrase and let through what the Chinese README rightly
// keeps in English.
func TestReadmeEnglishRunRule(t *testing.T) {
	caught := []string{
		"the page explains them",
		"引擎 runs in the page",
		"ready, unacked and expired",
	}
	passed := []string{
		"死信交换机（dead-letter exchange）",
		"基于 TCP 的 AMQP 0-9-1",
		"505 UNEXPECTED_FRAME",
		"RabbitMQ 3.10.8 的读取进程",
		"amqp091-go、amqplib、pika",
	}
	for _, s := range caught {
		if !readmeEnglishRun.MatchString(s) {
			t.Errorf("rule misses %q", s)
		}
	}
	for _, s := range passed {
		if readmeEnglishRun.MatchString(blankOut(readmeProductNames, s)) {
			t.Errorf("rule wrongly flags %q", s)
		}
	}
}

// readmeDecimal is a figure with a decimal point: a measurement, a ratio
// or a version, which a translation carries as it is.
var readmeDecimal = regexp.MustCompile(`\d+\.\d+`)

// readmeFacts returns the inline code spans (whitespace made single
// spaces, as a wrapped line splits them) and decimal figures of a
// README's prose.
func readmeFacts(d readmeDoc) map[string]bool {
	text := strings.Join(d.prose, "\n")
	facts := map[string]bool{}
	for _, span := range readmeCodeSpan.FindAllString(text, -1) {
		facts[strings.Join(strings.Fields(span), " ")] = true
	}
	for _, n := range readmeDecimal.FindAllString(text, -1) {
		facts[n] = true
	}
	return facts
}

// TestReadmeChineseCarriesTheFacts: every command, name and figure the
// English README gives in its prose is in the Chinese one too, so a
// sentence added to one README and not the other fails when it says
// anything a reader could act on or check.
func TestReadmeChineseCarriesTheFacts(t *testing.T) {
	zh := readmeFacts(parseReadme(t, "../README.zh-CN.md"))
	var missing []string
	for fact := range readmeFacts(parseReadme(t, "../README.md")) {
		if !zh[fact] {
			missing = append(missing, fact)
		}
	}
	sort.Strings(missing)
	for _, fact := range missing {
		t.Errorf("README.md says %s; README.zh-CN.md does not", fact)
	}
}
