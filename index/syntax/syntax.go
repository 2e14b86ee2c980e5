package syntax

import (
	"fmt"
	"strings"
)

// Limits of a query.
const (
	MaxDepth = 16 // nested parentheses
	MaxTerms = 64 // terms (words, phrases and field terms)
)

// Op is the comparison of a field term.
type Op uint8

// Operators. ":" parses as OpEq.
const (
	OpEq Op = iota // ":" or "="
	OpNe           // "!="
	OpLt           // "<"
	OpLe           // "<="
	OpGt           // ">"
	OpGe           // ">="
	// OpRange is a range, field:[lo TO hi] (Term.Range): number and date
	// fields.
	OpRange
)

var opText = [...]string{OpEq: "=", OpNe: "!=", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">=", OpRange: ":[]"}

// String returns the operator as typed ("=" for OpEq).
func (o Op) String() string {
	if int(o) < len(opText) {
		return opText[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// Term is one term of a query: a field term (Field set) or a plain word or
// phrase (Field "").
type Term struct {
	Field string // canonical field name (see Fields); "" for a word or phrase
	Op    Op     // OpEq for words and phrases
	// Value is the value as typed, quotes removed (a phrase keeps its
	// spaces); KindEnum values in lower case, KindDate values as
	// YYYY/MM/DD; "" for OpRange.
	Value string
	Num   int // KindNumber fields: Value as a number
	// Exact is a field term typed with "!" before it (!name:charizard): the
	// value must be a whole value of the field, not words of one.
	Exact bool
	// Wildcard is a value typed unquoted with "*" in it (name:char*): each
	// "*" stands for any run of characters; "*" alone matches any card that
	// has the field.
	Wildcard bool
	Range    Range // OpRange: the bounds
	Pos      int   // rune offset of the term in the query (0-based)
}

// Range is the range of an OpRange term, field:[lo TO hi] (bounds
// included) or field:{lo TO hi} (bounds left out; the brackets may be
// mixed). A bound typed "*" is open.
type Range struct {
	Lo, Hi         string // as typed (dates as YYYY/MM/DD); "" when open
	LoNum, HiNum   int    // KindNumber fields: the bounds as numbers
	LoExcl, HiExcl bool   // the bound is left out ("{", "}")
}

// Kind is the kind of a Node.
type NodeKind uint8

// Node kinds.
const (
	NodeTerm NodeKind = iota // a Term
	NodeAnd                  // every one of Nodes (two or more)
	NodeOr                   // any one of Nodes (two or more)
	NodeNot                  // not Nodes[0]
)

// Node is a node of a query's tree. And and Or nodes never have a child of
// their own kind (the parser flattens them).
type Node struct {
	Kind  NodeKind
	Nodes []*Node // And, Or: two or more; Not: one
	Term  Term    // Term nodes
}

// Query is a parsed q.
type Query struct {
	// Root is the query's tree; nil for a blank query (every card).
	Root *Node
}

// Text returns the plain words and phrases that must hold at the top of
// the query (neither negated nor inside "or"), in order: the words the
// index ranks by relevance, as it ranks q without syntax.
func (q *Query) Text() []string {
	var out []string
	for _, n := range q.top() {
		if n.Kind == NodeTerm && n.Term.Field == "" {
			out = append(out, n.Term.Value)
		}
	}
	return out
}

// Filter returns the rest of the query, the part Text leaves out: the
// conjunction of the other top-level nodes, or nil when there is none (a
// query of plain words, or a blank one).
func (q *Query) Filter() *Node {
	var rest []*Node
	for _, n := range q.top() {
		if n.Kind != NodeTerm || n.Term.Field != "" {
			rest = append(rest, n)
		}
	}
	switch len(rest) {
	case 0:
		return nil
	case 1:
		return rest[0]
	}
	return &Node{Kind: NodeAnd, Nodes: rest}
}

// Structured reports whether the query has more than plain words: a
// field term, a negation, "or" or parentheses that group words under one
// of those.
func (q *Query) Structured() bool { return q.Filter() != nil }

func (q *Query) top() []*Node {
	switch {
	case q == nil || q.Root == nil:
		return nil
	case q.Root.Kind == NodeAnd:
		return q.Root.Nodes
	}
	return []*Node{q.Root}
}

// Terms calls f for every term of the tree under n, in order.
func (n *Node) Terms(f func(Term)) {
	if n == nil {
		return
	}
	if n.Kind == NodeTerm {
		f(n.Term)
		return
	}
	for _, c := range n.Nodes {
		c.Terms(f)
	}
}

// Error is a query that does not parse: the term at fault as typed, its
// position and what is wrong. Its Error text also lists the known fields.
// It is transport-neutral: the edge answers it with a 422 at
// ["query", "q"], the MCP server with a tool error, both with Error().
type Error struct {
	Term    string // the term at fault, as typed (at most 64 runes)
	Pos     int    // rune offset of Term in the query (0-based)
	Message string // what is wrong, e.g. `hp takes a whole number, not "abc"`

	schema *Schema // the fields the query was parsed with; nil: Cards
}

// Known returns the fields of the schema the query was parsed with, as
// Error lists them.
func (e *Error) Known() []string { return e.schemaOrCards().KnownFields() }

func (e *Error) schemaOrCards() *Schema {
	if e.schema == nil {
		return Cards
	}
	return e.schema
}

func (e *Error) Error() string {
	return fmt.Sprintf("%q at position %d: %s (known fields: %s)", e.Term, e.Pos, e.Message, strings.Join(e.schemaOrCards().known, ", "))
}
