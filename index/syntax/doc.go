// Package syntax parses the search syntax of q (GET /api/v3/search,
// GET /api/v3/cards, MCP search): plain words, field terms such as
// a:"Mitsuhiro Arita" or hp>=300, quoted phrases, "-" to negate, "or"
// between terms and parentheses; and the Lucene forms of pokemontcg.io's q
// (/v2): dotted fields (set.id:sv1), "!" for a whole value, "*" wildcards,
// ranges ([1 TO 151], {a TO b}), AND, NOT. Doc is the syntax as users read
// it, LuceneDoc the Lucene forms and pokemontcg.io's field names.
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
//	and     = unary { ["AND"] unary }       terms side by side: all must hold
//	unary   = ("-" | "NOT") unary | primary "-" right before a term negates it
//	primary = "(" or ")" | term
//	term    = ["!"] field op value | field ":" range | word | phrase
//	op      = ":" | "=" | "!=" | "<" | "<=" | ">" | ">="    (":" is "=")
//	value   = word | phrase                 an unquoted "*" is a wildcard
//	range   = ("[" | "{") bound "TO" bound ("]" | "}")      bound: a value or "*"
//	phrase  = '"' { rune | '\"' | '\\' } '"'
//
// A field is ASCII letters, then any number of "." and ASCII letters or
// digits (set.id, attacks.name), in any case, directly followed by an
// operator (no space); "!" right before it asks for the whole value. A
// word runs to the next space, or to a ")" that closes a group;
// parentheses and quotes inside a word belong to it ("Mr.1(Daz.Bonez)",
// `Eustass"Captain"Kid`). "-" followed by a space, a ")" or a digit
// starts a word ("-", "-4"). AND and NOT are operators only in capitals
// (Lucene's); "and" and "not" are words. Three things that look like field
// terms are plain words, so that plain searches keep working: a card or
// set id with a language prefix ("en:base1-4", "ja:SV2a-025"), and a field
// name followed by a colon and then a space or the end ("Type: Null").
//
// # Schemas
//
// The fields a query may name are a Schema's: Cards (Parse) has
// cardedge's fields and pokemontcg.io's card fields (set.id,
// nationalPokedexNumbers, legalities.standard ...), Sets pokemontcg.io's
// set fields. A field's Kind says how its value compares (see Kind and
// LuceneDoc): words of a value (text), a whole value (keyword, enum), a
// number or a date (with comparisons and ranges).
//
// # Caveats
//
//   - Values are kept as typed (quotes removed); folding case and accents
//     is the index's job, as it folds what it indexes.
//   - Nesting is limited to MaxDepth parentheses and a query to MaxTerms
//     terms.
package syntax
