// Command cmdgen writes engine/command_gen.go and engine/wrappers_gen.go
// from the engine's command declarations: each struct type named Cmd<X>
// whose doc comment ends with the directive
//
//	//engine:kind <n>
//
// is command kind kind<X> = n, and each unexported one named retired<X>
// (a command no driver sends any more, still read from old logs:
// command_retired.go) is kind kindRetired<X> = n. For every command it writes the kind
// constant, its name, its kind method, and its case in the record encoder
// and decoder: the fields in declaration order, nested argument structs
// field by field, each type written by the wire.go or command_values.go
// helper the types table below names. A field of a type the table does
// not know stops the generator with an error rather than guessing an
// encoding, since records on disk hold whatever it decides.
//
// It writes engine/wrappers_gen.go as well: the per-method API, a Broker
// method for each command with an //engine:returns directive (wrappers.go
// says how).
//
// Run it with go generate ./engine (see the go:generate line in
// engine/command.go); make generate-check fails when command_gen.go or
// wrappers_gen.go is stale. It lives here, not under engine/, because it
// reads and writes files: the engine's packages do no I/O, and nothing
// links this command.
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const output = "command_gen.go"

// codec says how a field type is written and read. enc is a format with
// one %s, the field's expression; dec is the expression that reads it.
type codec struct{ enc, dec string }

// types maps a field's type, as written in the declaration, to its codec.
var types = map[string]codec{
	"string":       {"e.str(%s)", "d.str()"},
	"bool":         {"e.boolean(%s)", "d.boolean()"},
	"uint16":       {"e.uvarint(uint64(%s))", "uint16(d.unsigned(math.MaxUint16))"},
	"uint32":       {"e.uvarint(uint64(%s))", "uint32(d.unsigned(math.MaxUint32))"},
	"uint64":       {"e.uvarint(%s)", "d.uvarint()"},
	"int":          {"e.varint(int64(%s))", "int(d.signed(math.MinInt, math.MaxInt))"},
	"int64":        {"e.varint(%s)", "d.varint()"},
	"[]byte":       {"e.bytes(%s)", "d.bytes()"},
	"[]string":     {"e.strs(%s)", "d.strs()"},
	"Time":         {"e.varint(int64(%s))", "Time(d.varint())"},
	"ConnID":       {"e.uvarint(uint64(%s))", "ConnID(d.unsigned(math.MaxUint32))"},
	"ChannelID":    {"e.channel(%s)", "d.channel()"},
	"Table":        {"e.table(%s, 0)", "d.table(0)"},
	"*Properties":  {"e.props(%s)", "d.props()"},
	"*Permissions": {"e.perms(%s)", "d.perms()"},
	"*Error":       {"e.exception(%s)", "d.exception()"},
}

type command struct {
	name     string // X of CmdX or retiredX: the kind's name
	typeName string // CmdX or retiredX
	constant string // kindX or kindRetiredX
	kind     int
	typ      *ast.StructType
	doc      *ast.CommentGroup
	// returns is set for a command with a //engine:returns directive: the
	// Result fields its wrappers return, in order (wrappers.go).
	returns  []string
	wrappers []wrapper
}

func main() {
	if err := run("."); err != nil {
		fmt.Fprintln(os.Stderr, "cmdgen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	structs, cmds, err := parse(dir)
	if err != nil {
		return err
	}
	src, err := generate(structs, cmds)
	if err != nil {
		return err
	}
	wrappers, err := generateWrappers(structs, cmds)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, output), src, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, wrappersOutput), wrappers, 0o644)
}

// parse reads the package's non-test files (but its own output) and
// returns its struct types by name and its commands by kind.
func parse(dir string) (map[string]*ast.StructType, []command, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	structs := map[string]*ast.StructType{}
	var cmds []command
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || filepath.Base(f) == output || filepath.Base(f) == wrappersOutput {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			return nil, nil, err
		}
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				structs[ts.Name.Name] = st
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				kind, found, err := kindDirective(doc)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %v", ts.Name.Name, err)
				}
				c := command{typeName: ts.Name.Name, kind: kind, typ: st, doc: doc}
				if err := wrapperDirectives(&c); err != nil {
					return nil, nil, fmt.Errorf("%s: %v", ts.Name.Name, err)
				}
				name, isCmd := strings.CutPrefix(c.typeName, "Cmd")
				c.name, c.constant = name, "kind"+name
				if name, retired := strings.CutPrefix(c.typeName, "retired"); retired {
					isCmd, c.name, c.constant = true, name, "kindRetired"+name
				}
				switch {
				case found && !isCmd:
					return nil, nil, fmt.Errorf("%s has a kind but is not named Cmd<Method> or retired<Method>", ts.Name.Name)
				case isCmd && !found:
					return nil, nil, fmt.Errorf("%s has no //engine:kind directive", ts.Name.Name)
				case !found && c.returns != nil:
					return nil, nil, fmt.Errorf("%s has a wrapper directive but no kind", ts.Name.Name)
				case found && c.returns != nil && !strings.HasPrefix(c.typeName, "Cmd"):
					return nil, nil, fmt.Errorf("%s is retired: a retired command has no wrapper", ts.Name.Name)
				case found:
					cmds = append(cmds, c)
				}
			}
		}
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].kind < cmds[j].kind })
	for i, c := range cmds {
		if c.kind < 1 || c.kind > 255 {
			return nil, nil, fmt.Errorf("%s: kind %d is not in 1..255", c.typeName, c.kind)
		}
		if i > 0 && cmds[i-1].kind == c.kind {
			return nil, nil, fmt.Errorf("%s and %s share kind %d", cmds[i-1].typeName, c.typeName, c.kind)
		}
	}
	return structs, cmds, nil
}

