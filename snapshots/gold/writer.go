package gold

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
)

// Writer writes gold.sqlite during a snapshot build. It is not safe for
// concurrent use.
//
// Rows are buffered and inserted batchRows at a time, so an insert error may
// surface on a later call than the one that added the row, or at Close.
// Sales are spilled to a scratch file beside the database (path + "-sales",
// 26 bytes a sale) until Close, which reads them back card by card in the
// order of the clustered sales table; the Writer's memory does not grow with
// the number of sales. After the first error every method returns that
// error; the caller then calls Close (which reports it again, and removes
// the scratch file) and discards the file.
type Writer struct {
	path string
	db   *bulkDB

	sets, cards, sales, points, listings, analytics batcher

	err    error
	closed bool

	saleCards []saleCard    // cards with sales, in the order added
	spill     *os.File      // the sales of saleCards, card after card
	spillW    *bufio.Writer // buffers writes to spill
	spillOff  int64         // bytes written to spill
	spillBuf  []byte        // scratch for one card's encoded sales

	jsonErr error    // the first JSON encoding error of the row being added
	buf     []byte   // scratch for JSON text
	keys    []string // scratch for sorting map keys

	days       map[snapshots.Day]string
	grade      [256]string
	market     [256]string
	tradeType  [256]string
	confidence [256]string
}

// batchRows is how many rows one INSERT writes: fewer statement executions
// per row is much of the Writer's speed.
const batchRows = 16

// batcher buffers the rows of one table and inserts them batchRows at a
// time.
type batcher struct {
	t     *tableDef
	db    *bulkDB
	batch uintptr // INSERT of batchRows rows
	vals  []value
	rows  int    // rows in vals
	first string // set or card of the first buffered row, for error messages
	total int64
}

func (b *batcher) init(db *bulkDB, t *tableDef) error {
	st, err := db.prepare(t.insertSQL(batchRows))
	if err != nil {
		return fmt.Errorf("prepare insert into %s: %w", t.name, err)
	}
	*b = batcher{t: t, db: db, batch: st, vals: make([]value, 0, batchRows*t.stored())}
	return nil
}

// add buffers one row, whose values must be in the order of the table's
// stored columns, and inserts the batch when it is full.
func (b *batcher) add(owner string, vals ...value) error {
	if len(vals) != b.t.stored() {
		return fmt.Errorf("gold: %s: %d values for %d columns (internal)", b.t.name, len(vals), b.t.stored())
	}
	if b.rows == 0 {
		b.first = owner
	}
	b.vals = append(b.vals, vals...)
	b.rows++
	if b.rows == batchRows {
		return b.flush(b.batch)
	}
	return nil
}

// flush inserts the buffered rows with st, an INSERT of exactly b.rows rows.
func (b *batcher) flush(st uintptr) error {
	if b.rows == 0 {
		return nil
	}
	err := b.db.run(st, b.vals)
	n := b.rows
	clear(b.vals) // drop the strings
	b.vals, b.rows = b.vals[:0], 0
	if err != nil {
		return fmt.Errorf("gold: insert into %s (a batch starting at %s): %w", b.t.name, b.first, err)
	}
	b.total += int64(n)
	return nil
}

// finish inserts the rows left in the buffer.
func (b *batcher) finish() error {
	if b.rows == 0 {
		return nil
	}
	st, err := b.db.prepare(b.t.insertSQL(b.rows))
	if err != nil {
		return fmt.Errorf("gold: prepare insert into %s: %w", b.t.name, err)
	}
	return b.flush(st)
}

func (w *Writer) batchers() []*batcher {
	return []*batcher{&w.sets, &w.cards, &w.sales, &w.points, &w.listings, &w.analytics}
}

