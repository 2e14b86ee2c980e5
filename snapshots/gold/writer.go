package gold

import (
	"cmp"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cardedge/cardedge/snapshots"
	"modernc.org/sqlite"
)

// Writer writes gold.sqlite during a snapshot build. It is not safe for
// concurrent use. Rows are buffered and inserted batchRows at a time, so an
// insert error may surface on a later call than the one that added the row,
// or at Close. After the first error every method returns that error; the
// caller then calls Close (which reports it again) and discards the file.
type Writer struct {
	path string
	conn driver.Conn

	sets, cards, sales, points, listings, analytics batcher

	err    error
	closed bool

	saleCards []saleCard // the cards of saleBuf
	saleBuf   []saleRec  // sales buffered until Close

	jsonErr error    // the first JSON encoding error of the row being added
	buf     []byte   // scratch for JSON text
	keys    []string // scratch for sorting map keys

	// Values boxed once: boxing a string or an int64 into a driver.Value
	// allocates, and millions of rows made the garbage collector busy.
	days       map[snapshots.Day]any
	grade      [256]any
	market     [256]any
	tradeType  [256]any
	confidence [256]any
	flags      [2]any
	cardID     any // of the card being added
	game       any
	games      map[string]any
	variants   []any
}

// batchRows is how many rows one INSERT writes. Fewer statement executions
// (bind setup, step, reset) per row is most of the speed of the Writer; past
// about ten rows per statement modernc.org/sqlite gets slower again.
const batchRows = 10

// batcher buffers the rows of one table and inserts them batchRows at a
// time.
type batcher struct {
	t     *tableDef
	conn  driver.Conn
	batch driver.Stmt // INSERT of batchRows rows
	args  []driver.NamedValue
	rows  int    // rows in args
	first string // set or card of the first buffered row, for error messages
	total int64
}

func (b *batcher) init(conn driver.Conn, t *tableDef) error {
	st, err := conn.(driver.ConnPrepareContext).PrepareContext(context.Background(), t.insertSQL(batchRows))
	if err != nil {
		return fmt.Errorf("prepare insert into %s: %w", t.name, err)
	}
	*b = batcher{t: t, conn: conn, batch: st, args: make([]driver.NamedValue, 0, batchRows*t.stored())}
	return nil
}

// add buffers one row, whose values must be in the order of the table's
// stored columns, and inserts the batch when it is full.
func (b *batcher) add(owner string, vals ...any) error {
	if len(vals) != b.t.stored() {
		return fmt.Errorf("gold: %s: %d values for %d columns (internal)", b.t.name, len(vals), b.t.stored())
	}
	if b.rows == 0 {
		b.first = owner
	}
	for _, v := range vals {
		b.args = append(b.args, driver.NamedValue{Ordinal: len(b.args) + 1, Value: v})
	}
	b.rows++
	if b.rows == batchRows {
		return b.flush(b.batch)
	}
	return nil
}

// flush inserts the buffered rows with st, an INSERT of exactly b.rows rows.
func (b *batcher) flush(st driver.Stmt) error {
	if b.rows == 0 {
		return nil
	}
	_, err := st.(driver.StmtExecContext).ExecContext(context.Background(), b.args)
	n := b.rows
	clear(b.args)
	b.args, b.rows = b.args[:0], 0
	if err != nil {
		return fmt.Errorf("gold: insert into %s (a batch starting at %s): %w", b.t.name, b.first, err)
	}
	b.total += int64(n)
	return nil
}

// finish inserts the rows left in the buffer and closes the statements.
func (b *batcher) finish() error {
	var err error
	if b.rows > 0 {
		var st driver.Stmt
		st, err = b.conn.(driver.ConnPrepareContext).PrepareContext(context.Background(), b.t.insertSQL(b.rows))
		if err == nil {
			err = b.flush(st)
			if e := st.Close(); err == nil {
				err = e
			}
		}
	}
	return errors.Join(err, b.close())
}

func (b *batcher) close() error {
	if b.batch == nil {
		return nil
	}
	err := b.batch.Close()
	b.batch = nil
	return err
}

func (w *Writer) batchers() []*batcher {
	return []*batcher{&w.sets, &w.cards, &w.sales, &w.points, &w.listings, &w.analytics}
}

