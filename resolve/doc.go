// Package resolve is the one implementation of card resolution in cardedge:
// what card a reference names. REST (the card routes, batch, /prices, the
// quote route), the MCP tools, the agent and collection imports call it
// (quotes through package pricing), so a reference resolves the same way
// wherever it is asked.
//
// It imports only the standard library, apperr, snapshots,
// snapshots/jsontext, index, index/syntax and live: it reads one open
// snapshot through a *live.View and never touches the access layer (callers
// charge and clamp).
//
// # Resolution
//
// Three entry points share one id rule, ByID: a card id ("en:base1-4", any
// case), or a marketplace's product id of any of a card's printings: digits
// only (or "tcgplayer:42382") for TCGplayer's productId, the partner
// product id; "cardmarket:273699" for Cardmarket's idProduct.
//
//   - ByID alone: the {card_id} of the REST card routes, batch and /prices
//     ids, the agent's get_prices/get_sales ids.
//   - Resolve (and ResolveAll, Search): a free reference, tried in this order:
//     1. ByID; when the game was not named (explicit false) a card id is also
//     looked up in the snapshot's other games, so "en:OP01-001" finds the One
//     Piece card;
//     2. an exact source id ("base1-4") or other exact key of the typeahead;
//     several cards sharing it are ambiguous;
//     3. free text (name, set, number): the collectors' words are read
//     first (Read: snapshots.ReadWords and Words.CutSet take out a grade
//     "PSA 10", a printing "1st edition", an art "alt art" and a set name
//     "Evolving Skies", reported in Understood); the full-text index ranks
//     the cards of the rest, within the set named, then narrowed to the art
//     (alternate arts by snapshots.AlternateArts, the rule the builder
//     prices them by) and the printing named when any match; one match, or
//     a top match scoring at least DominanceRatio times the second, is
//     resolved; otherwise the reference is ambiguous and the best
//     MaxCandidates cards are its candidates.
//   - Columns: a reference given as fields (an upload row's card_id, name,
//     set, number, language): ByID, else set and number, else the exact name
//     (folded as the index folds, index.FoldKey) within the set and
//     language, else the index's closest cards as candidates.
//
// A reference that matches nothing is NotFound, with a message saying why.
//
// Play (play.go) is the API shape of a card's gameplay facts, as card
// detail, the card list and MCP show them; AppendPlay writes its JSON
// straight from the snapshot's facts (the edge encodes every card once per
// snapshot with it).
//
// # Caveats
//
// Results are plain values that do not alias the snapshot. The caller holds
// the snapshot (and its index) open for the duration of a call.
package resolve
