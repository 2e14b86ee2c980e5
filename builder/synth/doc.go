// Package synth synthesizes deterministic market data on top of the real card
// catalog: the preset's catalog (Preset.Catalog), and for every card two years
// of sales, partner price-feed rows and current shop listings
// (Generator.CardMarket), shaped like a real market so that search ranking,
// trending and analytics have something to rank.
//
// The builder calls it; it imports only package snapshots and the standard
// library, reads no files, flags or environment, and keeps no global state
// beyond read-only tables.
//
// # Model
//
// Each card gets a profile from its features: popularity (rarity, set age,
// famous characters such as Charizard, Pikachu, Umbreon or Luffy, One Piece
// leaders and alternate arts, language, a set factor and a card factor, so
// that sales counts are heavy-tailed), a log-normal price level (rarity, age,
// the same factors), volatility and drift, and grading premiums. Its raw
// near-mint price walks day by day (mean-reverting random walk with drift,
// weekly and annual seasonality, release hype for new sets, and hype events:
// spikes and slumps that decay, part of which stays). Executed sales are a
// Poisson process whose intensity follows popularity, seasonality and events;
// each sale draws a grade (raw conditions, or slab/bgs/cgc grades with
// premiums over raw near-mint, with a grading-cost floor of $5-18 so bulk
// cards trade graded at the floor rather than at a multiple), a marketplace
// (by game, language and whether the card is graded;
// on-chain venues sell graded cards as on_chain_transfer), a trade type, a
// finish (index into Card.Variants), an identity confidence (about 2 %
// untrusted) and quality flags (about 3 % flagged, most of them price
// outliers). First-game cards whose Popularity reaches the preset's
// thresholds also get partner price-feed rows (SalePriceFeed, one a day or one
// a week over the last FeedDays days: about the top 6 % and the next 15 % of
// the shipped Pokémon cards), and cards get current listings (Poisson in
// popularity; about 40 % of the shipped cards have none).
//
// Volumes (seed 1, as_of 2026-11-15): tiny about 115 k executed sales (over
// 200 a card), default about 1.5 M executed sales and 1.1 M feed rows, large
// about 20 M executed sales and 3.1 M feed rows.
//
// # Caveats
//
// Determinism: the output of CardMarket depends only on the generator's preset,
// seed and as_of and on the card (its id, features, Ordinal) and its set; not on
// call order or concurrency. It does depend on this package's version and on
// math/rand/v2's PCG and its NormFloat64/ExpFloat64 algorithms: a new Go
// release that changed those would change the data (same for the model
// constants here). The history is drawn forward from as_of - HistoryDays + 1,
// so a snapshot built with a later as_of is a different history, not an
// extension of the earlier one.
//
// Sale ids are gameIndex<<56 | Ordinal<<24 | seq: unique across a snapshot as
// long as ordinals are unique per game and below 1<<32, and a card has fewer
// than 1<<24 rows (it has at most thousands). PartnerProductID is derived
// from Ordinal too, so the caller sets Ordinal before calling either.
//
// Money is integer cents (USD). Listing DealScore compares the ask with the
// synthesizer's own fair value of that grade and finish on as_of, not with the
// builder's FMV.
package synth
