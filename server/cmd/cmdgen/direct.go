package main

// Direct wrappers. A wrapper that built its command and called Apply paid,
// on every call, for the command turned into an interface value (a copy
// of the struct), Apply's type switch copying it out again, and the whole
// Result (176 bytes) returned and copied back for the one field it wanted:
// about a tenth of a publish's cost in the engine's publish→deliver→ack
// benchmark (docs/benchmarks.md). So where Apply's case for a command is
// one call on the command's fields,
//
//	case CmdBasicPublish:
//		r.Err = b.basicPublish(c.Channel, c.Publish)
//
// the wrapper makes that call itself, after what Apply does before its
// switch (the command's record, when recording), and returns what the
// call returns:
//
//	if b.cfg.RecordCommands {
//		b.record(CmdBasicPublish{Channel: channel, Publish: publish})
//	}
//	return b.basicPublish(channel, publish)
//
// The call is read from apply.go, never written twice, so the wrapper
// cannot drift from Apply; so are Apply's statements before its switch,
// repeated in every direct wrapper with the command literal for c (a
// statement there that returns, reads r or assigns c stops the generator,
// which says so, rather than writing wrappers that would skip it).

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"strings"
)

// directCall is Apply's case for one command when that case is a single
// call b.method(args): result is the Result field it assigns ("" for a
// call whose value is not kept), prologue what Apply does before.
type directCall struct {
	result   string
	method   string
	args     []callArg
	prologue *prologue
}

// callArg is one argument: the command's field (c.Field), the whole
// command (c), or an expression that does not involve the command.
type callArg struct {
	field string
	whole bool
	text  string
}

// prologue is Apply's statements before its switch, which every direct
// wrapper repeats with the command literal in place of c: the record when
// recording, and whatever a later change puts there.
type prologue struct {
	fset  *token.FileSet
	stmts []ast.Stmt
	cs    []*ast.Ident // the uses of c, renamed to the literal to print
}

// render prints the statements with c as lit, indented one tab.
func (p *prologue) render(lit string) (string, error) {
	for _, id := range p.cs {
		id.Name = lit
	}
	defer func() {
		for _, id := range p.cs {
			id.Name = "c"
		}
	}()
	var out strings.Builder
	for _, s := range p.stmts {
		var t strings.Builder
		if err := format.Node(&t, p.fset, s); err != nil {
			return "", err
		}
		for _, line := range strings.Split(t.String(), "\n") {
			out.WriteString("\t" + line + "\n")
		}
	}
	return out.String(), nil
}

// applyCases reads Broker.Apply's type switch and returns, by Cmd type
// name, the cases that are one direct call, each with the statements
// before the switch. It fails when Apply's shape is not the one the direct
// wrappers copy, or a statement before the switch could not be repeated
// in a wrapper as it is: one that returns, reads the result r or assigns c.
func applyCases(fset *token.FileSet, fd *ast.FuncDecl) (map[string]directCall, error) {
	stmts := fd.Body.List
	if len(stmts) < 2 {
		return nil, fmt.Errorf("Broker.Apply: want its statements, a type switch and return r")
	}
	pro := &prologue{fset: fset, stmts: stmts[:len(stmts)-2]}
	for _, s := range pro.stmts {
		var bad string
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ReturnStmt:
				bad = "returns"
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if isIdent(l, "c") {
						bad = "assigns c"
					}
				}
			case *ast.Ident:
				switch n.Name {
				case "r":
					bad = "reads the result r"
				case "c":
					pro.cs = append(pro.cs, n)
				}
			}
			return bad == ""
		})
		if bad != "" {
			var t strings.Builder
			format.Node(&t, fset, s)
			return nil, fmt.Errorf("Broker.Apply's statement before its switch\n%s\n%s, so the direct wrappers (server/cmd/cmdgen/direct.go) cannot repeat it", t.String(), bad)
		}
	}
	sw, ok := stmts[len(stmts)-2].(*ast.TypeSwitchStmt)
	if !ok {
		return nil, fmt.Errorf("Broker.Apply: want a type switch before its last statement")
	}
	if ret, ok := stmts[len(stmts)-1].(*ast.ReturnStmt); !ok || len(ret.Results) != 1 || !isIdent(ret.Results[0], "r") {
		return nil, fmt.Errorf("Broker.Apply: want return r as its last statement")
	}
	out := map[string]directCall{}
	for _, s := range sw.Body.List {
		cc := s.(*ast.CaseClause)
		if len(cc.List) != 1 || len(cc.Body) != 1 {
			continue
		}
		id, ok := cc.List[0].(*ast.Ident)
		if !ok {
			continue
		}
		if d, ok := direct(fset, cc.Body[0]); ok {
			d.prologue = pro
			out[id.Name] = d
		}
	}
	return out, nil
}

// direct reports whether s is r.F = b.m(args) or b.m(args) with args the
// command's fields, the command, or expressions without it.
func direct(fset *token.FileSet, s ast.Stmt) (directCall, bool) {
	var d directCall
	var call ast.Expr
	switch s := s.(type) {
	case *ast.ExprStmt:
		call = s.X
	case *ast.AssignStmt:
		if s.Tok != token.ASSIGN || len(s.Lhs) != 1 || len(s.Rhs) != 1 {
			return d, false
		}
		sel, ok := s.Lhs[0].(*ast.SelectorExpr)
		if !ok || !isIdent(sel.X, "r") {
			return d, false
		}
		d.result, call = sel.Sel.Name, s.Rhs[0]
	default:
		return d, false
	}
	ce, ok := call.(*ast.CallExpr)
	if !ok || ce.Ellipsis.IsValid() {
		return d, false
	}
	fn, ok := ce.Fun.(*ast.SelectorExpr)
	if !ok || !isIdent(fn.X, "b") {
		return d, false
	}
	d.method = fn.Sel.Name
	for _, a := range ce.Args {
		switch {
		case isIdent(a, "c"):
			d.args = append(d.args, callArg{whole: true})
		case isField(a):
			d.args = append(d.args, callArg{field: a.(*ast.SelectorExpr).Sel.Name})
		case mentions(a, "c", "r", "b"):
			return d, false
		default:
			var t strings.Builder
			if err := format.Node(&t, fset, a); err != nil {
				return d, false
			}
			d.args = append(d.args, callArg{text: t.String()})
		}
	}
	return d, true
}

// isField reports whether e is c.Field.
func isField(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && isIdent(sel.X, "c")
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// mentions reports whether e uses any of the names.
func mentions(e ast.Expr, names ...string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			for _, name := range names {
				if id.Name == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// directBody is the body of the wrapper of c that returns returns, from
// Apply's case d with the command literal lit and its fields' values
// (the parameters, or the fixed values); ok is false when the wrapper
// must call Apply instead: the call returns something other than what
// the wrapper returns.
func directBody(d directCall, lit string, values map[string]string, returns []string) (string, bool) {
	var args []string
	for _, a := range d.args {
		switch {
		case a.whole:
			args = append(args, lit)
		case a.field != "":
			v, ok := values[a.field]
			if !ok {
				return "", false
			}
			args = append(args, v)
		default:
			args = append(args, a.text)
		}
	}
	call := "b." + d.method + "(" + strings.Join(args, ", ") + ")"
	pro, err := d.prologue.render(lit)
	if err != nil {
		return "", false
	}
	switch {
	case len(returns) == 0 && d.result == "":
		return pro + "\t" + call + "\n", true
	case len(returns) == 1 && returns[0] == d.result:
		return pro + "\treturn " + call + "\n", true
	}
	return "", false
}