// Create creates the gold database at path, replacing any file there, and
// returns a Writer for it. The file is written with journaling and syncing off
// (a failed build discards it); Close syncs it.
func Create(path string) (*Writer, error) {
	for _, p := range []string{path, path + "-journal", path + "-wal", path + "-shm", spillPath(path)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("gold: create %s: %w", path, err)
		}
	}
	db, err := openBulk(path)
	if err != nil {
		return nil, fmt.Errorf("gold: create %s: %w", path, err)
	}
	spill, err := os.OpenFile(spillPath(path), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		db.close()
		return nil, fmt.Errorf("gold: create %s: %w", path, err)
	}
	w := &Writer{path: path, db: db, days: make(map[snapshots.Day]string, 1024),
		spill: spill, spillW: bufio.NewWriterSize(spill, 1<<20)}
	for i := range 256 {
		w.grade[i] = snapshots.Grade(i).String()
		w.market[i] = snapshots.Marketplace(i).String()
		w.tradeType[i] = snapshots.TradeType(i).String()
		w.confidence[i] = snapshots.Confidence(i).String()
	}
	if err := w.init(); err != nil {
		db.close()
		w.removeSpill()
		return nil, fmt.Errorf("gold: create %s: %w", path, err)
	}
	return w, nil
}

func (w *Writer) init() error {
	// page_size must come before the first table. The CREATE INDEX sorts
	// keep a run of cache_size in memory and spill the rest to a temporary
	// file (SQLite's temp directory: SQLITE_TMPDIR, TMPDIR, /var/tmp, /tmp),
	// which temp_store = FILE allows: with temp_store = MEMORY SQLite never
	// spills a sort, and indexing the 23M sales of the large preset held
	// some 2 GiB of C memory.
	err := w.db.exec(`
		PRAGMA page_size = 8192;
		PRAGMA journal_mode = OFF;
		PRAGMA synchronous = OFF;
		PRAGMA locking_mode = EXCLUSIVE;
		PRAGMA cache_size = -131072; -- 128 MiB: the page cache, and the runs of CREATE INDEX sorts
		PRAGMA temp_store = FILE;`)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := w.db.exec(t.createSQL()); err != nil {
			return fmt.Errorf("create table %s: %w", t.name, err)
		}
	}
	if err := w.db.exec("BEGIN"); err != nil {
		return err
	}
	for i, b := range w.batchers() {
		if err := b.init(w.db, tables[i]); err != nil {
			return err
		}
	}
	return nil
}

// AddSet writes one set.
func (w *Writer) AddSet(s *snapshots.Set) error {
	if err := w.usable(); err != nil {
		return err
	}
	return w.fail(w.sets.add(s.ID, textV(s.Game), textV(s.ID), textV(s.Language), nullText(s.SourceID),
		textV(s.Name), nullText(s.Series), nullText(s.ReleaseDate), nullText(s.Abbreviation),
		nullInt(int64(s.CardCountPrinted)), nullInt(int64(s.CardCountTotal)), nullText(s.Source),
		intV(int64(s.CardCount)), intV(s.Volume30dCents), intV(int64(s.Sales30d))))
}

// AddCard writes one card with its sales (including price-feed rows), price
// series, listings and analytics. The Writer copies what it keeps: the caller
// may reuse the slices.
func (w *Writer) AddCard(c *snapshots.Card, sales []snapshots.Sale, series []snapshots.PriceSeries, listings []snapshots.Listing, analytics []snapshots.CardAnalytics) error {
	if err := w.usable(); err != nil {
		return err
	}
	return w.fail(w.addCard(c, sales, series, listings, analytics))
}

