package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Parse parses q as a card query (Cards.Parse). A blank q gives a Query
// with a nil Root. Every error is an *Error.
func Parse(q string) (*Query, error) { return Cards.Parse(q) }

// Parse parses q with the fields of s. A blank q gives a Query with a nil
// Root. Every error is an *Error.
func (s *Schema) Parse(q string) (*Query, error) {
	p := &parser{src: []rune(q), schema: s}
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
	tNeg            // "-" right before a term, or the word NOT
	tAnd            // the word AND
	tTerm           // a word, phrase or field term
)

type token struct {
	kind     tokKind
	pos, end int // runes [pos, end) of the query
	term     Term
}

type parser struct {
	schema *Schema
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
		if t.kind == tAnd {
			// AND joins the terms on each side, as a space does.
			p.next()
			next, err := p.peek()
			if err != nil {
				return nil, err
			}
			if len(nodes) == 0 || next.kind == tEOF || next.kind == tRParen || next.kind == tOr || next.kind == tAnd {
				return nil, p.errTok(t, `"AND" needs a term on each side`)
			}
			continue
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
	if next, err := p.peek(); err != nil {
		return nil, err
	} else if next.kind == tEOF || next.kind == tRParen {
		return nil, p.errTok(t, `"NOT" needs a term after it`) // a "-" before these is a word
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
	case tOr, tAnd: // "-or", "-AND": the word
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
	// A field term: a field name right before an operator, with "!"
	// before it for the whole value.
	at := i
	if p.src[i] == '!' && i+1 < n {
		at = i + 1
	}
	if j := p.fieldName(at); j > at && j < n {
		if op, k, ok := p.op(j); ok {
			name := string(p.src[at:j])
			colonAlone := op == OpEq && p.src[j] == ':' && (k == n || isSpace(p.src[k]) || p.src[k] == ')')
			if !colonAlone && !(p.src[j] == ':' && idPrefixes[strings.ToLower(name)]) {
				return p.fieldTerm(i, at, j, k, name, op)
			}
		}
	}
	end := p.bare(i)
	p.i = end
	switch w := string(p.src[i:end]); {
	case len(w) == 2 && strings.EqualFold(w, "or"):
		return token{kind: tOr, pos: i, end: end}, nil
	case w == "AND":
		return token{kind: tAnd, pos: i, end: end}, nil
	case w == "NOT":
		return token{kind: tNeg, pos: i, end: end}, nil
	}
	return token{kind: tTerm, pos: i, end: end, term: Term{Value: string(p.src[i:end]), Pos: i}}, nil
}

// fieldName returns the end of the field name at i (i when there is none):
// ASCII letters, then any number of "." and ASCII letters or digits
// (set.id, tcgplayer.prices.1stEditionHolofoil.market).
func (p *parser) fieldName(i int) int {
	n := len(p.src)
	j := i
	for j < n && isFieldRune(p.src[j]) {
		j++
	}
	if j == i {
		return i
	}
	for j+1 < n && p.src[j] == '.' && isAlnum(p.src[j+1]) {
		j++
		for j < n && isAlnum(p.src[j]) {
			j++
		}
	}
	return j
}

func isAlnum(r rune) bool { return isFieldRune(r) || '0' <= r && r <= '9' }

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

// fieldTerm reads a field term starting at start ("!" there for the whole
// value): the name is src[i:j] (name, as typed), the operator ends at k.
func (p *parser) fieldTerm(start, i, j, k int, name string, op Op) (token, error) {
	n := len(p.src)
	var value string
	var end int
	quoted, isRange := false, false
	switch {
	case k < n && p.src[k] == '"':
		v, e, err := p.phrase(start, k)
		if err != nil {
			return token{}, err
		}
		value, end, quoted = v, e, true
	case k < n && (p.src[k] == '[' || p.src[k] == '{') && op == OpEq:
		close := k + 1
		for close < n && p.src[close] != ']' && p.src[close] != '}' {
			close++
		}
		if close == n {
			return token{}, p.errAt(start, n, "unclosed range")
		}
		value, end, isRange = string(p.src[k:close+1]), close+1, true
	default:
		end = p.bare(k)
		value = string(p.src[k:end])
	}
	p.i = end
	f, ok := p.schema.Lookup(name)
	if !ok {
		return token{}, p.errAt(start, end, fmt.Sprintf("unknown field %q", name))
	}
	opText := string(p.src[j:k])
	if value == "" {
		return token{}, p.errAt(start, end, fmt.Sprintf("%s%s needs a value", name, opText))
	}
	t := Term{Field: f.Name, Op: op, Value: value, Exact: start < i, Pos: start}
	if isRange {
		if end < n && !isSpace(p.src[end]) && p.src[end] != ')' {
			p.i = p.bare(end)
			return token{}, p.errAt(start, p.i, "a range is [lo TO hi] or {lo TO hi}, followed by a space")
		}
		r, err := parseRange(f, name, value)
		if err != "" {
			return token{}, p.errAt(start, end, err)
		}
		t.Op, t.Value, t.Range = OpRange, "", r
		return token{kind: tTerm, pos: start, end: end, term: t}, nil
	}
	if !quoted && strings.ContainsRune(value, '*') {
		if value != "*" && f.Kind != KindText && f.Kind != KindKeyword {
			return token{}, p.errAt(start, end, fmt.Sprintf(`%s takes no wildcard ("*" alone: any value)`, name))
		}
		if op != OpEq && op != OpNe {
			return token{}, p.errAt(start, end, fmt.Sprintf(`%s takes ":" or "!=" with a wildcard, not %q`, name, opText))
		}
		t.Wildcard = true
		return token{kind: tTerm, pos: start, end: end, term: t}, nil
	}
	switch f.Kind {
	case KindNumber:
		v, msg := parseNumber(name, value)
		if msg != "" {
			return token{}, p.errAt(start, end, msg)
		}
		t.Num = v
	case KindDate:
		d, ok := parseDate(value)
		if !ok {
			return token{}, p.errAt(start, end, fmt.Sprintf("%s takes a date YYYY/MM/DD, not %q", name, value))
		}
		t.Value = d
	case KindEnum:
		if op != OpEq && op != OpNe {
			return token{}, p.errAt(start, end, fmt.Sprintf(`%s takes ":" or "!=", not %q`, name, opText))
		}
		t.Value = strings.ToLower(value)
		found := false
		for _, v := range f.Values {
			found = found || v == t.Value
		}
		if !found {
			return token{}, p.errAt(start, end, fmt.Sprintf("%s is one of %s, not %q", name, strings.Join(f.Values, ", "), value))
		}
	default:
		if op != OpEq && op != OpNe {
			return token{}, p.errAt(start, end, fmt.Sprintf(`%s takes ":" or "!=", not %q`, name, opText))
		}
	}
	return token{kind: tTerm, pos: start, end: end, term: t}, nil
}

// parseRange parses the range v ("[lo TO hi]", "{lo TO hi}", brackets
// mixed, "*" for an open bound) of field f typed as name; the message is
// "" when it parses.
func parseRange(f Field, name, v string) (Range, string) {
	var r Range
	if f.Kind != KindNumber && f.Kind != KindDate {
		return r, fmt.Sprintf("%s takes no range (ranges are for numbers and dates)", name)
	}
	parts := strings.Fields(v[1 : len(v)-1])
	if len(parts) != 3 || !strings.EqualFold(parts[1], "to") {
		return r, "a range is [lo TO hi] or {lo TO hi}"
	}
	r.LoExcl, r.HiExcl = v[0] == '{', v[len(v)-1] == '}'
	for i, b := range []string{parts[0], parts[2]} {
		if b == "*" {
			continue
		}
		s, num := b, 0
		if f.Kind == KindNumber {
			x, msg := parseNumber(name, b)
			if msg != "" {
				return r, msg
			}
			num = x
		} else {
			d, ok := parseDate(b)
			if !ok {
				return r, fmt.Sprintf("%s takes a date YYYY/MM/DD, not %q", name, b)
			}
			s = d
		}
		if i == 0 {
			r.Lo, r.LoNum = s, num
		} else {
			r.Hi, r.HiNum = s, num
		}
	}
	return r, ""
}

// parseNumber parses a whole number of field name; the message is "" when
// it parses.
func parseNumber(name, v string) (int, string) {
	if !isDigits(v) {
		return 0, fmt.Sprintf("%s takes a whole number, not %q", name, v)
	}
	x, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, fmt.Sprintf("%s: %s is too large", name, v)
	}
	return int(x), ""
}

// parseDate parses YYYY/MM/DD or YYYY-MM-DD (a real day) and returns it as
// YYYY/MM/DD.
func parseDate(v string) (string, bool) {
	if len(v) != 10 || v[4] != v[7] || (v[4] != '/' && v[4] != '-') {
		return "", false
	}
	if _, err := time.Parse("2006-01-02", v[:4]+"-"+v[5:7]+"-"+v[8:]); err != nil {
		return "", false
	}
	return v[:4] + "/" + v[5:7] + "/" + v[8:], true
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
	return &Error{Term: string(p.src[from:to]), Pos: from, Message: msg, schema: p.schema}
}
