package mcp

import (
	"strings"

	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
)

// Argument bounds and defaults of the tools.
const (
	SearchDefaultLimit   = 10
	SearchMaxLimit       = 25
	PricesDefaultLimit   = 30 // points per id when neither limit nor since is given
	PricesMaxLimit       = 2000
	SalesDefaultRecords  = 20
	SalesMaxRecords      = 200
	SalesDefaultDays     = 30
	SalesMaxDays         = 2000
	ListingsDefaultLimit = 20
	ListingsMaxLimit     = 100
	RankDefaultLimit     = 20
	RankMaxLimit         = 100
	MaxNameLen           = 100
	DefaultLadderGrades  = "raw:near_mint,slab:8,slab:9,slab:10"
)

// Shared argument descriptions.
const (
	descIDs = "Card references, 1 to 1000: card ids (\"en:base1-4\"), TCGplayer product ids of any printing (the partner product id, \"42382\"), " +
		"Cardmarket product ids prefixed \"cardmarket:\" (\"cardmarket:273699\") or card names " +
		"(\"charizard base\"). Each resolves to one card or is reported as ambiguous (with up to 5 candidates) or not_found. " +
		"Duplicates count once; only resolved cards are charged."
	descGrade = "Grade as people write it: PSA 10, psa10, BGS 9.5, cgc 10, raw, NM, near mint, Raw, near mint; or its code: raw:<condition> " +
		"(near_mint, lightly_played, moderately_played, heavily_played, damaged) or <grader>:<number> with graders slab (PSA), bgs, cgc and " +
		"numbers 1 to 10 in steps of 0.5, e.g. slab:10, bgs:9.5. Results give the code (grade) and the name (grade_name: PSA 10, Raw, near mint)."
	descGradeFilter = "Only this grade. Accepts an exact grade (PSA 10, NM, raw:near_mint, slab:10), \"raw\" (every condition), \"graded\" (every grader), " +
		"or a grader name (PSA or slab, BGS, CGC). Default: every grade."
	descFinish = "Finish (printing variant) to restrict to: a whole variant of the card (\"holo/shadowless\") or one '/'-separated part " +
		"of its variants (\"1st-edition\", \"reverse\", \"holo\"), any case. Never put the finish in a query. Default: every finish."
	descPrinting = "Printing to price: a whole variant of the card (\"holo/shadowless\") or parts of one (\"1st-edition\", \"1st edition\", \"shadowless\", \"reverse holo\"; " +
		"the variant with the fewest other parts wins, the base printing on a tie), any case. Default: the card's base printing (GET /api/v3/methodology, base_printing); " +
		"the result names the printing. Prices are never blended across printings."
	descSince = "First day, YYYY-MM-DD (inclusive). Raised to the start of the key's history window (3 days Free, 7 days Pro, " +
		"unlimited Elite, counted back from the snapshot's as_of); the result says when it was."
	descUntil     = "Last day, YYYY-MM-DD (inclusive); default and at most the snapshot's as_of."
	descSetID     = "Set id of the game, e.g. \"en:base1\" (see search results' set_id)."
	descEra       = "Era filter: a set series name (\"Base\", \"Scarlet & Violet\", any case), a release year (\"1999\") or a range of years (\"1999-2003\")."
	descRarity    = "Rarity filter, exact but any case, e.g. \"Rare Holo\"."
	descCompact   = "true (default): rows as arrays under one columns header, to save tokens; false: one object per card with more detail."
	descCohort    = "Handle of a cohort pinned with pin_cohort or compare_set_finish (\"coh_...\"); its game and ids are used."
	descLadderGrd = "Comma list of grades for the ladder columns, each raw:<condition> or <grader>:<number> (e.g. \"slab:10,bgs:9.5,cgc:10\"). Default \"" + DefaultLadderGrades + "\"."
)

func (s *Server) gameOption() mcpproto.ToolOption {
	games := []string{"pokemon", "onepiece"}
	if s.opts.Snapshots != nil {
		snap := s.opts.Snapshots.Acquire()
		if g := snap.Reader.Manifest().Games; len(g) > 0 {
			games = g
		}
		snap.Release()
	}
	return mcpproto.WithString("game", mcpproto.Enum(games...), mcpproto.Description("Game; default "+games[0]+
		" (the first). Card ids, sets and product ids are per game; without game, card ids of the other games ("+
		strings.Join(games, ", ")+") are recognized too."))
}

