// Package index is the card catalog's full-text index (Bleve) and its
// typeahead, a ranked prefix structure computed at build time.
//
// The builder calls Build once per snapshot, after it has computed each
// card's market summary; the edge and the MCP server Open the result
// read-only and call Search (GET /api/v3/search, MCP search) and Lookup
// (GET /api/v3/lookup, MCP search/quote id resolution). Search returns card
// ids only: callers hydrate them from the snapshot's Reader.
//
// Imports: snapshots (domain types, errors), index/syntax (the search
// syntax's parser), Bleve v2 and its scorch/zap packages, go-pinyin, and
// the standard library. Nothing above this package.
//
// # Files
//
// Build writes, under its dir (the snapshot directory):
//
//	index.bleve/    the Bleve index (scorch), force-merged to one segment:
//	                index_meta.json, store/root.bolt, store/<n>.zap
//	typeahead.bin   the typeahead structure and a per-card row table
//	                (card id, collapse group, price, popularity); format
//	                below, little-endian, CRC-32 at the end
//	setfacts.json   each set's values of the search syntax's set fields
//
// Both are immutable once written. A Bleve document is one card; its id is
// the card's row (its position in the cards given to Build) in base 36.
// Open maps Bleve's internal document numbers to rows once, so that scoring
// and price filtering read plain arrays, never stored fields.
//
// # Analysis
//
// Names, set names and the other text fields go through one analyzer:
// Unicode word segmentation (UAX #29), then cardedge_fold (lowercase, accents
// folded with Lucene's ASCII folding, fullwidth ASCII made ASCII, hiragana
// and halfwidth katakana made katakana, apostrophes dropped with the
// possessive kept as a second term: "Blaine's" gives blaines and blaine,
// words split at inner dots: "Monkey.D.Luffy" gives monkey, d, luffy), then
// CJK bigrams: Chinese and Japanese runs become overlapping bigrams
// ("噴火龍" gives 噴火, 火龍), and at index time unigrams too, so that one
// character still finds a name. Accents, case, kana script and width never
// matter. Kana names are also indexed in romaji (a Hepburn table in this
// package: "リザードン" is rizadon and rizaadon) and Chinese names in pinyin
// without tones (go-pinyin: "噴火龍" is "pen huo long" and penhuolong). A
// card with a linked English card (en_card_id) is also found by that name,
// with a low weight.
//
// # Relevance
//
// Search builds its own query (see textPlan): each query word becomes a
// disjunction over card ids and partner product ids, set codes, collector
// number forms (4, 004, 4/102, OP01-001, #4), the name and its romaji /
// pinyin forms, the linked English name, the set name and tags (rarity,
// subtypes, finishes), plus a fuzzy match of the name for words that no
// text field has (typos: "charizrd", 1 edit from 4 letters, 2 from 8;
// "prize" of a set name gets none) and a prefix match for the last word.
// Every run of up to four words is also matched as a whole against the
// exact normalized card names and set names
// ("charizard base set 4": the card named charizard in the set named
// "base set", English set names also carrying "<name> set"), weighted by
// the square of its length. The coordination factor of the top disjunction
// ranks cards that match more words and phrases first. Bleve's TF-IDF score
// is then multiplied by 1 + PopularityWeight × popularity, popularity being
// ln(1 + volume in dollars) + 0.5 ln(1 + sales) over 30 days, normalized to
// [0, 1] per game; equal scores rank in catalog order. Results carry
// highlights: HTML fragments of the matched stored fields with
// <mark>..</mark>.
//
// That relevance query matches a card when any word does, and scoring a
// common word ("ex", "the", a bigram of a long Japanese name) costs a walk
// of thousands of postings per field. So Search ranks the narrowest of
// these selections that finds cards: the cards that match every term of
// the query, then (from three terms on) all terms but one, then any term
// (the broad pass). A term is one analyzed term of a word, matched by any
// of its clauses or by the whole-word clauses of its word (ids, set codes,
// numbers); "噴火龍" is two terms. The cards that match a phrase of two
// words or more ("evolving skies", "base set") are always selected. The
// selections are Bleve queries built without scoring, conjuncts of the
// relevance query that add nothing to its score: a card scores the same
// in every pass, so a pass keeps the broad pass's order of the cards it
// selects, and Total counts the ranked pass's cards. Filters are such
// conjuncts too (their postings are skipped through as bitmaps rather
// than stepped through). The fuzzy terms of a word are looked up once per
// search, not once per pass.
//
// # Search syntax
//
// SearchRequest.Query is q parsed by package syntax (index/syntax: field
// terms, "-", "or", parentheses, quoted phrases). Its plain words at the
// top of the query rank exactly as Q does (Query.Text); the rest
// (Query.Filter) is compiled to Bleve queries that select without scoring
// (structured.go), conjuncts of the search like the route's filters. A
// document carries, besides the fields above, the syntax's fields: keyword
// fields of word runs (every run of up to four words of the normalized
// value, so that a:arita and a:"Mitsuhiro Arita" both match "Mitsuhiro
// Arita"): artist, ptype (Pokémon energy types, supertype and subtypes;
// One Piece types and category), color, attack, ability, attribute;
// keyword fields legal and banned (formats) and reg (regulation mark); and
// number fields hp, retreat, cost, power, counter, life (keywords of ten
// digits, compared as term ranges: one term per value, where a Bleve
// numeric field indexes sixteen). set, lang and is use the filters'
// fields. Every other field of the syntax (rarity's words, pokemontcg.io's
// fields: subtypes, set.name, nationalPokedexNumbers, attacks.damage ...)
// and what the fields above lack (whole values for "!", presence for
// "field:*") is in one keyword field, facts, as terms prefixed by the
// field's key (facts.go): key* (the card has the field), key=value (whole
// values), key:run (word runs), key#n (numbers and dates, sorted). A
// wildcard is a regular expression over the field's runs or whole values
// (Bleve matches whole terms), a range a term range. The set fields
// (set.name, set.releaseDate ...) are the same on every card of a set: Build
// writes each set's values to setfacts.json, and a term on one becomes the
// cards of the sets MatchValues says it holds for. Negated conjuncts go
// into one boolean query over the game's cards, so that Bleve skips
// through their postings.
//
// Hints explains a query that matches nothing: for each field term whose
// value matches none of the cards the rest of the query selects, the
// field's values among those cards, nearest to the typed value first (read
// from the term dictionary, each checked against the cards' postings).
//
// Match runs the same terms for callers that filter the catalog
// themselves (the card list): it returns the matching cards of a game as a
// CardSet of ordinals (a sorted list and a bitmap), walking the positive
// conjuncts as one Bleve query and removing each negated conjunct's cards
// from the bitmap.
//
// # Typeahead
//
// Lookup never touches Bleve (Bleve prefix queries measured p99 5-18 ms).
// At build time every card and set gets keys in normal form (normalizeText
// for names: lowercase, folded, punctuation as single spaces; normalizeID
// for ids): the name, the name without spaces ("hooh"), each later word
// onwards ("vmax" for "Umbreon VMAX"), romaji and pinyin forms, the linked
// English name, card and set ids, source ids, set codes. Each key carries a
// weight, and a posting's score is (1 + popularity) × weight. Per game:
//
//   - keys are sorted bytewise; each key's postings are sorted best first;
//   - every prefix (of any length) whose keys carry more than 256 postings
//     is "hot": its top K = 100 distinct entities are precomputed for each
//     language scope (all, en, ja, zh-cn, zh-tw). Such a prefix exists only
//     if its one-rune-shorter prefix is hot, so there are few (462 for
//     Pokémon, 211 for One Piece on the shipped catalog);
//   - any other prefix matches at most 256 postings, which are scanned.
//
// A lookup normalizes the query, resolves exact card ids, set ids, source
// ids and partner product ids first (a sorted table), binary-searches the
// key range of the prefix, takes the hot list or scans the range, weighs
// postings of a key equal to the whole query three times, merges, drops
// duplicates and stops at the limit. Every list it reads is ranked at
// build time, so it takes at most limit entries of each and heap-orders
// those (no sort of every candidate). It costs a few binary searches and a
// few hundred candidates at most: p50 ~10 µs, p99 ~50 µs in-process at 51k
// and at 205k cards. typeahead.bin is read whole into memory by Open (12 MiB for
// the shipped catalog, 49 MiB for 205k cards); strings stay in one block,
// so a lookup allocates only its result (nothing with AppendLookup and a
// reused slice).
//
// A suggestion carries everything a typeahead shows: the display strings,
// the card's price (PriceCents, from the per-card row table) and, encoded
// once by Open, the JSON of its display members (AppendJSONMembers), so
// that a caller answers a lookup without reading the catalog and without
// reflection: LookupAnswer is REST's lookup.v1 written so (LookupResult its
// documented shape, the same bytes through encoding/json). Open also derives what makes a keystroke a few memory reads
// rather than binary searches that miss the cache at each step: hash
// tables of the exact ids and of the hot prefixes (with each one's key
// range, which also bounds the search for a longer prefix), the key of
// each hot posting, and one display record per entity. The derived
// structures take about as much memory as the file: 10.6 MiB at 51k
// cards (JSON 6.8, records 2.0, hash tables and keys 1.8).
//
// typeahead.bin: magic "CETYPEAH", u32 version, u32 card count, then
// entity arrays (kind, language scope, score, per-card boost, group, price,
// string offsets, string block), then per game: name, key block and
// offsets, posting offsets, entities and scores, hot prefix block and
// offsets, hot list offsets and postings, exact id block, offsets and
// entities; then the CRC-32 (IEEE) of everything before it. Every array is
// a u32 count followed by its elements.
//
// # Caveats
//
//   - The index is read-only: build a new one per snapshot. Open may be
//     called on the same directory by several processes.
//   - Bleve's own Close does not persist the latest root nor delete merged
//     segment files; Build waits for the persister, checks the document
//     count and prunes leftover segment files itself (see forceMerge).
//   - Popularity boost, price filter, collapse and Match rely on scorch's
//     8-byte internal document numbers; if Open cannot map them, Search
//     still works without the boost and refuses price filters, and Match
//     fails.
//   - Plain words of the syntax inside "-" or "or" match whole words (no
//     typo tolerance, no prefix); a query with no plain word at its top
//     ranks by popularity.
//   - CollapseVariants examines the first CollapseWindow ranked matches;
//     deeper pages of a collapsed search are empty and its Total is then an
//     upper bound (see SearchRequest).
//   - Romaji is generated only for kana: names with kanji get romaji for
//     their kana runs in Search but no romaji typeahead key. Pinyin takes
//     each character's most common reading (no word-level heteronyms).
//   - Lookup does not combine words across fields ("charizard base" finds
//     names starting so, not Charizard cards of Base): that is Search's job.
//
// It imports the standard library, Bleve (blevesearch/bleve/v2), go-pinyin,
// apperr, snapshots, snapshots/jsontext and index/syntax.
package index
