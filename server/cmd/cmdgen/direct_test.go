package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// applySource is a Broker.Apply of the shape the direct wrappers copy,
// with prologue before its switch.
const recordWhenRecording = "if b.cfg.RecordCommands {\n\t\tb.record(c)\n\t}"

func applySource(prologue string) string {
	return `package engine
func (b *Broker) Apply(c Command) (r Result) {
	` + prologue + `
	switch c := c.(type) {
	case CmdBasicPublish:
		r.Err = b.basicPublish(c.Channel, c.Publish)
	case CmdCloseChannel:
		b.closeChannel(c.Channel)
	case CmdBasicReject:
		r.Err = b.reject(CmdBasicNack{Channel: c.Channel}, MethodBasicReject)
	case CmdSetLimits:
		b.cfg.MaxQueuesPerVhost = c.Limits.MaxQueuesPerVhost
	}
	return r
}`
}

func applyOf(t *testing.T, src string) (*token.FileSet, *ast.FuncDecl) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "apply.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fset, f.Decls[0].(*ast.FuncDecl)
}

// TestDirectCases checks which of Apply's cases a wrapper may make
// itself: one call on the command's fields, and nothing else.
func TestDirectCases(t *testing.T) {
	fset, fd := applyOf(t, applySource(recordWhenRecording))
	cases, err := applyCases(fset, fd)
	if err != nil {
		t.Fatal(err)
	}
	pub, ok := cases["CmdBasicPublish"]
	if !ok || pub.method != "basicPublish" || pub.result != "Err" || len(pub.args) != 2 {
		t.Errorf("CmdBasicPublish: %+v", pub)
	}
	body, ok := directBody(pub, "CmdBasicPublish{Channel: channel, Publish: publish}",
		map[string]string{"Channel": "channel", "Publish": "publish"}, []string{"Err"})
	if !ok || !strings.Contains(body, "b.record(CmdBasicPublish{Channel: channel, Publish: publish})") ||
		!strings.Contains(body, "return b.basicPublish(channel, publish)") {
		t.Errorf("BasicPublish's body:\n%s", body)
	}
	if _, ok := directBody(pub, "", map[string]string{"Channel": "channel", "Publish": "publish"}, nil); ok {
		t.Error("a wrapper returning nothing made a call whose error Apply keeps")
	}
	if c, ok := cases["CmdCloseChannel"]; !ok || c.result != "" {
		t.Errorf("CmdCloseChannel: %+v, %v", c, ok)
	}
	// A literal of another command holding c's fields is left to Apply.
	if _, ok := cases["CmdBasicReject"]; ok {
		t.Error("CmdBasicReject's case, which builds another command from c, was taken as direct")
	}
	if _, ok := cases["CmdSetLimits"]; ok {
		t.Error("CmdSetLimits's case, an assignment, was taken as direct")
	}
}

// TestApplyPrologueIsRepeated checks that what Apply does before its
// switch is what a direct wrapper does first, with the command for c, a
// statement added there included; and that one a wrapper could not repeat
// as it is (a return, a read of the result) stops the generator.
func TestApplyPrologueIsRepeated(t *testing.T) {
	fset, fd := applyOf(t, applySource(recordWhenRecording+"\n\tif b.dlog != nil {\n\t\tb.dlog.noteCommand(c)\n\t}"))
	cases, err := applyCases(fset, fd)
	if err != nil {
		t.Fatal(err)
	}
	lit := "CmdCloseChannel{Channel: channel}"
	body, ok := directBody(cases["CmdCloseChannel"], lit, map[string]string{"Channel": "channel"}, nil)
	want := "\tif b.cfg.RecordCommands {\n\t\tb.record(" + lit + ")\n\t}\n" +
		"\tif b.dlog != nil {\n\t\tb.dlog.noteCommand(" + lit + ")\n\t}\n" +
		"\tb.closeChannel(channel)\n"
	if !ok || body != want {
		t.Errorf("got\n%s\nwant\n%s", body, want)
	}
	for _, bad := range []string{"if c == nil {\n\t\treturn r\n\t}", "r.Err = nil", "c = nil"} {
		fset, fd := applyOf(t, applySource(bad))
		if _, err := applyCases(fset, fd); err == nil || !strings.Contains(err.Error(), "cannot repeat it") {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}