func (w *Writer) addCard(c *snapshots.Card, sales []snapshots.Sale, series []snapshots.PriceSeries, listings []snapshots.Listing, analytics []snapshots.CardAnalytics) error {
	priceCents, priceDate := value{}, value{}
	if c.PriceCents != 0 {
		priceCents, priceDate = intV(c.PriceCents), textV(w.day(c.PriceDay))
	}
	variants := value{}
	if c.Variants != nil {
		variants = textV(jsonList(w, c.Variants))
	}
	subtypes, colors, dex := jsonList(w, c.Subtypes), jsonList(w, c.Colors), jsonList(w, c.NationalDex)
	sources, venues := jsonList(w, c.MarketSources), jsonList(w, c.Venues)
	if err := w.jsonCheck(c.ID); err != nil {
		return err
	}
	if err := w.cards.add(c.ID, textV(c.Game), textV(c.ID), textV(c.Language), nullText(c.SourceID),
		textV(c.SetID), textV(c.Name), nullText(c.NameLanguage), nullText(c.Number), nullText(c.Rarity),
		nullText(c.Supertype), textV(subtypes), textV(colors), textV(dex), variants, nullText(c.ENCardID),
		nullText(c.ENMatch), nullText(c.Source), nullInt(c.PartnerProductID), intV(int64(c.Ordinal)),
		textV(sources), textV(venues), priceCents, priceDate, intV(c.Volume30dCents),
		intV(int64(c.Sales30d)), intV(int64(c.SalesAll)), intV(int64(c.Listings))); err != nil {
		return err
	}

	// Sales wait in the spill file until Close inserts them in the order of
	// the clustered sales table.
	if len(sales) > 0 {
		if len(sales) > maxCardSales {
			return fmt.Errorf("gold: card %s has %d sales, more than %d", c.ID, len(sales), maxCardSales)
		}
		for i := range sales {
			if sales[i].ID > math.MaxInt64 {
				return fmt.Errorf("gold: sale id %d of card %s does not fit a signed 64-bit integer", sales[i].ID, c.ID)
			}
		}
		w.spillBuf = snapshots.EncodeSales(w.spillBuf[:0], sales)
		if _, err := w.spillW.Write(w.spillBuf); err != nil {
			return fmt.Errorf("gold: spill the sales of card %s: %w", c.ID, err)
		}
		w.saleCards = append(w.saleCards, saleCard{id: c.ID, game: c.Game, variants: slices.Clone(c.Variants),
			off: w.spillOff, size: len(w.spillBuf)})
		w.spillOff += int64(len(w.spillBuf))
	}

	for _, s := range series {
		g := textV(w.grade[s.Grade])
		for _, p := range s.Points {
			if err := w.points.add(c.ID, textV(c.ID), textV(c.Game), g, textV(w.day(p.Day)), intV(p.FMVCents),
				intV(p.TVWAPCents), intV(p.MedianCents), intV(int64(p.Sales))); err != nil {
				return err
			}
		}
	}

	for i := range listings {
		l := &listings[i]
		cardID := l.CardID
		if cardID == "" {
			cardID = c.ID
		}
		if err := w.listings.add(c.ID, textV(l.ID), textV(cardID), textV(c.Game), textV(l.Platform),
			textV(l.Grade), nullText(l.Finish), intV(l.AskCents), intV(l.ShippingCents),
			textV(w.day(l.ListedDay)), intV(int64(l.Quantity)), floatV(finite(l.DealScore)),
			intV(int64(l.PlatformFreshnessH))); err != nil {
			return err
		}
	}

	for i := range analytics {
		a := &analytics[i]
		extra := value{}
		if len(a.Extra) > 0 {
			extra = textV(jsonMap(w, a.Extra))
		}
		byMarket, byGrade := jsonMap(w, a.ByMarketplace), jsonMap(w, a.ByGrade)
		gradeMedian, tradeTypes := jsonMap(w, a.GradeMedianCts), jsonMap(w, a.TradeTypes)
		if err := w.jsonCheck(c.ID); err != nil {
			return err
		}
		if err := w.analytics.add(c.ID, textV(c.ID), textV(c.Game), textV(a.Window), nullText(a.From),
			nullText(a.To), intV(int64(a.Sales)), intV(a.VolumeCents), intV(a.AvgCents), intV(a.MedianCents),
			intV(a.LowCents), intV(a.HighCents), intV(a.FirstFMVCents), intV(a.LastFMVCents),
			floatV(finite(a.ChangePct)), floatV(finite(a.VolatilityPct)), textV(byMarket), textV(byGrade),
			textV(gradeMedian), textV(tradeTypes), extra); err != nil {
			return err
		}
	}
	return nil
}