func kindDirective(doc *ast.CommentGroup) (int, bool, error) {
	if doc == nil {
		return 0, false, nil
	}
	for _, c := range doc.List {
		if v, ok := strings.CutPrefix(c.Text, "//engine:kind "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			return n, true, err
		}
	}
	return 0, false, nil
}

// field is one encoded leaf: the expression that holds it (relative to
// the command) and its codec, or, for a nested argument struct, its own
// fields.
type field struct {
	name   string
	codec  codec
	typ    string  // the nested struct's type name
	fields []field // set for a nested struct
}

func fieldsOf(structs map[string]*ast.StructType, st *ast.StructType, where string) ([]field, error) {
	var out []field
	for _, f := range st.Fields.List {
		typ := exprString(f.Type)
		for _, n := range f.Names {
			if !n.IsExported() {
				continue // state the engine derives, never an input
			}
			if c, ok := types[typ]; ok {
				out = append(out, field{name: n.Name, codec: c})
				continue
			}
			inner, ok := structs[typ]
			if !ok {
				return nil, fmt.Errorf("%s.%s: no codec for type %s: add one to cmdgen's types", where, n.Name, typ)
			}
			sub, err := fieldsOf(structs, inner, typ)
			if err != nil {
				return nil, err
			}
			out = append(out, field{name: n.Name, typ: typ, fields: sub})
		}
		if len(f.Names) == 0 {
			return nil, fmt.Errorf("%s: embedded field %s: commands name their fields", where, typ)
		}
	}
	return out, nil
}

func exprString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + exprString(t.X)
	case *ast.ArrayType:
		if t.Len == nil {
			return "[]" + exprString(t.Elt)
		}
	case *ast.SelectorExpr:
		return exprString(t.X) + "." + t.Sel.Name
	}
	return fmt.Sprintf("%T", e)
}

func encode(w *bytes.Buffer, fields []field, at string) {
	for _, f := range fields {
		if f.fields != nil {
			encode(w, f.fields, at+"."+f.name)
			continue
		}
		fmt.Fprintf(w, "\t\t"+f.codec.enc+"\n", at+"."+f.name)
	}
}

func decode(fields []field) string {
	var parts []string
	for _, f := range fields {
		if f.fields != nil {
			parts = append(parts, f.name+": "+f.typ+"{"+decode(f.fields)+"}")
			continue
		}
		parts = append(parts, f.name+": "+f.codec.dec)
	}
	return strings.Join(parts, ", ")
}

func generate(structs map[string]*ast.StructType, cmds []command) ([]byte, error) {
	var w bytes.Buffer
	w.WriteString(`// Code generated by "go run warren/server/cmd/cmdgen"; DO NOT EDIT.

package engine

import (
	"math"
	"strconv"
)

// The command kinds: their numbers, from the //engine:kind directives on the Cmd
// structs. The numbers are the records': fixed forever.
const (
`)
	for _, c := range cmds {
		fmt.Fprintf(&w, "\t%s CommandKind = %d\n", c.constant, c.kind)
	}
	w.WriteString(")\n\n// commandNames names the kinds, for errors and tests; its length bounds\n// the kinds the decoder accepts.\nvar commandNames = [...]string{\n")
	for _, c := range cmds {
		fmt.Fprintf(&w, "\t%s: %q,\n", c.constant, c.name)
	}
	w.WriteString("}\n\n")
	for _, c := range cmds {
		fmt.Fprintf(&w, "func (%s) kind() CommandKind { return %s }\n", c.typeName, c.constant)
	}
	w.WriteString(`
// applyRef applies a command given by pointer (see Command): the command
// it points to, converted on Apply's stack (Apply keeps no command), so
// that recording, the durable log and Apply's cases see the value they
// always do. ok is false for a command given by value.
func (b *Broker) applyRef(c Command) (r Result, ok bool) {
	switch c := c.(type) {
`)
	for _, c := range cmds {
		if strings.HasPrefix(c.typeName, "Cmd") {
			fmt.Fprintf(&w, "\tcase *%s:\n\t\treturn b.Apply(*c), true\n", c.typeName)
		}
	}
	w.WriteString(`	}
	return r, false
}
`)
	w.WriteString(`
// cmd writes c's kind and fields. The kind is written as a constant, not
// through the Command interface: a call through it would make every
// command escape to the heap, an allocation per publish.
func (e *encoder) cmd(c Command) {
	switch c := c.(type) {
`)
	decoded := map[string][]field{}
	for _, c := range cmds {
		fields, err := fieldsOf(structs, c.typ, c.typeName)
		if err != nil {
			return nil, err
		}
		decoded[c.typeName] = fields
		fmt.Fprintf(&w, "\tcase %s:\n\t\te.tag(%s)\n", c.typeName, c.constant)
		encode(&w, fields, "c")
	}
	w.WriteString(`	default:
		e.fail("not a command")
	}
}

// cmd reads a command's kind and fields. Go evaluates a composite
// literal's elements in order, so each literal reads its fields in the
// order the encoder wrote them.
func (d *decoder) cmd() Command {
	k := CommandKind(d.byte1())
	if d.err != nil {
		return nil
	}
	switch k {
`)
	for _, c := range cmds {
		fmt.Fprintf(&w, "\tcase %s:\n\t\treturn %s{%s}\n", c.constant, c.typeName, decode(decoded[c.typeName]))
	}
	w.WriteString(`	}
	d.off--
	d.fail("unknown command kind " + strconv.Itoa(int(k)))
	return nil
}
`)
	src, err := format.Source(w.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the output: %v\n%s", err, w.Bytes())
	}
	return src, nil
}
