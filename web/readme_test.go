package web

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The Chinese README and every Chinese topic guide in docs/ are full
// translations of their English twins, not summaries: these tests keep
// each pair in step. The English file is the source; its Chinese twin
// (X.zh-CN.md beside X.md) must have the same headings (level by level,
// in order), the same fenced code blocks byte for byte, prose that is
// Chinese, and every code span and figure of the English prose. The
// READMEs are also the front door: short, with the quick start's
// commands, and linking every guide.

// readmeDoc is a README or guide split into what the tests compare.
type readmeDoc struct {
	lines         int      // lines in the file
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
	text := strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for _, line := range strings.Split(text, "\n") {
		d.lines++
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

// docPair is an English document and its Chinese twin, as paths from
// this package's directory.
type docPair struct{ en, zh string }

// docPairs returns the READMEs and every guide in docs/, each English
// file with its Chinese twin. An English guide without a twin, or a
// Chinese one without its English source, fails the test.
func docPairs(t *testing.T) []docPair {
	t.Helper()
	pairs := []docPair{{"../README.md", "../README.zh-CN.md"}}
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		have[f] = true
	}
	for _, f := range files {
		if en, ok := strings.CutSuffix(f, ".zh-CN.md"); ok {
			if !have[en+".md"] {
				t.Errorf("%s has no English source %s.md", f, en)
			}
			continue
		}
		zh := strings.TrimSuffix(f, ".md") + ".zh-CN.md"
		if !have[zh] {
			t.Errorf("%s has no Chinese twin %s", f, zh)
			continue
		}
		pairs = append(pairs, docPair{f, zh})
	}
	if len(pairs) == 1 {
		t.Fatal("docs/ holds no guides")
	}
	return pairs
}

// eachPair runs check on every document pair as a subtest named after
// the English file.
func eachPair(t *testing.T, check func(t *testing.T, p docPair)) {
	for _, p := range docPairs(t) {
		t.Run(strings.TrimPrefix(p.en, "../"), func(t *testing.T) { check(t, p) })
	}
}

func TestReadmeHeadingsMatch(t *testing.T) {
	eachPair(t, func(t *testing.T, p docPair) {
		en := parseReadme(t, p.en)
		zh := parseReadme(t, p.zh)
		if reflect.DeepEqual(en.headingLevels, zh.headingLevels) {
			return
		}
		t.Errorf("%s has %d headings with levels %v; %s has %d with levels %v",
			p.zh, len(zh.headingLevels), zh.headingLevels, p.en, len(en.headingLevels), en.headingLevels)
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
	})
}

func TestReadmeCodeBlocksMatch(t *testing.T) {
	eachPair(t, func(t *testing.T, p docPair) {
		en := parseReadme(t, p.en)
		zh := parseReadme(t, p.zh)
		if len(en.codeBlocks) != len(zh.codeBlocks) {
			t.Errorf("%s has %d fenced code blocks, %s %d", p.en, len(en.codeBlocks), p.zh, len(zh.codeBlocks))
		}
		for i := 0; i < len(en.codeBlocks) && i < len(zh.codeBlocks); i++ {
			if en.codeBlocks[i] != zh.codeBlocks[i] {
				t.Errorf("fenced code block %d differs (code is copied, never translated):\n%s:\n%s\n%s:\n%s",
					i+1, p.en, en.codeBlocks[i], p.zh, zh.codeBlocks[i])
			}
		}
	})
}

// readmeEnglishRun is the rule for untranslated prose in a Chinese
// document: three or more English words in a row, separated only by
// spaces or commas. A word starts with a letter and may go on with
// letters, digits, '_', '-' and apostrophes, so "AMQP 0-9-1", "2 vCPU" and
// "UNEXPECTED_FRAME" are not runs, and Chinese punctuation (、，：)
// between words breaks one. Before matching, what is English by right is
// blanked out with a character that is no separator (so it breaks a run
// rather than joining the words on its two sides): inline code spans
// (which also covers table cells that are code, and cells like
// `step [N]`（说明）), links (their text and target), bare URLs, and
// readmeProductNames.
var readmeEnglishRun = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_'’-]*(?:[ ,]+[A-Za-z][A-Za-z0-9_'’-]*){2,}`)

// readmeProductNames are names that stay English in any language.
var readmeProductNames = regexp.MustCompile(`\b(?:RabbitMQ|Warren|Durable Object|amqp091-go|Cloudflare Workers)\b`)

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
	eachPair(t, func(t *testing.T, p docPair) {
		zh := parseReadme(t, p.zh)
		text := strings.Join(zh.prose, "\n")
		for _, re := range []*regexp.Regexp{readmeCodeSpan, readmeLink, readmeURL, readmeProductNames} {
			text = blankOut(re, text)
		}
		for i, line := range strings.Split(text, "\n") {
			for _, run := range readmeEnglishRun.FindAllString(line, -1) {
				t.Errorf("%s:%d: English left in the prose: %q", p.zh, i+1, run)
			}
		}
	})
}

// TestReadmeEnglishRunRule keeps the rule itself honest: it must catch an
// untranslated phrase and let through what the Chinese documents rightly
// keep in English.
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
// document's prose.
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

// TestReadmeChineseCarriesTheFacts: every command, name and figure an
// English document gives in its prose is in its Chinese twin too, so a
// sentence added to one language and not the other fails when it says
// anything a reader could act on or check.
func TestReadmeChineseCarriesTheFacts(t *testing.T) {
	eachPair(t, func(t *testing.T, p docPair) {
		zh := readmeFacts(parseReadme(t, p.zh))
		var missing []string
		for fact := range readmeFacts(parseReadme(t, p.en)) {
			if !zh[fact] {
				missing = append(missing, fact)
			}
		}
		sort.Strings(missing)
		for _, fact := range missing {
			t.Errorf("%s says %s; %s does not", p.en, fact, p.zh)
		}
	})
}

// readmeMaxLines is the front door's length: a newcomer reads it in
// minutes (etcd's raft README is 202 lines); the rest is in docs/.
const readmeMaxLines = 250

// readmeQuickStart is what each README must tell a newcomer in so many
// words: the two commands, the page to open and the URL a client uses.
var readmeQuickStart = []string{
	"make run",
	"make test",
	"http://127.0.0.1:8080/playground",
	"amqp://guest:guest@127.0.0.1:5672/",
}

// TestReadmeIsAFrontDoor: each README is at most readmeMaxLines long,
// holds the quick start's commands and URLs, and links every guide in
// docs/ in its own language.
func TestReadmeIsAFrontDoor(t *testing.T) {
	pairs := docPairs(t)
	for i, readme := range []string{"../README.md", "../README.zh-CN.md"} {
		d := parseReadme(t, readme)
		if d.lines > readmeMaxLines {
			t.Errorf("%s is %d lines; at most %d (move the detail to a guide in docs/)", readme, d.lines, readmeMaxLines)
		}
		data, err := os.ReadFile(readme)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, want := range readmeQuickStart {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks the quick start's %q", readme, want)
			}
		}
		for _, p := range pairs[1:] {
			guide := p.en
			if i == 1 {
				guide = p.zh
			}
			link := "(" + strings.TrimPrefix(guide, "../") + ")"
			if !strings.Contains(text, link) {
				t.Errorf("%s does not link %s as %s", readme, guide, link)
			}
		}
	}
}

// TestReadmeFrontDoorRule: the length rule counts lines as an editor
// shows them, so a file of readmeMaxLines lines ending in a newline passes
// and one more line fails.
func TestReadmeFrontDoorRule(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{readmeMaxLines, readmeMaxLines + 1} {
		path := filepath.Join(dir, "README.md")
		if err := os.WriteFile(path, []byte(strings.Repeat("line\n", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := parseReadme(t, path).lines; got != n {
			t.Errorf("a file of %d lines counts as %d", n, got)
		}
	}
}

// docsLink is a relative Markdown link: its target up to any #fragment.
var docsLink = regexp.MustCompile(`\]\(([^)#:\s]+)(?:#[^)]*)?\)`)

// docsPathSpan is a code span naming a file or folder of the tree: it
// starts with one of the tree's top-level folders.
var docsPathSpan = regexp.MustCompile("`((?:engine|server|web|wasm|lessons|docs)/[A-Za-z0-9_./*-]*)`")

// docsPlaceholder marks a file name that stands for many, such as
// NN-slug.txt or rawsys_*.go.
var docsPlaceholder = regexp.MustCompile(`\*|^NN-`)

// docsBuildOutputs are paths the documents name that a build writes and
// git ignores, so a fresh checkout does not have them.
var docsBuildOutputs = []string{"wasm/worker/build", "wasm/playground/dist", "web/static/warren.wasm", "web/static/wasm_exec.js"}

// TestDocsPathsExist: every relative link and every file or folder a
// document names in a code span exists in the tree, so that a move (a
// package going from server/ to engine/, say) that leaves a document
// behind fails here.
func TestDocsPathsExist(t *testing.T) {
	for _, p := range docPairs(t) {
		for _, doc := range []string{p.en, p.zh} {
			d := parseReadme(t, doc)
			for i, line := range d.prose {
				for _, m := range docsLink.FindAllStringSubmatch(line, -1) {
					target := filepath.Join(filepath.Dir(doc), m[1])
					if _, err := os.Stat(target); err != nil {
						t.Errorf("%s:%d: link to %s: %v", doc, i+1, m[1], err)
					}
				}
				for _, m := range docsPathSpan.FindAllStringSubmatch(line, -1) {
					path := strings.TrimSuffix(m[1], ".")
					if isBuildOutput(path) {
						continue
					}
					if docsPlaceholder.MatchString(filepath.Base(path)) {
						path = filepath.Dir(path) // a pattern: its folder must exist
					}
					if _, err := os.Stat(filepath.Join("..", path)); err != nil {
						t.Errorf("%s:%d: names %s, which is not in the tree", doc, i+1, path)
					}
				}
			}
		}
	}
}

func isBuildOutput(path string) bool {
	for _, out := range docsBuildOutputs {
		if path == out || strings.HasPrefix(path, out+"/") {
			return true
		}
	}
	return false
}

// serveFlag is a flag warren serve defines: fs.String("amqp", ...).
var serveFlag = regexp.MustCompile(`fs\.[A-Z][a-z0-9]*\("([a-z0-9-]+)"`)

// TestDocsNameEveryServeFlag: every flag of warren serve is described in
// the guides (as `--flag`), in both languages, so a new flag comes with
// its documentation.
func TestDocsNameEveryServeFlag(t *testing.T) {
	src, err := os.ReadFile("../server/cmd/warren/serve.go")
	if err != nil {
		t.Fatal(err)
	}
	flags := serveFlag.FindAllStringSubmatch(string(src), -1)
	if len(flags) < 20 {
		t.Fatalf("found %d flags in serve.go; the pattern %s no longer matches how it defines them", len(flags), serveFlag)
	}
	var en, zh strings.Builder
	for _, p := range docPairs(t) {
		for _, pair := range [][2]string{{p.en, ""}, {p.zh, "zh"}} {
			data, err := os.ReadFile(pair[0])
			if err != nil {
				t.Fatal(err)
			}
			if pair[1] == "" {
				en.Write(data)
			} else {
				zh.Write(data)
			}
		}
	}
	for _, f := range flags {
		for lang, text := range map[string]string{"English": en.String(), "Chinese": zh.String()} {
			if !strings.Contains(text, "--"+f[1]) {
				t.Errorf("warren serve's --%s is in no %s guide", f[1], lang)
			}
		}
	}
}
