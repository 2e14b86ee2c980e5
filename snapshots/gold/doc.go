// Package gold writes and reads gold.sqlite, the SQLite copy of a snapshot's
// gold tables, and runs the guarded read-only SQL behind POST /api/v3/sql
// (contract sql-query.v1; internal, allowlisted callers only).
//
// The builder writes the file with a Writer (Create, AddSet, AddCard card by
// card, Close) while it writes a snapshot; the edge opens it with Open and
// answers queries with DB.Query and the schema with DB.Schema.
//
// It uses the pure-Go driver modernc.org/sqlite (v1.60.1, pinned): SQLite
// transpiled to Go, so `make test` and the binaries need neither cgo nor a C
// toolchain nor system libraries. The read side goes through database/sql and
// the driver; the Writer drives SQLite's C API as the driver's own package
// modernc.org/sqlite/lib exposes it (see bulk.go), which made bulk loading
// about twice as fast as binding through database/sql/driver.
//
// Allowed imports: the standard library, package snapshots,
// snapshots/jsontext, and
// modernc.org/sqlite with its companions modernc.org/sqlite/lib and
// modernc.org/libc.
//
// # Writing
//
// The Writer creates the tables, buffers rows and inserts them 16 to an
// INSERT inside one transaction, with journal_mode=OFF and synchronous=OFF;
// sales wait in a scratch file until Close, which reads them back card by
// card in the key order of the sales table so that every insert appends. Close then commits, builds the
// secondary indexes, runs a bounded ANALYZE and fsyncs the file. On a
// synthetic market the size of the default preset (51,000 cards, 3.06M sales
// and price-feed rows, 306k price points and analytics rows, 204k listings:
// 3.93M rows, a 540 MiB file) it took about 19-25 s of CPU on one core of
// this 2-core machine, shared and loaded at the time (about 170-200k
// rows/s); BenchmarkWriter with GOLD_BENCH_CARDS=51000 measures it.
//
// # The guard
//
// DB.Query runs Check on the SQL text, then runs it on a hardened connection.
// Check refuses, with an EINVALID *apperr.Error and a message that says
// why:
//
//   - SQL text longer than MaxSQLBytes (16 KiB), NUL bytes and control
//     characters other than tab, newline, carriage return and form feed;
//   - anything but exactly one statement. A lexer that follows SQLite's
//     tokenizer (strings, "quoted", `quoted` and [quoted] identifiers, --
//     and /* */ comments) splits the text at ';', so "select 1; select 2" is
//     refused and "select ';'" is not; trailing semicolons, whitespace and
//     comments are fine. Unterminated strings and identifiers are refused;
//   - statements other than SELECT and WITH ... SELECT: INSERT, UPDATE,
//     DELETE, REPLACE, CREATE, DROP, ALTER, ATTACH, DETACH, PRAGMA, VACUUM,
//     REINDEX, ANALYZE, BEGIN/COMMIT/ROLLBACK/SAVEPOINT/RELEASE, EXPLAIN and
//     VALUES. The common table expressions of WITH are walked to the main
//     statement, so WITH x AS (...) DELETE ... is refused;
//   - bound parameters (?, :x, @x, $x): the endpoint binds none;
//   - load_extension and other functions or tables that load code, touch
//     files or raw pages (fts3_tokenizer, readfile, writefile, edit, fsdir,
//     sqlite_dbpage, sqlite_dbdata, sqlite_dbptr), in any quoting.
//
// PRAGMA: PRAGMA statements are refused entirely. The table-valued pragma
// functions are allowed only for schema introspection: pragma_table_info,
// pragma_table_xinfo, pragma_table_list, pragma_index_list,
// pragma_index_info, pragma_index_xinfo and pragma_foreign_key_list. Every
// other pragma_* name is refused (pragma_database_list, for one, would show
// server paths).
//
// Defence in depth, should anything slip past the lexer: connections open
// the file with mode=ro and immutable=1, PRAGMA query_only=1, SQLite's
// defensive mode and trusted_schema=0; extension loading is never enabled
// (load_extension fails with "not authorized"); each query runs with
// SQLITE_LIMIT_ATTACHED=0 (ATTACH fails), strings and blobs capped at
// Options.MaxBytes and SQL text at 16 KiB. Tests run writes, ATTACH and
// load_extension on such a connection without the guard and see them fail.
//
// Limits of a query: Options.Timeout (1 s) from the moment it has a
// connection; at the deadline the statement is interrupted, whether it is
// computing its first row or a later one, and the query fails with EINVALID
// "query exceeded the 1 s time limit". At most Options.MaxRows (1,000) rows:
// the runner reads one more to know, and sets Result.Truncated. At most
// Options.MaxBytes (4 MiB) of approximate JSON for the rows: a larger result
// is refused with EINVALID, never cut silently. Options.MaxConns (2)
// connections, one per core; a query that cannot get one within
// Options.WaitTimeout (2 s) fails with EQUOTA. SQL errors (syntax, unknown
// table or column, integer overflow, ...) are EINVALID "SQL error: ...";
// faults of the file or the driver are plain (internal) errors.
//
// Result values are JSON-ready: int64, float64, string, []byte (blobs,
// base64 in JSON) and nil; infinities become nil. A column's type is its
// declared type when it comes straight from a table column, and otherwise
// derived from its values: "integer", "real", "text", "blob", "null" (no
// value), or "any" (mixed; integer with real makes "real").
//
// # Tables
//
// Money is in *_usd REAL (the cents divided by 100: two decimals) and in
// integer *_cents; dates are TEXT YYYY-MM-DD (UTC); list and map fields are
// JSON text (query them with json_each, json_extract, json_array_length).
// Every table is STRICT. The *_usd columns and sales.hidden are VIRTUAL
// generated columns, computed on read from the stored columns: they cost no
// space and no write time, and are otherwise ordinary columns (SELECT *
// includes them). The game column ("pokemon", "onepiece") is on every table;
// ids are unique within a game. The sales table is clustered (WITHOUT ROWID)
// on its primary key (card_id, sale_date, id): a card's sales are one range
// of the B-tree. Indexes, built at the end of the write: sets(id, game) and
// cards(id, game) unique, cards(set_id), sales(sale_date),
// price_points(card_id, grade, date), listings(card_id) and
// card_analytics(card_id, window). ANALYZE statistics (sqlite_stat1) are
// gathered at build time.
//
// Table sets: one language edition of a card set.
//
//	game                game of the set
//	id                  set id, e.g. en:EB-01
//	language            en, ja, zh-cn or zh-tw
//	source_id           id of the set in its catalog source
//	name                set name
//	series              series; NULL when unknown
//	release_date        YYYY-MM-DD; NULL when unknown
//	abbreviation        NULL when unknown
//	card_count_printed  printed card count; NULL when unknown
//	card_count_total    total card count incl. secret cards; NULL when unknown
//	source              catalog source
//	card_count          cards of the catalog in this set
//	volume_30d_usd      verified sales volume over the 30 days up to as_of
//	volume_30d_cents    the same in cents
//	sales_30d           verified sales over the 30 days up to as_of
//
// Table cards: one printed card with its market summary as of the snapshot.
//
//	game                game of the card
//	id                  card id, e.g. en:EB01-001
//	language            en, ja, zh-cn or zh-tw
//	source_id           id of the card in its catalog source
//	set_id              the card's set (sets.id)
//	name                card name
//	name_language       language of name
//	number              collector number as printed
//	rarity              NULL when none
//	supertype           NULL when none
//	subtypes            JSON array of strings; [] when none
//	colors              JSON array of strings (types or colors); [] when none
//	national_dex        JSON array of national Pokédex numbers; [] when none
//	variants            JSON array of finishes; NULL when unknown
//	en_card_id          matching English card of another language; NULL when none
//	en_match            how en_card_id was matched; NULL when none
//	source              catalog source
//	partner_product_id  partner marketplace product id; NULL when none
//	ordinal             position in the game's catalog order
//	market_sources      JSON array of off-chain marketplaces with verified sales
//	venues              JSON array of on-chain venues with verified sales
//	price_usd           raw:near_mint fair market value of the base printing; NULL when unpriced
//	price_cents         the same in cents; NULL when unpriced
//	price_date          day of the last price change behind price_usd; NULL when unpriced
//	volume_30d_usd      verified sales volume over the 30 days up to as_of
//	volume_30d_cents    the same in cents
//	sales_30d           verified sales over the 30 days up to as_of
//	sales_all           verified sales over all history
//	listings            current shop listings
//
// Table sales: every recorded sale and the partner price-feed rows, clustered
// by card, then day, then id. The API hides some rows by default; the column
// hidden says which, so "verified sales" are WHERE hidden = 0.
//
//	id                  sale id (unique per card and day)
//	card_id             card sold (cards.id)
//	game                game of the card
//	sale_date           day of the sale, YYYY-MM-DD
//	price_usd           price in USD
//	price_cents         price in cents
//	marketplace         partner, ebay, cardmarket, mercari, yahoo_auctions, courtyard, collector_crypt
//	trade_type          auction, fixed_price, best_offer, on_chain_transfer
//	grade               raw:<condition> or <grader>:<number>, e.g. raw:near_mint, slab:10, bgs:9.5
//	identity_confidence exact, agree_high, agree_medium, disagree_medium, disagree_high
//	quality_flagged     1 when a quality rule flagged the sale
//	price_feed          1 for a partner price-feed row: a daily market median, not an executed sale
//	hidden              1 when quality_flagged, price_feed or identity_confidence is disagree_*
//	finish              the card's variant sold; NULL when unknown
//	outlier             1 when the estimator set the verified sale aside (it moves no price)
//
// Table price_points: oracle price change points per card and grade of the
// card's base printing (the series card detail shows without finish; the
// other printings' series are served by the REST routes with finish, not
// here). A day without a point keeps the previous point's values.
//
//	card_id             card (cards.id)
//	game                game of the card
//	grade               grade of the series
//	date                day of the change
//	fmv_usd             fair market value (smoothed estimate from sales)
//	fmv_cents           the same in cents
//	tvwap_usd           time- and volume-weighted average over the trailing 7 days
//	tvwap_cents         the same in cents
//	median_usd          median of the day's (or trailing 7 days') sales
//	median_cents        the same in cents
//	sales               sales behind this point (trailing 7 days)
//
// Table listings: current shop listings (beta).
//
//	id                  listing id
//	card_id             card listed (cards.id)
//	game                game of the card
//	platform            shop platform (a marketplace name)
//	grade               grade of the listed copy
//	finish              NULL when unknown
//	ask_usd             asking price
//	ask_cents           the same in cents
//	shipping_usd        shipping
//	shipping_cents      the same in cents
//	listed_date         day the listing appeared
//	quantity            copies available
//	deal_score          experimental: 100 × (1 - ask / fmv), clamped to [-100, 100]
//	platform_freshness_h experimental: hours since the platform was last read
//
// Table card_analytics: verified-sales statistics, one row per card and
// window, of the card's base printing (as card analytics without finish).
// window is a keyword of SQLite but works unquoted as a column name.
//
//	card_id             card (cards.id)
//	game                game of the card
//	window              1w, 1m, 3m, 6m, 1y or all
//	from_date           first day of the window
//	to_date             last day of the window (as_of)
//	sales               verified sales in the window
//	volume_usd          their volume
//	volume_cents        the same in cents
//	avg_usd             average price
//	avg_cents           the same in cents
//	median_usd          median price
//	median_cents        the same in cents
//	low_usd             lowest price
//	low_cents           the same in cents
//	high_usd            highest price
//	high_cents          the same in cents
//	first_fmv_usd       raw:near_mint fmv at the start of the window
//	first_fmv_cents     the same in cents
//	last_fmv_usd        raw:near_mint fmv at the end of the window
//	last_fmv_cents      the same in cents
//	change_pct          fmv change over the window, percent
//	volatility_pct      stdev of daily log returns of raw fmv, percent
//	by_marketplace      JSON object: sales per marketplace
//	by_grade            JSON object: sales per grade
//	grade_median_cents  JSON object: median price in cents per grade
//	trade_types         JSON object: sales per trade type
//	extra               JSON object of further metrics; NULL when none
//
// # Caveats
//
//   - The Writer is not safe for concurrent use, and its file is valid only
//     after Close returned nil: it is written without a journal and without
//     syncing (a failed build discards it). Create replaces an existing file.
//     Rows are inserted in batches across cards and sales only at Close: an
//     insert error may surface on a later AddCard or at Close, and Rows
//     counts a row once it is inserted.
//   - The Writer spills every sale to a scratch file beside the database
//     (path + "-sales", 26 bytes a sale: some 600 MiB of disk for the large
//     preset's 23M sales) and reads them back at Close, which removes it; its
//     memory holds the cards with sales (id, game, variants) and one card's
//     sales at a time. Close's CREATE INDEX sorts hold at most cache_size
//     (128 MiB) of keys in SQLite's memory and spill the rest to temporary
//     files in SQLite's temp directory (SQLITE_TMPDIR, TMPDIR, /var/tmp or
//     /tmp; up to 0.8 GiB for the large preset's sales_sale_date):
//     temp_store is FILE, since with MEMORY SQLite keeps a whole sort in
//     memory (2 GiB of C memory for that index).
//   - Sale ids must be unique per card and day (the sales primary key is
//     (card_id, sale_date, id)); a duplicate fails the build.
//   - bulk.go uses unsafe to copy text into C memory and to read the
//     pointers SQLite returns; that memory comes from SQLite's allocator,
//     outside the Go heap, and the tests run it under -race (checkptr).
//   - Opened immutable, the file must never change while a DB has it open:
//     snapshots are immutable, and a new snapshot is a new file.
//   - The time limit needs sqlite3_interrupt, which the driver does not
//     export for a running rows.Next. DB reads the connection's sqlite3
//     handle from the driver's unexported field by reflection (no unsafe) and
//     calls sqlite3_interrupt from modernc.org/sqlite/lib. It is tied to the
//     pinned driver version: if an upgrade moves the field, Open fails and
//     the tests say so, rather than queries running without a limit.
//   - Sale ids are stored as signed 64-bit integers; the Writer refuses one
//     above 2^63-1. JavaScript clients lose precision above 2^53.
//   - Result sizes are estimated from the values, not measured by encoding
//     them: the 4 MiB cap is approximate (within a few percent).
package gold