func idsOption(name string, required bool, desc string) mcpproto.ToolOption {
	opts := []mcpproto.PropertyOption{mcpproto.Description(desc), mcpproto.WithStringItems(mcpproto.MinLength(1), mcpproto.MaxLength(256)), mcpproto.MinItems(1), mcpproto.MaxItems(1000)}
	if required {
		opts = append(opts, mcpproto.Required())
	}
	return mcpproto.WithArray(name, opts...)
}

// tools declares the ten tools: their arguments, annotations (hints) and the
// Go types of their data (output.go). Costs are in each description.
func (s *Server) tools() []toolDef {
	game := s.gameOption()
	return []toolDef{
		def(mcpproto.NewTool("search",
			mcpproto.WithDescription("Find cards. Give q for one lookup (a name, card id or partner product id; returns the best matches and whether q resolves to one card), "+
				"or ids to batch-resolve up to 1000 mixed card ids, partner product ids and names (each resolved, ambiguous with candidates, or not_found). "+
				"Use the card_id values it returns with the other tools. Cost: 1 unit with q; with ids, 1 unit per unique resolved card (at least 1)."),
			mcpproto.WithString("q", mcpproto.MaxLength(256), mcpproto.Description("One lookup: card name (\"charizard base\", \"pikachu 151\"), card id (\"en:base1-4\"), source id (\"base1-4\") "+
				"or numeric partner product id. Do not put the finish here: use finish. Give q or ids, not both. "+
				"q also takes the search syntax: field terms narrow the words, e.g. a:\"Mitsuhiro Arita\" charizard, t:water hp>=300 legal:standard, "+
				"attack:\"Fire Spin\", c:red cost=5 power>=7000 (game onepiece), charizard -set:base1; - negates a term, or between terms, parentheses group, "+
				"numbers compare with = != < <= > >=. Fields: "+strings.Join(syntax.KnownFields(), ", ")+". A bad term is a tool error naming it.")),
			idsOption("ids", false, descIDs+" Give ids or q, not both."),
			game,
			mcpproto.WithString("language", mcpproto.Enum(snapshots.Languages...), mcpproto.Description("With q: only cards printed in this language. Default: every language.")),
			mcpproto.WithString("set_id", mcpproto.MaxLength(64), mcpproto.Description("With q: only cards of this set, e.g. \"en:base1\" (or a set source id \"base1\" for every language edition).")),
			mcpproto.WithString("rarity", mcpproto.MaxLength(64), mcpproto.Description("With q: only cards of this rarity, e.g. \"Rare Holo\".")),
			mcpproto.WithString("finish", mcpproto.MaxLength(64), mcpproto.Description("With q: only cards that have this finish (a whole variant or one part of one, e.g. \"1st-edition\").")),
			mcpproto.WithInteger("limit", mcpproto.Min(1), mcpproto.Max(SearchMaxLimit), mcpproto.DefaultNumber(SearchDefaultLimit), mcpproto.Description("With q: most matches returned, 1 to 25 (default 10).")),
			hints("Search cards", true),
		), s.toolSearch, searchIDsOut{}, searchQOut{}),
		def(mcpproto.NewTool("quote",
			mcpproto.WithDescription("Price cards now. For each id: status resolved (with label, price_usd, price_basis) or ambiguous (with up to 5 candidates) or not_found. "+
				"Each card is priced in one printing (finish; default its base printing, named in the result). "+
				"Per grade the price is the Midprice when usable (the printing and grade's fmv with status ok or thin: estimator confidence high or medium, or low; null at none), "+
				"else the Last verified sale of the printing (any age), else its cheapest current Ask. Without grade (ungraded) it tries slab:10 (the top grade of the first grader) "+
				"then raw:near_mint and says which grade it used. Always read price_basis before treating price_usd as a live market price. "+
				"Cost: 1 unit per unique resolved card (at least 1)."),
			idsOption("ids", true, descIDs),
			mcpproto.WithString("grade", mcpproto.MaxLength(32), mcpproto.Description(descGrade+" Default: ungraded (slab:10, then raw:near_mint).")),
			mcpproto.WithString("finish", mcpproto.MaxLength(64), mcpproto.Description(descPrinting)),
			game,
			hints("Quote cards", true),
		), s.toolQuote, quoteOut{}),
		def(mcpproto.NewTool("get_prices",
			mcpproto.WithDescription("Historical price ledger (oracle prices estimated from verified sales) per card, printing and grade, oldest first, "+
				"with each series' estimate as of as_of (sample size, last sale, confidence, flags). "+
				"Bounded by default: with neither limit nor since, each id returns only its newest 30 points and the result says so; pass limit (up to 2000) or since for more. "+
				"since is clamped to the key's history window. Cost: 1 unit per unique resolved card (at least 1)."),
			idsOption("ids", true, descIDs),
			mcpproto.WithString("grade", mcpproto.MaxLength(32), mcpproto.DefaultString("raw:near_mint"), mcpproto.Description(descGrade+" Default raw:near_mint.")),
			mcpproto.WithString("pick", mcpproto.Enum("fmv", "tvwap", "median", "all"), mcpproto.DefaultString("fmv"), mcpproto.Description(
				"Which price each point carries: fmv (default; exponentially smoothed daily medians), tvwap (trailing 7-day recency-weighted average), "+
					"median (trailing 7-day median), or all three.")),
			mcpproto.WithString("interval", mcpproto.Enum("change", "day", "week"), mcpproto.DefaultString("change"), mcpproto.Description(
				"change (default): only days the price moved (a ledger); day: one point per day, carried forward; week: Sundays and as_of.")),
			mcpproto.WithInteger("limit", mcpproto.Min(1), mcpproto.Max(PricesMaxLimit), mcpproto.Description("Most points per id, the newest kept (1 to 2000). Default 30 when since is not given, 2000 when it is.")),
			mcpproto.WithString("since", mcpproto.MaxLength(10), mcpproto.Description(descSince)),
			mcpproto.WithString("until", mcpproto.MaxLength(10), mcpproto.Description(descUntil)),
			mcpproto.WithString("finish", mcpproto.MaxLength(64), mcpproto.Description(descPrinting)),
			game,
			hints("Price history", true),
		), s.toolPrices, pricesOut{}),
		def(mcpproto.NewTool("get_sales",
			mcpproto.WithDescription("Recent sale records (newest first) or daily aggregates for card ids. Verified sales only unless the include_* flags say otherwise "+
				"(quality-flagged rows, low-confidence identity matches and partner price-feed medians are hidden by default). "+
				"since is clamped to the key's history window. Cost: 1 unit per unique resolved card (at least 1)."),
			idsOption("ids", true, descIDs),
			mcpproto.WithString("mode", mcpproto.Enum("records", "daily"), mcpproto.DefaultString("records"), mcpproto.Description(
				"records (default): individual sales; daily: one row per day with sales (count, volume, median, low, high).")),
			mcpproto.WithInteger("limit", mcpproto.Min(1), mcpproto.Max(SalesMaxDays), mcpproto.Description(
				"Rows per id, newest first: records 1 to 200 (default 20); daily 1 to 2000 days (default 30).")),
			mcpproto.WithString("since", mcpproto.MaxLength(10), mcpproto.Description(descSince)),
			mcpproto.WithString("until", mcpproto.MaxLength(10), mcpproto.Description(descUntil)),
			mcpproto.WithString("grade", mcpproto.MaxLength(32), mcpproto.Description(descGradeFilter)),
			mcpproto.WithString("finish", mcpproto.MaxLength(64), mcpproto.Description(descFinish+" Cards without that finish are reported, not charged.")),
			mcpproto.WithString("marketplace", mcpproto.MaxLength(256), mcpproto.Description(
				"Comma list of marketplaces and venues: partner (alias partner_feed), ebay, cardmarket, mercari, yahoo_auctions, courtyard, collector_crypt. Default: all.")),
			mcpproto.WithString("trade_type", mcpproto.Enum(snapshots.TradeTypeNames()...), mcpproto.Description("Only this trade type. Default: all.")),
			mcpproto.WithBoolean("include_filtered", mcpproto.DefaultBool(false), mcpproto.Description("Include sales flagged by quality rules (default false).")),
			mcpproto.WithBoolean("include_untrusted_identity", mcpproto.DefaultBool(false), mcpproto.Description("Include low-confidence identity matches (disagree_medium, disagree_high; default false).")),
			mcpproto.WithBoolean("include_price_feed", mcpproto.DefaultBool(false), mcpproto.Description("Include partner price-feed rows: daily market medians, not executed sales (default false).")),
			game,
			hints("Recent sales", true),
		), s.toolSales, salesOut[pricing.SaleRow]{}, salesOut[pricing.DayRow]{}),
		def(mcpproto.NewTool("get_listings",
			mcpproto.WithDescription("Current shop listings (asks) for card ids, cheapest first, or per-finish book summaries (count, quantity, min/median/max ask, cheapest per grade). "+
				"Listings are the current state: no history window applies. deal_score and platform_freshness_h are experimental. "+
				"Cost: 1 unit per unique resolved card (at least 1)."),
			idsOption("ids", true, descIDs),
			mcpproto.WithString("mode", mcpproto.Enum("listings", "book"), mcpproto.DefaultString("listings"), mcpproto.Description("listings (default): one row per listing; book: one summary per finish.")),
			mcpproto.WithString("grade", mcpproto.MaxLength(32), mcpproto.Description(descGradeFilter)),
			mcpproto.WithString("finish", mcpproto.MaxLength(64), mcpproto.Description(descFinish)),
			mcpproto.WithString("platforms", mcpproto.MaxLength(256), mcpproto.Description("Comma list of platforms (partner, ebay, cardmarket, mercari, yahoo_auctions, courtyard, collector_crypt). Default: all.")),
			mcpproto.WithInteger("limit", mcpproto.Min(1), mcpproto.Max(ListingsMaxLimit), mcpproto.DefaultNumber(ListingsDefaultLimit), mcpproto.Description("Listings mode: most listings per id, cheapest first (1 to 100, default 20).")),
			game,
			hints("Current listings", true),
		), s.toolListings, listingsOut[listingsItem]{}, listingsOut[bookItem]{}),
		def(mcpproto.NewTool("batch_grade_ladder",
			mcpproto.WithDescription("Grade ladder for many cards: per card and grade the last verified sale (price, date), the cheapest current ask, and the ask/last multiple. "+
				"Cards come from exactly one of ids, queries, set_id or cohort_handle, then era, rarity and finish filter them (finish also restricts sales and asks). "+
				"At most 1000 cards. Cost: 1 unit per unique card in the ladder; dry_run=true resolves and previews that cost without charging anything. "+
				"Returns a result_handle that pin_cohort accepts."),
			idsOption("ids", false, descIDs),
			idsOption("queries", false, "Free-text card references (names with set or number, e.g. \"charizard base 4\"), 1 to 1000; ambiguous ones are reported with candidates and left out."),
			mcpproto.WithString("set_id", mcpproto.MaxLength(64), mcpproto.Description("Every card of this set (then filtered), e.g. \"en:base1\".")),
			mcpproto.WithString("cohort_handle", mcpproto.MaxLength(64), mcpproto.Description(descCohort)),
			mcpproto.WithString("era", mcpproto.MaxLength(64), mcpproto.Description(descEra)),
			mcpproto.WithString("rarity", mcpproto.MaxLength(64), mcpproto.Description(descRarity)),
			mcpproto.WithString("finish", mcpproto.MaxLength(64), mcpproto.Description(descFinish+" Cards without it are left out.")),
			mcpproto.WithString("grades", mcpproto.MaxLength(256), mcpproto.Description(descLadderGrd)),
			mcpproto.WithBoolean("compact", mcpproto.DefaultBool(true), mcpproto.Description(descCompact)),
			mcpproto.WithBoolean("dry_run", mcpproto.DefaultBool(false), mcpproto.Description("true: resolve and filter only, return the card count and the cost the real call would have; costs nothing.")),
			game,
			hints("Grade ladder of many cards", true),
		), s.toolLadder, ladderCompactOut{}, ladderFullOut{}, ladderDryRunOut{}),
		def(mcpproto.NewTool("compare_set_finish",
			mcpproto.WithDescription("Grade ladder of one finish across a set: the set's cards that have the finish (optionally one rarity), each with last sale, cheapest ask and "+
				"ask/last multiple per grade restricted to that finish, plus a per-grade summary. Pins the cohort and returns its cohort_handle (it becomes the session's active cohort). "+
				"Cost: 1 unit per card in the cohort (at most 1000)."),
			mcpproto.WithString("set_id", mcpproto.Required(), mcpproto.MaxLength(64), mcpproto.Description(descSetID)),
			mcpproto.WithString("finish", mcpproto.Required(), mcpproto.MaxLength(64), mcpproto.Description("Finish to compare, a whole variant or one part of one (\"1st-edition\", \"reverse\", \"holo\").")),
			mcpproto.WithString("rarity", mcpproto.MaxLength(64), mcpproto.Description(descRarity)),
			mcpproto.WithString("grades", mcpproto.MaxLength(256), mcpproto.Description(descLadderGrd)),
			mcpproto.WithBoolean("compact", mcpproto.DefaultBool(true), mcpproto.Description(descCompact)),
			mcpproto.WithString("name", mcpproto.MaxLength(MaxNameLen), mcpproto.Description("Name of the pinned cohort; default \"<set_id> <finish>\".")),
			game,
			hints("Compare a finish across a set", false),
		), s.toolCompareSetFinish, compareCompactOut{}, compareFullOut{}),
		def(mcpproto.NewTool("pin_cohort",
			mcpproto.WithDescription("Pin a named working set of card ids for this conversation: from exactly one of ids, set_id or a prior result_handle (from search, quote, "+
				"batch_grade_ladder or rank_set_sales in this session), optionally filtered by era and rarity. Returns a cohort_handle for batch_grade_ladder, "+
				"rank_set_sales and get_cohort; the cohort becomes the session's active cohort. Cohorts belong to the API key, survive server restarts and expire after 7 days "+
				"(pinning the same cohort again renews it). Cost: 1 unit."),
			mcpproto.WithString("name", mcpproto.MaxLength(MaxNameLen), mcpproto.Description("A name for the cohort (default: derived from the source, e.g. \"set en:base1\").")),
			idsOption("ids", false, descIDs),
			mcpproto.WithString("set_id", mcpproto.MaxLength(64), mcpproto.Description("Pin the cards of this set (then filtered).")),
			mcpproto.WithString("result_handle", mcpproto.MaxLength(64), mcpproto.Description("Pin the cards of a prior result of this session (\"res_...\"); the newest 32 results are kept.")),
			mcpproto.WithString("era", mcpproto.MaxLength(64), mcpproto.Description(descEra)),
			mcpproto.WithString("rarity", mcpproto.MaxLength(64), mcpproto.Description(descRarity)),
			game,
			hints("Pin a cohort", false),
		), s.toolPinCohort, pinOut{}),
		def(mcpproto.NewTool("get_cohort",
			mcpproto.WithDescription("Read a pinned cohort: the session's active cohort (the last pinned in this session), or the one cohort_handle names (any session of this key, "+
				"also after a restart). Cost: 1 unit."),
			mcpproto.WithString("cohort_handle", mcpproto.MaxLength(64), mcpproto.Description(descCohort+" Default: the session's active cohort.")),
			mcpproto.WithBoolean("include_cards", mcpproto.DefaultBool(false), mcpproto.Description("true: also list each card's name, set and number.")),
			hints("Read a cohort", true),
		), s.toolGetCohort, getCohortOut{}),
		def(mcpproto.NewTool("rank_set_sales",
			mcpproto.WithDescription("Flat top-N graded sales (highest price first) of a set or a cohort over a window counted back from the snapshot's as_of: "+
				"ytd (from January 1 of as_of's year), 90d or 365d. Verified graded sales only (raw conditions are left out). Rows are limited to the key's history window "+
				"(the result says when). Cost: 1 unit."),
			mcpproto.WithString("set_id", mcpproto.MaxLength(64), mcpproto.Description(descSetID+" Give set_id or cohort_handle.")),
			mcpproto.WithString("cohort_handle", mcpproto.MaxLength(64), mcpproto.Description(descCohort+" Give set_id or cohort_handle.")),
			mcpproto.WithString("window", mcpproto.Enum("ytd", "90d", "365d"), mcpproto.DefaultString("90d"), mcpproto.Description("ytd, 90d (default) or 365d, ending at as_of.")),
			mcpproto.WithInteger("limit", mcpproto.Min(1), mcpproto.Max(RankMaxLimit), mcpproto.DefaultNumber(RankDefaultLimit), mcpproto.Description("Most rows, 1 to 100 (default 20).")),
			mcpproto.WithString("grader", mcpproto.Enum(snapshots.Graders...), mcpproto.Description("Only this grader. Default: every grader.")),
			mcpproto.WithNumber("min_grade", mcpproto.Min(1), mcpproto.Max(10), mcpproto.Description("Only grades at or above this number (e.g. 9.5). Default: every grade.")),
			mcpproto.WithString("rarity", mcpproto.MaxLength(64), mcpproto.Description(descRarity)),
			mcpproto.WithString("finish", mcpproto.MaxLength(64), mcpproto.Description(descFinish+" Cards without it are skipped.")),
			game,
			hints("Top graded sales of a set or cohort", true),
		), s.toolRankSetSales, rankOut{}),
	}
}
