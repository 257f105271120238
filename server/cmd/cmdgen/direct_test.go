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
	fset, fd := applyOf(t, applySource(applyPrologue))
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

// TestApplyPrologueIsChecked checks that a statement added to Apply
// before its switch stops the generator, rather than giving wrappers
// that skip it.
func TestApplyPrologueIsChecked(t *testing.T) {
	fset, fd := applyOf(t, applySource(applyPrologue+"\n\tb.journal(c)"))
	if _, err := applyCases(fset, fd); err == nil || !strings.Contains(err.Error(), "before its switch") {
		t.Fatalf("got %v", err)
	}
}