// Create creates the gold database at path, replacing any file there, and
// returns a Writer for it. The file is written with journaling and syncing off
// (a failed build discards it); Close syncs it.
func Create(path string) (*Writer, error) {
	for _, p := range []string{path, path + "-journal", path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("gold: create %s: %w", path, err)
		}
	}
	dsn, err := dsnFor(path, url.Values{
		"_pragma": {
			"page_size(8192)",
			"journal_mode(OFF)",
			"synchronous(OFF)",
			"locking_mode(EXCLUSIVE)",
			"cache_size(-131072)", // 128 MiB, for the sorts of CREATE INDEX
			"temp_store(MEMORY)",
		},
	})
	if err != nil {
		return nil, err
	}
	conn, err := openDriverConn(dsn)
	if err != nil {
		return nil, fmt.Errorf("gold: create %s: %w", path, err)
	}
	w := &Writer{
		path:  path,
		conn:  conn,
		days:  make(map[snapshots.Day]any, 1024),
		games: make(map[string]any),
		flags: [2]any{int64(0), int64(1)},
	}
	for i := range 256 {
		w.grade[i] = snapshots.Grade(i).String()
		w.market[i] = snapshots.Marketplace(i).String()
		w.tradeType[i] = snapshots.TradeType(i).String()
		w.confidence[i] = snapshots.Confidence(i).String()
	}
	if err := w.init(); err != nil {
		for _, b := range w.batchers() {
			b.close()
		}
		conn.Close()
		return nil, fmt.Errorf("gold: create %s: %w", path, err)
	}
	return w, nil
}

