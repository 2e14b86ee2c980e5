package syntax

import (
	"strings"
	"unicode"
)

// String prints the query in canonical form: Parse of it gives the same
// tree (positions aside). A blank query prints as "".
func (q *Query) String() string {
	if q == nil || q.Root == nil {
		return ""
	}
	return q.Root.String()
}

// String prints the tree under n in canonical form: "and" as a space,
// "or" as " or ", parentheses where needed, ":" for text fields and "="
// for number fields, values quoted when they would not parse back alone.
// A nil node prints as "".
func (n *Node) String() string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *Node) write(b *strings.Builder) {
	switch n.Kind {
	case NodeTerm:
		n.Term.write(b)
	case NodeNot:
		b.WriteByte('-')
		c := n.Nodes[0]
		// "-" before a digit is part of a word: a word that starts with
		// one is negated in parentheses.
		digit := c.Kind == NodeTerm && c.Term.Field == "" && startsWithDigit(c.Term.String())
		if c.Kind == NodeAnd || c.Kind == NodeOr || digit {
			b.WriteByte('(')
			c.write(b)
			b.WriteByte(')')
		} else {
			c.write(b)
		}
	case NodeAnd, NodeOr:
		sep := " "
		if n.Kind == NodeOr {
			sep = " or "
		}
		for i, c := range n.Nodes {
			if i > 0 {
				b.WriteString(sep)
			}
			// "and" binds tighter than "or": only an "or" inside an "and"
			// needs parentheses (and a nested node of the same kind, which
			// the parser never makes).
			if c.Kind == NodeOr || c.Kind == n.Kind {
				b.WriteByte('(')
				c.write(b)
				b.WriteByte(')')
			} else {
				c.write(b)
			}
		}
	}
}

// String prints the term in canonical form.
func (t Term) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Term) write(b *strings.Builder) {
	if t.Field == "" {
		if bareWord(t.Value) {
			b.WriteString(t.Value)
		} else {
			writeQuoted(b, t.Value)
		}
		return
	}
	if t.Exact {
		b.WriteByte('!')
	}
	b.WriteString(t.Field)
	if t.Op == OpRange {
		r := t.Range
		if r.LoExcl {
			b.WriteString(":{")
		} else {
			b.WriteString(":[")
		}
		b.WriteString(orStar(r.Lo))
		b.WriteString(" TO ")
		b.WriteString(orStar(r.Hi))
		if r.HiExcl {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
		return
	}
	switch f, _ := LookupField(t.Field); {
	case t.Op == OpEq && (f.Kind != KindNumber || t.Wildcard):
		b.WriteByte(':')
	default:
		b.WriteString(t.Op.String())
	}
	if t.Wildcard || bareValue(t.Value) {
		b.WriteString(t.Value)
	} else {
		writeQuoted(b, t.Value)
	}
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

func writeQuoted(b *strings.Builder, v string) {
	b.WriteByte('"')
	for _, r := range v {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
}

// bareWord reports whether v parses back, alone, as the plain word v, and
// keeps its parentheses to itself beside a ")" that closes a group.
func bareWord(v string) bool {
	p := &parser{src: []rune(v), schema: Cards}
	t, err := p.lex()
	if err != nil || t.kind != tTerm || t.term.Field != "" || t.end != len(p.src) || t.term.Value != v || t.pos != 0 {
		return false
	}
	return balanced(p.src)
}

// bareValue reports whether v, typed after a field's operator, parses back
// as the value v.
func bareValue(v string) bool {
	src := []rune(v)
	if len(src) == 0 || src[0] == '"' || src[0] == '[' || src[0] == '{' || strings.ContainsRune(v, '*') {
		return false // a phrase, a range, a wildcard
	}
	p := &parser{src: src}
	return p.bare(0) == len(src) && balanced(src)
}

// balanced reports whether every ")" of s closes a "(" of s and every "("
// is closed.
func balanced(s []rune) bool {
	depth := 0
	for _, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

func startsWithDigit(s string) bool {
	for _, r := range s {
		return unicode.IsDigit(r)
	}
	return false
}
