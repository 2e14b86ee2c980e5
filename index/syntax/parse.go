package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Parse parses q. A blank q gives a Query with a nil Root. Every error is
// an *Error.
func Parse(q string) (*Query, error) {
	p := &parser{src: []rune(q)}
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	if t.kind == tEOF {
		return &Query{}, nil
	}
	root, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t, err = p.peek(); err != nil {
		return nil, err
	}
	if t.kind != tEOF { // a ")" nothing opened
		return nil, p.errTok(t, `")" without "("`)
	}
	if root == nil { // unreachable: a query that is not blank starts with a term
		return nil, p.errTok(t, "no term")
	}
	return &Query{Root: root}, nil
}

// MustParse is Parse for queries known to be valid (tests, constants); it
// panics on an error.
func MustParse(q string) *Query {
	x, err := Parse(q)
	if err != nil {
		panic(err)
	}
	return x
}

type tokKind uint8

const (
	tEOF    tokKind = iota
	tLParen         // "(" at the start of a token
	tRParen         // ")" that no word holds
	tOr             // "or", any case
	tNeg            // "-" right before a term
	tTerm           // a word, phrase or field term
)

type token struct {
	kind     tokKind
	pos, end int // runes [pos, end) of the query
	term     Term
}

type parser struct {
	src    []rune
	i      int    // next rune to lex
	peeked *token // the next token, lexed
	depth  int    // open parentheses and negations
	terms  int
}

func (p *parser) peek() (token, error) {
	if p.peeked == nil {
		t, err := p.lex()
		if err != nil {
			return token{}, err
		}
		p.peeked = &t
	}
	return *p.peeked, nil
}

func (p *parser) next() { p.peeked = nil }

// parseOr parses terms joined by "or"; nil when there is no term at all
// (the caller says what is missing).
func (p *parser) parseOr() (*Node, error) {
	first, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	if first == nil {
		if t.kind == tOr {
			return nil, p.errTok(t, `"or" needs a term on each side`)
		}
		return nil, nil
	}
	nodes := []*Node{first}
	for t.kind == tOr {
		p.next()
		n, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		if n == nil {
			return nil, p.errTok(t, `"or" needs a term on each side`)
		}
		nodes = append(nodes, n)
		if t, err = p.peek(); err != nil {
			return nil, err
		}
	}
	return join(NodeOr, nodes), nil
}

// parseAnd parses terms side by side up to "or", ")" or the end; nil when
// there is none.
func (p *parser) parseAnd() (*Node, error) {
	var nodes []*Node
	for {
		t, err := p.peek()
		if err != nil {
			return nil, err
		}
		if t.kind == tEOF || t.kind == tRParen || t.kind == tOr {
			break
		}
		n, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	if len(nodes) == 0 {
		return nil, nil
	}
	return join(NodeAnd, nodes), nil
}

func (p *parser) parseUnary() (*Node, error) {
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	if t.kind != tNeg {
		return p.parsePrimary()
	}
	p.next()
	if p.depth++; p.depth > MaxDepth {
		return nil, p.errTok(t, fmt.Sprintf("more than %d nested negations and parentheses", MaxDepth))
	}
	n, err := p.parseUnary()
	p.depth--
	if err != nil {
		return nil, err
	}
	return &Node{Kind: NodeNot, Nodes: []*Node{n}}, nil
}

func (p *parser) parsePrimary() (*Node, error) {
	t, err := p.peek()
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case tLParen:
		p.next()
		if p.depth++; p.depth > MaxDepth {
			return nil, p.errTok(t, fmt.Sprintf("more than %d nested negations and parentheses", MaxDepth))
		}
		n, err := p.parseOr()
		p.depth--
		if err != nil {
			return nil, err
		}
		end, err := p.peek()
		if err != nil {
			return nil, err
		}
		if end.kind != tRParen {
			return nil, p.errAt(t.pos, len(p.src), `"(" without ")"`)
		}
		if n == nil {
			return nil, p.errAt(t.pos, end.end, "empty parentheses")
		}
		p.next()
		return n, nil
	case tOr: // "-or": the word "or"
		t.term = Term{Value: string(p.src[t.pos:t.end]), Pos: t.pos}
		fallthrough
	case tTerm:
		p.next()
		if p.terms++; p.terms > MaxTerms {
			return nil, p.errTok(t, fmt.Sprintf("more than %d terms", MaxTerms))
		}
		return &Node{Kind: NodeTerm, Term: t.term}, nil
	}
	// tNeg is parseUnary's; tEOF and tRParen end a list before this.
	return nil, p.errTok(t, "a term is missing here")
}

// join makes one node of kind (NodeAnd or NodeOr) from nodes, splicing in
// children of the same kind (from parentheses).
func join(kind NodeKind, nodes []*Node) *Node {
	if len(nodes) == 1 {
		return nodes[0]
	}
	out := &Node{Kind: kind}
	for _, n := range nodes {
		if n.Kind == kind {
			out.Nodes = append(out.Nodes, n.Nodes...)
		} else {
			out.Nodes = append(out.Nodes, n)
		}
	}
	return out
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }

func isFieldRune(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// lex reads the next token.
func (p *parser) lex() (token, error) {
	n := len(p.src)
	for p.i < n && isSpace(p.src[p.i]) {
		p.i++
	}
	i := p.i
	if i == n {
		return token{kind: tEOF, pos: n, end: n}, nil
	}
	switch p.src[i] {
	case '(':
		p.i++
		return token{kind: tLParen, pos: i, end: i + 1}, nil
	case ')':
		p.i++
		return token{kind: tRParen, pos: i, end: i + 1}, nil
	case '-':
		// "-" negates the term right after it; before a space, a ")" or a
		// digit it is part of a word ("-", "-4": an id or number fragment).
		if i+1 < n && !isSpace(p.src[i+1]) && p.src[i+1] != ')' && !unicode.IsDigit(p.src[i+1]) {
			p.i++
			return token{kind: tNeg, pos: i, end: i + 1}, nil
		}
	case '"':
		v, end, err := p.phrase(i, i)
		if err != nil {
			return token{}, err
		}
		p.i = end
		return token{kind: tTerm, pos: i, end: end, term: Term{Value: v, Pos: i}}, nil
	}
	// A field term: ASCII letters right before an operator.
	j := i
	for j < n && isFieldRune(p.src[j]) {
		j++
	}
	if j > i && j < n {
		if op, k, ok := p.op(j); ok {
			name := strings.ToLower(string(p.src[i:j]))
			colonAlone := op == OpEq && p.src[j] == ':' && (k == n || isSpace(p.src[k]) || p.src[k] == ')')
			if !colonAlone && !(p.src[j] == ':' && idPrefixes[name]) {
				return p.fieldTerm(i, j, k, name, op)
			}
		}
	}
	end := p.bare(i)
	if end-i == 2 && strings.EqualFold(string(p.src[i:end]), "or") {
		p.i = end
		return token{kind: tOr, pos: i, end: end}, nil
	}
	p.i = end
	return token{kind: tTerm, pos: i, end: end, term: Term{Value: string(p.src[i:end]), Pos: i}}, nil
}

// op reads the operator at j: its Op, the rune after it and whether there
// is one.
func (p *parser) op(j int) (Op, int, bool) {
	n := len(p.src)
	next := func(k int) rune {
		if k < n {
			return p.src[k]
		}
		return 0
	}
	switch p.src[j] {
	case ':', '=':
		return OpEq, j + 1, true
	case '!':
		if next(j+1) == '=' {
			return OpNe, j + 2, true
		}
	case '<':
		if next(j+1) == '=' {
			return OpLe, j + 2, true
		}
		return OpLt, j + 1, true
	case '>':
		if next(j+1) == '=' {
			return OpGe, j + 2, true
		}
		return OpGt, j + 1, true
	}
	return 0, 0, false
}

// bare returns the end of the bare run starting at i: the next space, or
// a ")" that no "(" of the run opened.
func (p *parser) bare(i int) int {
	depth := 0
	for ; i < len(p.src); i++ {
		switch r := p.src[i]; {
		case isSpace(r):
			return i
		case r == '(':
			depth++
		case r == ')':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return i
}

// phrase reads the quoted text whose quote is at q (of the term starting
// at start) and returns it unescaped and the rune after its closing quote.
func (p *parser) phrase(start, q int) (string, int, error) {
	var b strings.Builder
	for k := q + 1; k < len(p.src); k++ {
		switch r := p.src[k]; r {
		case '"':
			return b.String(), k + 1, nil
		case '\\':
			if k+1 < len(p.src) && (p.src[k+1] == '"' || p.src[k+1] == '\\') {
				k++
				b.WriteRune(p.src[k])
				continue
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return "", 0, p.errAt(start, len(p.src), "unclosed quote")
}

// fieldTerm reads a field term: the name is src[i:j], the operator ends
// at k.
func (p *parser) fieldTerm(i, j, k int, name string, op Op) (token, error) {
	n := len(p.src)
	var value string
	var end int
	if k < n && p.src[k] == '"' {
		v, e, err := p.phrase(i, k)
		if err != nil {
			return token{}, err
		}
		value, end = v, e
	} else {
		end = p.bare(k)
		value = string(p.src[k:end])
	}
	p.i = end
	f, ok := LookupField(name)
	if !ok {
		return token{}, p.errAt(i, end, fmt.Sprintf("unknown field %q", name))
	}
	opText := string(p.src[j:k])
	if value == "" {
		return token{}, p.errAt(i, end, fmt.Sprintf("%s%s needs a value", name, opText))
	}
	t := Term{Field: f.Name, Op: op, Value: value, Pos: i}
	switch f.Kind {
	case KindNumber:
		if !isDigits(value) {
			return token{}, p.errAt(i, end, fmt.Sprintf("%s takes a whole number, not %q", name, value))
		}
		v, err := strconv.ParseInt(value, 10, 32)
		if err != nil {
			return token{}, p.errAt(i, end, fmt.Sprintf("%s: %s is too large", name, value))
		}
		t.Num = int(v)
	case KindEnum:
		if op != OpEq && op != OpNe {
			return token{}, p.errAt(i, end, fmt.Sprintf(`%s takes ":" or "!=", not %q`, name, opText))
		}
		t.Value = strings.ToLower(value)
		found := false
		for _, v := range f.Values {
			found = found || v == t.Value
		}
		if !found {
			return token{}, p.errAt(i, end, fmt.Sprintf("%s is one of %s, not %q", name, strings.Join(f.Values, ", "), value))
		}
	default:
		if op != OpEq && op != OpNe {
			return token{}, p.errAt(i, end, fmt.Sprintf(`%s takes ":" or "!=", not %q`, name, opText))
		}
	}
	return token{kind: tTerm, pos: i, end: end, term: t}, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxErrTerm bounds the term an Error quotes.
const maxErrTerm = 64

func (p *parser) errTok(t token, msg string) *Error { return p.errAt(t.pos, t.end, msg) }

// errAt is an *Error for the term at runes [from, to) of the query.
func (p *parser) errAt(from, to int, msg string) *Error {
	to = min(to, len(p.src), from+maxErrTerm)
	return &Error{Term: string(p.src[from:to]), Pos: from, Message: msg}
}
