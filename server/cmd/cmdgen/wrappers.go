package main

// The per-method API: a Cmd struct whose doc carries the directive
//
//	//engine:returns <Result field>, ...
//
// gets a method on *Broker, its wrapper, that takes the struct's fields
// as parameters (in order, named as the fields with a lower-case first
// letter), applies the command and returns those fields of Result, in
// order; an empty list returns nothing. By default the wrapper is CmdX's
// X. A command that stands for more than one method names each with
//
//	//engine:wrapper <Method> <Field>=<Go constant> ...
//
// whose fields are fixed to the constants instead of being parameters
// (CmdSetPolicy's Operator: SetPolicy and SetOperatorPolicy). The
// wrapper's doc is the first sentence of the struct's, with CmdX turned
// into X, and a pointer to the struct, which carries the semantics.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"strings"
	"unicode"
	"unicode/utf8"
)

const wrappersOutput = "wrappers_gen.go"

// wrapper is one generated method: its name and the command fields it
// fixes, in the order the directive gives them.
type wrapper struct {
	name  string
	fixed []fixedField
}

type fixedField struct{ name, value string }

// wrapperDirectives reads c's //engine:returns and //engine:wrapper
// directives into c.
// byPointer names the commands whose wrappers give Apply a pointer to the
// command, built on the wrapper's stack: Apply takes a publish by pointer
// straight to its case (engine/apply.go), where a value (80 bytes) is
// copied into the interface and out of it again on every message.
var byPointer = map[string]bool{"CmdBasicPublish": true}

func wrapperDirectives(c *command) error {
	if c.doc == nil {
		return nil
	}
	for _, cm := range c.doc.List {
		if v, ok := strings.CutPrefix(cm.Text, "//engine:returns"); ok {
			if v != "" && v[0] != ' ' {
				return fmt.Errorf("unknown directive %s", cm.Text)
			}
			if c.returns != nil {
				return fmt.Errorf("two //engine:returns directives")
			}
			c.returns = []string{}
			for _, f := range strings.Split(v, ",") {
				if f = strings.TrimSpace(f); f != "" {
					c.returns = append(c.returns, f)
				}
			}
			continue
		}
		if v, ok := strings.CutPrefix(cm.Text, "//engine:wrapper "); ok {
			words := strings.Fields(v)
			if len(words) == 0 {
				return fmt.Errorf("//engine:wrapper names no method")
			}
			w := wrapper{name: words[0]}
			for _, kv := range words[1:] {
				name, value, ok := strings.Cut(kv, "=")
				if !ok || name == "" || value == "" {
					return fmt.Errorf("//engine:wrapper %s: %q is not Field=value", w.name, kv)
				}
				w.fixed = append(w.fixed, fixedField{name, value})
			}
			c.wrappers = append(c.wrappers, w)
		}
	}
	if c.wrappers != nil && c.returns == nil {
		return fmt.Errorf("//engine:wrapper without //engine:returns")
	}
	if c.returns != nil && c.wrappers == nil {
		c.wrappers = []wrapper{{name: strings.TrimPrefix(c.typeName, "Cmd")}}
	}
	return nil
}

// param is one of a wrapper's parameters, or a fixed field.
type param struct{ field, name, typ, value string }

