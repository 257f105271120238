package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// withoutWrapper are the commands with no //engine:returns directive, so
// no per-method wrapper: their methods took booleans by position
// (basic.ack's multiple, basic.nack's multiple and requeue, ...), and
// callers name the fields instead, as in
// Apply(CmdBasicNack{Channel: ch, DeliveryTag: tag, Requeue: true}).
// Every other command has its wrapper generated; no wrapper is written by
// hand.
var withoutWrapper = []string{
	"CmdBasicAck", "CmdBasicNack", "CmdBasicReject", "CmdBasicRecover",
	"CmdBasicRecoverAsync", "CmdPauseConnection",
	// The durable log's records (engine/durable_cmds.go): the engine
	// writes them and a recovery applies them; no driver makes one.
	"CmdDurablePut", "CmdDurableTake", "CmdDurableHold", "CmdDurableDone", "CmdDurableClock",
	"CmdDurableQueue", "CmdDurableQueueGone", "CmdDurableExchange", "CmdDurableExchangeGone",
	"CmdDurableBind", "CmdDurableUnbind", "CmdDurableBuffer",
	"CmdDurableDelay", "CmdDurableRelease", "CmdDurablePolicy", "CmdDurableRetime", "CmdDurableVhostGone",
}

// TestWrappersAreComplete keeps the per-method API generated: every
// command but those in withoutWrapper has an //engine:returns directive,
// wrappers_gen.go declares a method for each wrapper the directives name,
// and no hand-written *Broker method in the engine builds a command that
// has a generated wrapper (it would be a second, drifting copy).
func TestWrappersAreComplete(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "engine")
	_, cmds, err := parse(dir)
	if err != nil {
		t.Fatal(err)
	}
	wrapped := map[string]bool{}
	var want, without []string
	for _, c := range cmds {
		if !strings.HasPrefix(c.typeName, "Cmd") {
			continue
		}
		if c.returns == nil {
			without = append(without, c.typeName)
			continue
		}
		wrapped[c.typeName] = true
		for _, w := range c.wrappers {
			want = append(want, w.name)
		}
	}
	sort.Strings(without)
	if w := slices.Sorted(slices.Values(withoutWrapper)); !slices.Equal(without, w) {
		t.Errorf("commands without a wrapper: %v, want %v (give a new command //engine:returns)", without, w)
	}

	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var generated []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		isGen := filepath.Base(f) == wrappersOutput
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Body == nil || !onBroker(fd) {
				continue
			}
			if isGen {
				generated = append(generated, fd.Name.Name)
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if cl, ok := n.(*ast.CompositeLit); ok {
					if id, ok := cl.Type.(*ast.Ident); ok && wrapped[id.Name] {
						t.Errorf("%s: Broker.%s builds %s by hand; its wrapper is generated (//engine:returns)",
							fset.Position(cl.Pos()), fd.Name.Name, id.Name)
					}
				}
				return true
			})
		}
	}
	sort.Strings(want)
	sort.Strings(generated)
	if !slices.Equal(generated, want) {
		t.Errorf("%s declares %v, want %v", wrappersOutput, generated, want)
	}
}

func onBroker(fd *ast.FuncDecl) bool {
	typ := fd.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.Name == "Broker"
}

// TestBadWrapperDirectivesAreRefused checks that a directive naming what
// does not exist stops the generator instead of writing code that does
// not compile, or a wrapper that drops a field.
func TestBadWrapperDirectivesAreRefused(t *testing.T) {
	result, err := parser.ParseExpr("struct{ Err error; Count int }")
	if err != nil {
		t.Fatal(err)
	}
	structs := map[string]*ast.StructType{"Result": result.(*ast.StructType)}
	for _, tc := range []struct{ directives, want string }{
		{"//engine:returns Count, Nothing", "Nothing, which is not a field of Result"},
		{"//engine:returns Err\n//engine:wrapper Y Missing=true", "CmdX has no field Missing"},
		{"//engine:wrapper Y Operator=true", "without //engine:returns"},
		{"//engine:returns Err\n//engine:wrapper Y Operator", "is not Field=value"},
		{"//engine:returnsErr", "unknown directive"},
	} {
		expr, err := parser.ParseExpr("struct{ Channel ChannelID; Operator bool }")
		if err != nil {
			t.Fatal(err)
		}
		c := command{typeName: "CmdX", typ: expr.(*ast.StructType), doc: &ast.CommentGroup{}}
		for _, line := range strings.Split(tc.directives, "\n") {
			c.doc.List = append(c.doc.List, &ast.Comment{Text: line})
		}
		err = wrapperDirectives(&c)
		if err == nil {
			_, err = generateWrappers(structs, []command{c})
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.directives, err, tc.want)
		}
	}
}