// jsonCheck returns (and clears) the pending JSON encoding error.
func (w *Writer) jsonCheck(card string) error {
	if err := w.jsonErr; err != nil {
		w.jsonErr = nil
		return fmt.Errorf("gold: card %s: %w", card, err)
	}
	return nil
}

// saleCard is what the sales rows need of a card, and where its sales are in
// the spill file.
type saleCard struct {
	id, game string
	variants []string
	off      int64 // offset of the card's encoded sales in the spill file
	size     int   // their length in bytes
}

// maxCardSales bounds the sales of one card (a card's sales are read back
// from the spill file in one piece): 2^24, the sequence numbers of the
// builder's sale ids.
const maxCardSales = 1 << 24

// spillPath is the scratch file that holds the sales until Close.
func spillPath(path string) string { return path + "-sales" }

// writeSales inserts the spilled sales in the key order of the sales table,
// (card_id, sale_date, id): every insert appends to the B-tree, and no
// card_id index has to be sorted afterwards. Byte order of the ids is
// SQLite's BINARY collation, and YYYY-MM-DD sorts like the day. Cards are
// read back one at a time, so memory holds one card's sales.
func (w *Writer) writeSales() error {
	if err := w.spillW.Flush(); err != nil {
		return fmt.Errorf("gold: spill sales: %w", err)
	}
	order := make([]int, len(w.saleCards))
	for i := range order {
		order[i] = i
	}
	// Ties (one id in two games) keep the order the cards were added in.
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(w.saleCards[a].id, w.saleCards[b].id) })
	var sales []snapshots.Sale
	for _, ci := range order {
		c := &w.saleCards[ci]
		w.spillBuf = slices.Grow(w.spillBuf[:0], c.size)[:c.size]
		if _, err := w.spill.ReadAt(w.spillBuf, c.off); err != nil {
			return fmt.Errorf("gold: read back the sales of card %s: %w", c.id, err)
		}
		var err error
		if sales, err = snapshots.DecodeSales(sales[:0], w.spillBuf); err != nil {
			return fmt.Errorf("gold: read back the sales of card %s: %w", c.id, err)
		}
		slices.SortFunc(sales, func(a, b snapshots.Sale) int {
			if c := cmp.Compare(a.Day, b.Day); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		for i := range sales {
			s := &sales[i]
			finish := value{}
			if int(s.Finish) < len(c.variants) {
				finish = textV(c.variants[s.Finish])
			}
			if err := w.sales.add(c.id, intV(int64(s.ID)), textV(c.id), textV(c.game), textV(w.day(s.Day)),
				intV(s.PriceCents), textV(w.market[s.Marketplace]), textV(w.tradeType[s.TradeType]),
				textV(w.grade[s.Grade]), textV(w.confidence[s.Confidence]), flag(s.Flags&snapshots.SaleFlagged),
				flag(s.Flags&snapshots.SalePriceFeed), finish, flag(s.Flags&snapshots.SaleOutlier)); err != nil {
				return err
			}
		}
	}
	w.saleCards, w.spillBuf = nil, nil
	return nil
}

// removeSpill closes and removes the spill file.
func (w *Writer) removeSpill() error {
	if w.spill == nil {
		return nil
	}
	err := w.spill.Close()
	if e := os.Remove(w.spill.Name()); err == nil {
		err = e
	}
	w.spill, w.spillW = nil, nil
	if err != nil {
		return fmt.Errorf("gold: remove %s: %w", spillPath(w.path), err)
	}
	return nil
}

// Rows returns how many rows the Writer has written per table so far.
// Buffered rows count once they are inserted: call it after Close for the
// final counts.
func (w *Writer) Rows() map[string]int64 {
	out := make(map[string]int64, len(tables))
	for _, b := range w.batchers() {
		if b.t != nil {
			out[b.t.name] = b.total
		}
	}
	return out
}

// Close inserts the buffered and spilled rows, removes the spill file,
// commits, creates the indexes, gathers planner statistics, closes the
// database and fsyncs the file. It returns the first error of the Writer's
// life; the file is then unusable and the caller discards it.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	err := w.err
	if err == nil {
		err = w.finish()
	}
	if e := w.removeSpill(); e != nil && err == nil {
		err = e
	}
	if e := w.db.close(); e != nil && err == nil {
		err = fmt.Errorf("gold: close %s: %w", w.path, e)
	}
	if err == nil {
		err = syncFile(w.path)
	}
	w.saleCards, w.spillBuf = nil, nil
	if w.err == nil {
		w.err = err
	}
	return err
}