func openDriverConn(dsn string) (driver.Conn, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// dsnFor returns a file: URI for path with the query q.
func dsnFor(path string, q url.Values) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("gold: %s: %w", path, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	// url.URL writes file:///abs; SQLite accepts an empty authority.
	return u.String(), nil
}

func (w *Writer) exec(query string) error {
	_, err := w.conn.(driver.ExecerContext).ExecContext(context.Background(), query, nil)
	if err != nil {
		return fmt.Errorf("%.40s: %w", query, err)
	}
	return nil
}

func (w *Writer) init() error {
	for _, t := range tables {
		if err := w.exec(t.createSQL()); err != nil {
			return err
		}
	}
	if err := w.exec("BEGIN"); err != nil {
		return err
	}
	for i, b := range w.batchers() {
		if err := b.init(w.conn, tables[i]); err != nil {
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
	return w.fail(w.sets.add(s.ID, s.Game, s.ID, s.Language, nullText(s.SourceID), s.Name, nullText(s.Series),
		nullText(s.ReleaseDate), nullText(s.Abbreviation), nullInt(int64(s.CardCountPrinted)),
		nullInt(int64(s.CardCountTotal)), nullText(s.Source), int64(s.CardCount),
		s.Volume30dCents, int64(s.Sales30d)))
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
	var priceCents, priceDate any
	if c.PriceCents != 0 {
		priceCents, priceDate = c.PriceCents, w.day(c.PriceDay)
	}
	var variants any
	if c.Variants != nil {
		variants = jsonList(w, c.Variants)
	}
	subtypes, colors, dex := jsonList(w, c.Subtypes), jsonList(w, c.Colors), jsonList(w, c.NationalDex)
	sources, venues := jsonList(w, c.MarketSources), jsonList(w, c.Venues)
	if err := w.jsonCheck(c.ID); err != nil {
		return err
	}
	if err := w.cards.add(c.ID, c.Game, c.ID, c.Language, nullText(c.SourceID), c.SetID, c.Name,
		nullText(c.NameLanguage), nullText(c.Number), nullText(c.Rarity), nullText(c.Supertype),
		subtypes, colors, dex, variants, nullText(c.ENCardID), nullText(c.ENMatch), nullText(c.Source),
		nullInt(c.PartnerProductID), int64(c.Ordinal), sources, venues, priceCents, priceDate,
		c.Volume30dCents, int64(c.Sales30d), int64(c.SalesAll), int64(c.Listings)); err != nil {
		return err
	}

	w.cardID = c.ID
	if w.game = w.games[c.Game]; w.game == nil {
		w.game = c.Game
		w.games[c.Game] = w.game
	}
	// Sales wait in saleBuf, in a compact form, until Close sorts them into
	// the order of the clustered sales table.
	if len(sales) > 0 {
		if len(w.saleCards) >= math.MaxInt32 {
			return fmt.Errorf("gold: too many cards")
		}
		card := int32(len(w.saleCards))
		variants := make([]any, len(c.Variants))
		for i, v := range c.Variants {
			variants[i] = v
		}
		w.saleCards = append(w.saleCards, saleCard{id: c.ID, idv: w.cardID, game: w.game, variants: variants})
		for i := range sales {
			if sales[i].ID > math.MaxInt64 {
				return fmt.Errorf("gold: sale id %d of card %s does not fit a signed 64-bit integer", sales[i].ID, c.ID)
			}
			w.saleBuf = append(w.saleBuf, saleRec{card: card, sale: sales[i]})
		}
	}

	for _, s := range series {
		g := w.grade[s.Grade]
		for _, p := range s.Points {
			if err := w.points.add(c.ID, w.cardID, w.game, g, w.day(p.Day), p.FMVCents, p.TVWAPCents,
				p.MedianCents, int64(p.Sales)); err != nil {
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
		if err := w.listings.add(c.ID, l.ID, cardID, c.Game, l.Platform, l.Grade, nullText(l.Finish), l.AskCents,
			l.ShippingCents, w.day(l.ListedDay), int64(l.Quantity), finite(l.DealScore),
			int64(l.PlatformFreshnessH)); err != nil {
			return err
		}
	}

	for i := range analytics {
		a := &analytics[i]
		var extra any
		if len(a.Extra) > 0 {
			extra = jsonMap(w, a.Extra)
		}
		byMarket, byGrade := jsonMap(w, a.ByMarketplace), jsonMap(w, a.ByGrade)
		gradeMedian, tradeTypes := jsonMap(w, a.GradeMedianCts), jsonMap(w, a.TradeTypes)
		if err := w.jsonCheck(c.ID); err != nil {
			return err
		}
		if err := w.analytics.add(c.ID, c.ID, c.Game, a.Window, nullText(a.From), nullText(a.To), int64(a.Sales),
			a.VolumeCents, a.AvgCents, a.MedianCents, a.LowCents, a.HighCents, a.FirstFMVCents,
			a.LastFMVCents, finite(a.ChangePct), finite(a.VolatilityPct), byMarket, byGrade,
			gradeMedian, tradeTypes, extra); err != nil {
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

// saleCard is what the sales rows need of a card.
type saleCard struct {
	id       string
	idv      any // id, boxed
	game     any
	variants []any
	rank     int32 // position of id in byte order among saleCards
}

type saleRec struct {
	card int32 // index in saleCards
	sale snapshots.Sale
}

// writeSales inserts the buffered sales in the key order of the sales table,
// (card_id, sale_date, id): every insert appends to the B-tree, and no
// card_id index has to be sorted afterwards. Byte order of the ids is
// SQLite's BINARY collation, and YYYY-MM-DD sorts like the day.
func (w *Writer) writeSales() error {
	order := make([]int32, len(w.saleCards))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(w.saleCards[a].id, w.saleCards[b].id) })
	for rank, i := range order {
		w.saleCards[i].rank = int32(rank)
	}
	slices.SortFunc(w.saleBuf, func(a, b saleRec) int {
		if c := cmp.Compare(w.saleCards[a.card].rank, w.saleCards[b.card].rank); c != 0 {
			return c
		}
		if c := cmp.Compare(a.sale.Day, b.sale.Day); c != 0 {
			return c
		}
		return cmp.Compare(a.sale.ID, b.sale.ID)
	})
	for i := range w.saleBuf {
		r := &w.saleBuf[i]
		c, s := &w.saleCards[r.card], &r.sale
		var finish any
		if int(s.Finish) < len(c.variants) {
			finish = c.variants[s.Finish]
		}
		if err := w.sales.add(c.id, int64(s.ID), c.idv, c.game, w.day(s.Day), s.PriceCents,
			w.market[s.Marketplace], w.tradeType[s.TradeType], w.grade[s.Grade], w.confidence[s.Confidence],
			w.flag(s.Flags&snapshots.SaleFlagged), w.flag(s.Flags&snapshots.SalePriceFeed), finish); err != nil {
			return err
		}
	}
	w.saleBuf, w.saleCards = nil, nil
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

// Close commits the rows, creates the indexes, gathers planner statistics,
// closes the database and fsyncs the file. It returns the first error of the
// Writer's life; the file is then unusable and the caller discards it.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	err := w.err
	if err == nil {
		err = w.finish()
	}
	for _, b := range w.batchers() {
		if e := b.close(); e != nil && err == nil {
			err = fmt.Errorf("gold: close statement: %w", e)
		}
	}
	if e := w.conn.Close(); e != nil && err == nil {
		err = fmt.Errorf("gold: close %s: %w", w.path, e)
	}
	if err == nil {
		err = syncFile(w.path)
	}
	if w.err == nil {
		w.err = err
	}
	return err
}

func (w *Writer) finish() error {
	if err := w.writeSales(); err != nil {
		return err
	}
	for _, b := range w.batchers() {
		if err := b.finish(); err != nil {
			return err
		}
	}
	if err := w.exec("COMMIT"); err != nil {
		return fmt.Errorf("gold: %s: %w", w.path, err)
	}
	for _, t := range tables {
		for _, ix := range t.indexes {
			if err := w.exec(ix); err != nil {
				return fmt.Errorf("gold: %s: %w", w.path, err)
			}
		}
	}
	// A bounded ANALYZE gives the planner row estimates for the indexes
	// (sqlite_stat1) at a small fraction of the cost of a full one.
	if err := w.exec("PRAGMA analysis_limit=1000"); err != nil {
		return fmt.Errorf("gold: %s: %w", w.path, err)
	}
	if err := w.exec("ANALYZE"); err != nil {
		return fmt.Errorf("gold: %s: %w", w.path, err)
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

func (w *Writer) day(d snapshots.Day) any {
	s, ok := w.days[d]
	if !ok {
		s = d.String()
		w.days[d] = s
	}
	return s
}

func (w *Writer) flag(b uint8) any {
	if b != 0 {
		return w.flags[1]
	}
	return w.flags[0]
}

// finite maps NaN and infinities (which SQLite stores as NULL or cannot
// represent in JSON) to 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(n int64) any {
	if n == 0 {
		return nil
	}
	return n
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
