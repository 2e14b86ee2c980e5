// Package pricing is what a card is worth: the quote rule (Midprice, Last,
// Ask per grade), the current price of each source of prices.v1 (own,
// partner, observed, and the sources' files tcgplayer, cardmarket,
// pricecharting; never blended), where each price comes from (Provenance,
// Origin), a card's market in a printing as every card view shows it
// (MarketView, and REST's market object MarketObject), REST's card
// (card-gold.v3: CardGold, and card detail, CardDetail, with its includes,
// CardIncludes), its history (sales per day, per marketplace, the
// partner's days, a printing and grade's price series, VWAP), the analytics
// of card detail's includes and of a window (CardAnalytics), the trending rankings,
// the market's and a set's volume over time, a set's value, shop listings,
// and the sale row every sales listing shows. REST (edge), the MCP tools
// (mcp), the dashboard (web) and the agent (agent) call it, so a card is
// priced the same way wherever it is asked.
//
// Most results are plain values with JSON tags: the REST payloads and rows
// (MarketHistory, PriceHistory, VWAP, Prices, MarketVolume, ListingPage,
// SetBreakdown, the includes, ...). Their type names are the schema names
// the OpenAPI document publishes (edge reflects them): rename one and the
// document and the generated clients change. The values of card detail's
// hot path encode themselves (CardDetail, MarketObject, FinishMarket,
// CardIncludes and the includes, CardAnalytics: AppendJSON, byte for byte
// what encoding/json writes for CardGold and the others, without
// reflection); change a type and its appender together. EncodeCards
// encodes every card's object of a game once (CardObjects: the edge does it
// when a snapshot opens), so that card detail and the card list copy bytes.
//
// It imports the standard library, apperr, estimate, snapshots,
// snapshots/jsontext, index (folding names, SearchActive's scan), live (the view of an open
// snapshot), resolve (a quote and a prices call first resolve their
// references; a card's play object) and jsonschema (a quote describes its JSON); never the access
// layer (callers charge and clamp) nor a transport.
//
// # Printings
//
// Every price is one printing's: one of a card's variants (holo/unlimited,
// holo/shadowless/1st-edition, ...), never a blend of them. PrintingOf reads
// a finish parameter ("" is the card's base printing, snapshots.BasePrinting;
// a whole variant or parts of one, "1st edition" and "reverse holo" as the
// parts they mean); every answer names the printing it priced.
//
// A derived number is an estimate (package estimate, stored per printing
// and grade in the snapshot): EstimateRow shows its values with sample_size,
// last_sale_date, confidence and flags; at confidence none (no accepted
// verified sale in estimate.Default.SampleDays days) the value is null and
// a note says why (Shown, NoteNone), wherever it is shown.
//
// # Quotes
//
// Quote resolves each reference and quotes the cards it resolves. A free
// reference's collectors' words (resolve.Read: "PSA 10", "1st edition",
// "alt art", a set name) give the grade and printing when the call does
// not, and the quote says how it read them (understood). For one grade the
// market (Market) of the printing is read from the snapshot as of its as_of
// day, and Pick applies the rule of the spec:
//
//   - Midprice when usable: its status is ok or thin and it is above 0. The
//     midprice is the printing and grade's fmv in force at as_of; its status
//     is the estimate's confidence (StatusOf): ok at high or medium, thin at
//     low, stale at none (the value is then null), none when the printing
//     and grade never sold. The thresholds are estimate.Default's.
//   - else Last: the most recent verified sale of the printing and grade, of
//     any age; its date is in the price basis.
//   - else Ask: the cheapest current listing of the printing and grade; not
//     a sale price, shipping excluded.
//
// Without a grade (an ungraded quote) the top grade of the first grader
// (slab:10) is tried first, then raw:near_mint (UngradedOrder); the first
// grade with any price wins. A quote carries the grade it used, the printing
// (finish, base_finish), the label (Midprice, Last or Ask; null when nothing
// could be priced), price_usd and a price_basis sentence to read before
// taking the number for a live market price.
//
// # Provenance
//
// Every price says its source and whether it is synthetic (Origin: a
// source's file, tcgplayer, cardmarket or pricecharting; observed, verified
// sales; synthetic), read by ReadProvenance from the snapshot's manifest and,
// in a snapshot built from real sources, the card's snapshots.CardSources
// (which source made each price series: SeriesOrigin). FeedPrice reads a
// source's newest numbers of a printing and grade with their original
// currency and ECB rate. A snapshot of another market reads nothing more.
//
// # Leaderboards
//
// Trending, set trending cards and the agent's movers rank printings
// (snapshots.Reader.TrendingRows, or CustomTrending over a window that is
// not precomputed) that pass a Liquidity filter: by default the
// methodology's rule (DefaultLiquidity), else the routes' min_sales and
// min_price_usd; a row whose reference series is a fresh source's file
// passes by its price while min_sales is at most the rule's
// (Liquidity.KeepRow, estimate.Methodology.LiquidFeed). Each row carries
// its printing, sample size, price, flags and source. TrendingBoard is
// REST's trending page with what it was ranked by.
//
// Verified sales exclude quality-flagged rows, low-confidence identity
// matches and partner price-feed rows, as the REST routes do by default.
//
// The search route's activity filters (grader, slab_only, raw_only) are an
// Activity over a card's verified sales; SearchActive walks a search's
// ranked matches and keeps the active cards, up to ActivityScan matches
// (beyond, the total is a lower bound).
//
// The sales route pages a card's sales by SalePosition, handed to the
// client as a cursor signed for its query (SalePosition.Cursor,
// ParseCursor: cursor.go).
//
// # Reading a printing
//
// A finish argument of BaseRead (-1) reads a card's base printing through
// the reader's base-printing methods (the routes read a card without a
// finish parameter so); 0 or more reads that printing (ReadSeries, ReadCum,
// ReadWindow, ReadHistory). PrintingIndex says which printing either is.
//
// # Caveats
//
// Results are plain values that do not alias the snapshot. The caller holds
// the snapshot (and its index) open for the duration of a call. History
// windows of the tiers are not applied here: a quote is the current market
// (as REST's card market summary), and the callers clamp history rows.
package pricing