// Abort closes the Writer without finishing the file, for a failed build:
// the rows not yet inserted are dropped, the spill file is removed, and the
// database file, incomplete, is left for the caller to discard. Unlike
// Close it does not insert the sales or build the indexes. After Abort,
// Close and every other method return an error. Abort after Close does
// nothing.
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	if w.err == nil {
		w.err = fmt.Errorf("gold: %s: writer aborted", w.path)
	}
	w.removeSpill()
	w.db.close()
	w.saleCards, w.spillBuf = nil, nil
}

func (w *Writer) finish() error {
	if err := w.writeSales(); err != nil {
		return err
	}
	if err := w.removeSpill(); err != nil {
		return err
	}
	for _, b := range w.batchers() {
		if err := b.finish(); err != nil {
			return err
		}
	}
	if err := w.db.exec("COMMIT"); err != nil {
		return fmt.Errorf("gold: %s: commit: %w", w.path, err)
	}
	for _, t := range tables {
		for _, ix := range t.indexes {
			if err := w.db.exec(ix); err != nil {
				return fmt.Errorf("gold: %s: %s: %w", w.path, ix, err)
			}
		}
	}
	// A bounded ANALYZE gives the planner row estimates for the indexes
	// (sqlite_stat1) at a small fraction of the cost of a full one.
	if err := w.db.exec("PRAGMA analysis_limit = 1000; ANALYZE"); err != nil {
		return fmt.Errorf("gold: %s: analyze: %w", w.path, err)
	}
	return nil
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("gold: sync %s: %w", path, err)
	}
	err = f.Sync()
	if e := f.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("gold: sync %s: %w", path, err)
	}
	return nil
}

func (w *Writer) usable() error {
	if w.closed && w.err == nil {
		return fmt.Errorf("gold: %s: writer is closed", w.path)
	}
	return w.err
}

func (w *Writer) fail(err error) error {
	if err != nil && w.err == nil {
		w.err = err
	}
	return err
}

func (w *Writer) day(d snapshots.Day) string {
	s, ok := w.days[d]
	if !ok {
		s = d.String()
		w.days[d] = s
	}
	return s
}

func flag(b uint8) value {
	if b != 0 {
		return intV(1)
	}
	return intV(0)
}

// finite maps NaN and infinities (which SQLite stores as NULL or cannot
// represent in JSON) to 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// jsonList encodes a list as a JSON array, [] for nil.
func jsonList[T string | int](w *Writer, v []T) string {
	if len(v) == 0 {
		return "[]"
	}
	w.buf = appendJSONList(w.buf[:0], v)
	return string(w.buf)
}

// jsonMap encodes a map as a JSON object (keys sorted), {} for nil. A NaN
// or an infinity is kept in w.jsonErr for jsonCheck.
func jsonMap[V jsonNumber](w *Writer, m map[string]V) string {
	if len(m) == 0 {
		return "{}"
	}
	var ok bool
	w.buf, w.keys, ok = appendJSONMap(w.buf[:0], m, w.keys)
	if !ok && w.jsonErr == nil {
		w.jsonErr = fmt.Errorf("a map value is NaN or infinite, which JSON cannot hold")
	}
	return string(w.buf)
}
