// Package syntax parses the search syntax of q (GET /api/v3/search,
// GET /api/v3/cards, MCP search): plain words, field terms such as
// a:"Mitsuhiro Arita" or hp>=300, quoted phrases, "-" to negate, "or"
// between terms and parentheses. Doc is the syntax as users read it.
//
// It only parses: Parse returns a tree of terms (a *Query) or an *Error
// naming the term at fault, its position and the fields the syntax knows.
// Package index runs a Query on the Bleve index; the edge and the MCP
// server parse q here first, so that a bad term is refused at the front
// door (422 at ["query", "q"], or a tool error) before any search. Like
// regexp/syntax it sits below the package that executes it.
//
// Imports: the standard library only.
//
// # Grammar
//
//	query   = or
//	or      = and { "or" and }              "or" in any case, a word of its own
//	and     = unary { unary }               terms side by side: all must hold
//	unary   = "-" unary | primary           "-" right before a term negates it
//	primary = "(" or ")" | term
//	term    = field op value | word | phrase
//	op      = ":" | "=" | "!=" | "<" | "<=" | ">" | ">="    (":" is "=")
//	value   = word | phrase
//	phrase  = '"' { rune | '\"' | '\\' } '"'
//
// A field is ASCII letters, in any case, directly followed by an operator
// (no space). A word runs to the next space, or to a ")" that closes a
// group; parentheses and quotes inside a word belong to it
// ("Mr.1(Daz.Bonez)", `Eustass"Captain"Kid`). "-" followed by a space, a
// ")" or a digit starts a word ("-", "-4"). Three things that look like field terms are plain words, so that
// plain searches keep working: a card or set id with a language prefix
// ("en:base1-4", "ja:SV2a-025"), and a field name followed by a colon and
// then a space or the end ("Type: Null").
//
// # Caveats
//
//   - Values are kept as typed (quotes removed); folding case and accents
//     is the index's job, as it folds what it indexes.
//   - Nesting is limited to MaxDepth parentheses and a query to MaxTerms
//     terms.
package syntax
