// Package resolve is the one implementation of card resolution in cardedge:
// what card a reference names. The MCP tools, the REST routes and the agent
// call it (quotes through package pricing), so a reference resolves the same
// way wherever it is asked.
//
// It imports only the standard library, snapshots and index: it reads one open
// snapshot through a Source and never touches the access layer (callers
// charge and clamp).
//
// # Resolution
//
// A reference (Resolve) is, tried in this order:
//
//  1. a numeric partner product id (digits only), when a card of the game
//     has it;
//  2. a card id ("en:base1-4", any case); when the game was not named
//     (Request.GameExplicit false) the other games of the snapshot are tried
//     too, so "en:OP01-001" finds the One Piece card;
//  3. an exact source id ("base1-4") or other exact key of the typeahead;
//     several cards sharing it are ambiguous;
//  4. free text (name, set, number): the full-text index ranks the cards;
//     one match, or a top match scoring at least DominanceRatio times the
//     second, is resolved; otherwise the reference is ambiguous and the best
//     MaxCandidates cards are its candidates.
//
// A reference that matches nothing is NotFound, with a message saying why.
//
// # Caveats
//
// Results are plain values that do not alias the snapshot. The caller holds
// the snapshot (and its index) open for the duration of a call.
package resolve
