// Package pricing is what a card is worth: the quote rule (Midprice, Last,
// Ask per grade), the current price of each source of prices.v1 (own,
// partner, observed, never blended), and the sale row every sales listing
// shows. REST (edge), the MCP tools (mcp) and the agent (agent) call it, so a
// card is priced the same way wherever it is asked.
//
// It imports the standard library, snapshots and edge/resolve (a quote first
// resolves its references); never the access layer (callers charge and clamp)
// nor a transport.
//
// # Quotes
//
// Quote resolves each reference and quotes the cards it resolves. For one
// grade the market (Market) is read from the snapshot as of its as_of day,
// and Pick applies the rule of the spec:
//
//   - Midprice when usable: its status is ok or thin and it is above 0. The
//     midprice is the grade's fmv (exponentially smoothed daily medians of
//     verified sales) in force at as_of; with a finish it is the median of
//     that finish's verified sales of the grade over the trailing
//     MidWindowDays, since the fmv mixes finishes. Its status counts the
//     verified sales of the grade (and finish) in the trailing MidWindowDays:
//     ok at OKSales or more, thin for fewer, stale when there were none (the
//     grade sold before, or the fmv is older), none when the grade never
//     sold.
//   - else Last: the most recent verified sale of the grade (and finish), of
//     any age; its date is in the price basis.
//   - else Ask: the cheapest current listing of the grade (and finish); not a
//     sale price, shipping excluded.
//
// Without a grade (an ungraded quote) the top grade of the first grader
// (slab:10) is tried first, then raw:near_mint (UngradedOrder); the first
// grade with any price wins. A quote carries the grade it used, the label
// (Midprice, Last or Ask; null when nothing could be priced), price_usd and a
// price_basis sentence to read before taking the number for a live market
// price.
//
// Verified sales exclude quality-flagged rows, low-confidence identity
// matches and partner price-feed rows, as the REST routes do by default.
//
// # Caveats
//
// Results are plain values that do not alias the snapshot. The caller holds
// the snapshot (and its index) open for the duration of a call. History
// windows of the tiers are not applied here: a quote is the current market
// (as REST's card market summary), and the callers clamp history rows.
package pricing