// wrapperParams returns c's fields as w's parameters, with the fixed
// ones' values set.
func wrapperParams(c command, w wrapper) ([]param, error) {
	fixed := map[string]string{}
	for _, f := range w.fixed {
		fixed[f.name] = f.value
	}
	var out []param
	for _, f := range c.typ.Fields.List {
		for _, n := range f.Names {
			p := param{field: n.Name, name: lowerFirst(n.Name), typ: exprString(f.Type)}
			if v, ok := fixed[n.Name]; ok {
				p.value = v
				delete(fixed, n.Name)
			} else if token.IsKeyword(p.name) || p.name == "b" || p.name == "r" {
				return nil, fmt.Errorf("%s: field %s cannot be parameter %s", w.name, n.Name, p.name)
			}
			out = append(out, p)
		}
	}
	for _, f := range w.fixed {
		if _, left := fixed[f.name]; left {
			return nil, fmt.Errorf("//engine:wrapper %s: %s has no field %s", w.name, c.typeName, f.name)
		}
	}
	return out, nil
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// resultTypes returns the types of Result's fields named in returns.
func resultTypes(structs map[string]*ast.StructType, c command) ([]string, error) {
	result, ok := structs["Result"]
	if !ok {
		return nil, fmt.Errorf("no Result struct")
	}
	types := map[string]string{}
	for _, f := range result.Fields.List {
		for _, n := range f.Names {
			types[n.Name] = exprString(f.Type)
		}
	}
	var out []string
	for _, r := range c.returns {
		t, ok := types[r]
		if !ok {
			return nil, fmt.Errorf("%s: //engine:returns names %s, which is not a field of Result", c.typeName, r)
		}
		out = append(out, t)
	}
	return out, nil
}

// firstSentence returns the first sentence of a doc comment's text,
// directives left out, on one line: up to the first period followed by
// a space or the end of the paragraph.
func firstSentence(doc *ast.CommentGroup) string {
	var words []string
	for _, line := range strings.Split(doc.Text(), "\n") {
		if strings.TrimSpace(line) == "" {
			if words != nil {
				break
			}
			continue
		}
		words = append(words, strings.Fields(line)...)
	}
	for i, w := range words {
		if strings.HasSuffix(w, ".") {
			return strings.Join(words[:i+1], " ")
		}
	}
	return strings.Join(words, " ")
}

// paramNames rewrites the struct's field names in a sentence of its doc
// as the wrapper's parameter names ("with Reason" becomes "with reason").
func paramNames(sentence string, params []param) string {
	names := map[string]string{}
	for _, p := range params {
		names[p.field] = p.name
	}
	words := strings.Fields(sentence)
	for i, word := range words {
		core := strings.TrimLeftFunc(word, func(r rune) bool { return !unicode.IsLetter(r) })
		lead := word[:len(word)-len(core)]
		core = strings.TrimRightFunc(core, func(r rune) bool { return !unicode.IsLetter(r) })
		trail := word[len(lead)+len(core):]
		if name, ok := strings.CutSuffix(core, "'s"); ok {
			core, trail = name, "'s"+trail
		}
		if n, ok := names[core]; ok {
			words[i] = lead + n + trail
		}
	}
	return strings.Join(words, " ")
}

// comment writes text as a doc comment wrapped at 76 columns.
func comment(w *bytes.Buffer, text string) {
	line := "//"
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > 76 && line != "//" {
			w.WriteString(line + "\n")
			line = "//"
		}
		line += " " + word
	}
	w.WriteString(line + "\n")
}

func generateWrappers(structs map[string]*ast.StructType, cmds []command) ([]byte, error) {
	var w bytes.Buffer
	w.WriteString(`// Code generated by "go run warren/server/cmd/cmdgen"; DO NOT EDIT.

package engine

// The per-method API: each method applies its command and returns parts of
// the Result, as the //engine:returns directive on the Cmd struct names.
// The struct's doc says what the command does.
`)
	for _, c := range cmds {
		if c.returns == nil {
			continue
		}
		results, err := resultTypes(structs, c)
		if err != nil {
			return nil, err
		}
		for _, wr := range c.wrappers {
			params, err := wrapperParams(c, wr)
			if err != nil {
				return nil, err
			}
			w.WriteString("\n")
			if wr.fixed == nil {
				sentence := firstSentence(c.doc)
				if rest, ok := strings.CutPrefix(sentence, c.typeName+" "); ok {
					comment(&w, wr.name+" "+paramNames(rest, params))
					w.WriteString("//\n")
				}
				comment(&w, "It applies "+c.typeName+": see "+c.typeName+".")
			} else {
				var with []string
				for _, f := range wr.fixed {
					with = append(with, f.name+" "+f.value)
				}
				comment(&w, wr.name+" applies "+c.typeName+" with "+strings.Join(with, ", ")+": see "+c.typeName+".")
			}
			var sig, lit []string
			for i, p := range params {
				if p.value != "" {
					lit = append(lit, p.field+": "+p.value)
					continue
				}
				lit = append(lit, p.field+": "+p.name)
				// Parameters of one type in a row share it, as in the
				// struct: (user, vhost string).
				next := i + 1
				for next < len(params) && params[next].value != "" {
					next++
				}
				if next < len(params) && params[next].typ == p.typ {
					sig = append(sig, p.name)
				} else {
					sig = append(sig, p.name+" "+p.typ)
				}
			}
			cmdLit := c.typeName + "{" + strings.Join(lit, ", ") + "}"
			if byPointer[c.typeName] {
				cmdLit = "&" + cmdLit
			}
			apply := "b.Apply(" + cmdLit + ")"
			fmt.Fprintf(&w, "func (b *Broker) %s(%s) ", wr.name, strings.Join(sig, ", "))
			switch len(results) {
			case 0:
				fmt.Fprintf(&w, "{\n\t%s\n}\n", apply)
			case 1:
				fmt.Fprintf(&w, "%s {\n\treturn %s.%s\n}\n", results[0], apply, c.returns[0])
			default:
				var rs []string
				for _, r := range c.returns {
					rs = append(rs, "r."+r)
				}
				fmt.Fprintf(&w, "(%s) {\n\tr := %s\n\treturn %s\n}\n", strings.Join(results, ", "), apply, strings.Join(rs, ", "))
			}
		}
	}
	src, err := format.Source(w.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the wrappers: %v\n%s", err, w.Bytes())
	}
	return src, nil
}
