package gold

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"

	"github.com/cardedge/cardedge/snapshots"
	"modernc.org/sqlite"
)

// Writer writes gold.sqlite during a snapshot build. It is not safe for
// concurrent use. After the first error every method returns that error; the
// caller then calls Close (which reports it again) and discards the file.
type Writer struct {
	path string
	conn driver.Conn

	sets, cards, sales, points, listings, analytics stmt
	// salesBatch inserts salesBatchRows sales with one statement.
	salesBatch stmt

	counts map[string]int64
	err    error
	closed bool

	args    []driver.NamedValue
	jsonErr error // the first JSON encoding error of the pending row
	days    map[snapshots.Day]string
	grade   [256]string
}

// salesBatchRows is how many sales one multi-row INSERT writes. Fewer
// statement executions (step, reset, clear) per row is most of the speed-up;
// 32 rows × 14 columns stays far below SQLite's limit of 32766 parameters.
const salesBatchRows = 32

type stmt struct {
	s    driver.StmtExecContext
	c    driver.Stmt
	cols int
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
			"cache_size(-65536)",
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
		path:   path,
		conn:   conn,
		counts: make(map[string]int64, len(tables)),
		days:   make(map[snapshots.Day]string, 1024),
	}
	for i := range w.grade {
		w.grade[i] = snapshots.Grade(i).String()
	}
	if err := w.init(); err != nil {
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
	for _, p := range []struct {
		st *stmt
		t  *tableDef
		n  int
	}{
		{&w.sets, &setsTable, 1},
		{&w.cards, &cardsTable, 1},
		{&w.sales, &salesTable, 1},
		{&w.salesBatch, &salesTable, salesBatchRows},
		{&w.points, &pricePointsTable, 1},
		{&w.listings, &listingsTable, 1},
		{&w.analytics, &cardAnalyticsTable, 1},
	} {
		q := p.t.insertSQL()
		for i := 1; i < p.n; i++ {
			q += p.t.valuesSQL()
		}
		c, err := w.conn.(driver.ConnPrepareContext).PrepareContext(context.Background(), q)
		if err != nil {
			return fmt.Errorf("prepare %s: %w", p.t.name, err)
		}
		*p.st = stmt{s: c.(driver.StmtExecContext), c: c, cols: len(p.t.cols) * p.n}
	}
	return nil
}

// valuesSQL is one more ",(?,...)" row for a multi-row INSERT.
func (t *tableDef) valuesSQL() string {
	b := make([]byte, 0, 2+2*len(t.cols))
	b = append(b, ",("...)
	for i := range t.cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '?')
	}
	return string(append(b, ')'))
}

// put appends the values of one row to the pending arguments.
func (w *Writer) put(vals ...any) {
	for _, v := range vals {
		w.args = append(w.args, driver.NamedValue{Ordinal: len(w.args) + 1, Value: v})
	}
}

// run executes st with the pending arguments and clears them.
func (w *Writer) run(st *stmt, table string, rows int) error {
	if w.jsonErr != nil || len(w.args) != st.cols {
		err := w.jsonErr
		if err == nil {
			err = fmt.Errorf("%d values for %d columns (internal)", len(w.args), st.cols)
		}
		w.jsonErr = nil
		clear(w.args)
		w.args = w.args[:0]
		return fmt.Errorf("gold: %s: %w", table, err)
	}
	_, err := st.s.ExecContext(context.Background(), w.args)
	clear(w.args)
	w.args = w.args[:0]
	if err != nil {
		return fmt.Errorf("gold: insert into %s: %w", table, err)
	}
	w.counts[table] += int64(rows)
	return nil
}

// AddSet writes one set.
func (w *Writer) AddSet(s *snapshots.Set) error {
	if err := w.usable(); err != nil {
		return err
	}
	w.put(s.Game, s.ID, s.Language, nullText(s.SourceID), s.Name, nullText(s.Series),
		nullText(s.ReleaseDate), nullText(s.Abbreviation), nullInt(int64(s.CardCountPrinted)),
		nullInt(int64(s.CardCountTotal)), nullText(s.Source), int64(s.CardCount),
		usd(s.Volume30dCents), s.Volume30dCents, int64(s.Sales30d))
	return w.fail(w.run(&w.sets, "sets", 1))
}

// AddCard writes one card with its sales (including price-feed rows), price
// series, listings and analytics.
func (w *Writer) AddCard(c *snapshots.Card, sales []snapshots.Sale, series []snapshots.PriceSeries, listings []snapshots.Listing, analytics []snapshots.CardAnalytics) error {
	if err := w.usable(); err != nil {
		return err
	}
	return w.fail(w.addCard(c, sales, series, listings, analytics))
}

func (w *Writer) addCard(c *snapshots.Card, sales []snapshots.Sale, series []snapshots.PriceSeries, listings []snapshots.Listing, analytics []snapshots.CardAnalytics) error {
	var priceUSD, priceCents, priceDate any
	if c.PriceCents != 0 {
		priceUSD, priceCents, priceDate = usd(c.PriceCents), c.PriceCents, w.day(c.PriceDay)
	}
	var variants any
	if c.Variants != nil {
		variants = w.jsonText(c.Variants)
	}
	w.put(c.Game, c.ID, c.Language, nullText(c.SourceID), c.SetID, c.Name, nullText(c.NameLanguage),
		nullText(c.Number), nullText(c.Rarity), nullText(c.Supertype), jsonList(w, c.Subtypes),
		jsonList(w, c.Colors), jsonList(w, c.NationalDex), variants, nullText(c.ENCardID), nullText(c.ENMatch),
		nullText(c.Source), nullInt(c.PartnerProductID), int64(c.Ordinal), jsonList(w, c.MarketSources),
		jsonList(w, c.Venues), priceUSD, priceCents, priceDate, usd(c.Volume30dCents), c.Volume30dCents,
		int64(c.Sales30d), int64(c.SalesAll), int64(c.Listings))
	if err := w.run(&w.cards, "cards", 1); err != nil {
		return fmt.Errorf("%w (card %s)", err, c.ID)
	}

	for len(sales) > 0 {
		n, st := 1, &w.sales
		if len(sales) >= salesBatchRows {
			n, st = salesBatchRows, &w.salesBatch
		}
		for i := range sales[:n] {
			if err := w.putSale(c, &sales[i]); err != nil {
				w.args = w.args[:0]
				return err
			}
		}
		if err := w.run(st, "sales", n); err != nil {
			return fmt.Errorf("%w (card %s)", err, c.ID)
		}
		sales = sales[n:]
	}

	for _, s := range series {
		g := w.gradeName(s.Grade)
		for _, p := range s.Points {
			w.put(c.ID, c.Game, g, w.day(p.Day), usd(p.FMVCents), p.FMVCents, usd(p.TVWAPCents),
				p.TVWAPCents, usd(p.MedianCents), p.MedianCents, int64(p.Sales))
			if err := w.run(&w.points, "price_points", 1); err != nil {
				return fmt.Errorf("%w (card %s)", err, c.ID)
			}
		}
	}

	for i := range listings {
		l := &listings[i]
		cardID := l.CardID
		if cardID == "" {
			cardID = c.ID
		}
		w.put(l.ID, cardID, c.Game, l.Platform, l.Grade, nullText(l.Finish), usd(l.AskCents), l.AskCents,
			usd(l.ShippingCents), l.ShippingCents, w.day(l.ListedDay), int64(l.Quantity), finite(l.DealScore),
			int64(l.PlatformFreshnessH))
		if err := w.run(&w.listings, "listings", 1); err != nil {
			return fmt.Errorf("%w (card %s)", err, c.ID)
		}
	}

	for i := range analytics {
		a := &analytics[i]
		var extra any
		if len(a.Extra) > 0 {
			extra = w.jsonText(a.Extra)
		}
		w.put(c.ID, c.Game, a.Window, nullText(a.From), nullText(a.To), int64(a.Sales),
			usd(a.VolumeCents), a.VolumeCents, usd(a.AvgCents), a.AvgCents, usd(a.MedianCents), a.MedianCents,
			usd(a.LowCents), a.LowCents, usd(a.HighCents), a.HighCents, usd(a.FirstFMVCents), a.FirstFMVCents,
			usd(a.LastFMVCents), a.LastFMVCents, finite(a.ChangePct), finite(a.VolatilityPct),
			jsonMap(w, a.ByMarketplace), jsonMap(w, a.ByGrade), jsonMap(w, a.GradeMedianCts), jsonMap(w, a.TradeTypes), extra)
		if err := w.run(&w.analytics, "card_analytics", 1); err != nil {
			return fmt.Errorf("%w (card %s)", err, c.ID)
		}
	}
	return nil
}

func (w *Writer) putSale(c *snapshots.Card, s *snapshots.Sale) error {
	if s.ID > math.MaxInt64 {
		return fmt.Errorf("gold: sale id %d of card %s does not fit a signed 64-bit integer", s.ID, c.ID)
	}
	var finish any
	if int(s.Finish) < len(c.Variants) {
		finish = c.Variants[s.Finish]
	}
	hidden := int64(0)
	if s.Hidden() {
		hidden = 1
	}
	w.put(int64(s.ID), c.ID, c.Game, w.day(s.Day), usd(s.PriceCents), s.PriceCents,
		s.Marketplace.String(), s.TradeType.String(), w.gradeName(s.Grade), s.Confidence.String(),
		flag(s.Flags&snapshots.SaleFlagged), flag(s.Flags&snapshots.SalePriceFeed), hidden, finish)
	return nil
}

// Rows returns how many rows the Writer has written per table so far.
func (w *Writer) Rows() map[string]int64 {
	out := make(map[string]int64, len(tables))
	for _, t := range tables {
		out[t.name] = w.counts[t.name]
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
	for _, st := range []*stmt{&w.sets, &w.cards, &w.sales, &w.salesBatch, &w.points, &w.listings, &w.analytics} {
		if st.c != nil {
			if e := st.c.Close(); e != nil && err == nil {
				err = fmt.Errorf("gold: close statement: %w", e)
			}
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

func (w *Writer) day(d snapshots.Day) string {
	s, ok := w.days[d]
	if !ok {
		s = d.String()
		w.days[d] = s
	}
	return s
}

func (w *Writer) gradeName(g snapshots.Grade) string { return w.grade[g] }

// usd converts cents to dollars: the nearest float64 to the two-decimal
// amount.
func usd(cents int64) float64 { return float64(cents) / 100 }

func flag(b uint8) int64 {
	if b != 0 {
		return 1
	}
	return 0
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

// jsonText encodes v as JSON. An error (a NaN in a float map, say) is kept
// in w.jsonErr and fails the pending row in run.
func (w *Writer) jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		if w.jsonErr == nil {
			w.jsonErr = fmt.Errorf("encode %T as JSON: %w", v, err)
		}
		return ""
	}
	return string(b)
}

// jsonList encodes a list as a JSON array, [] for nil.
func jsonList[T any](w *Writer, v []T) string {
	if len(v) == 0 {
		return "[]"
	}
	return w.jsonText(v)
}

// jsonMap encodes a map as a JSON object (keys sorted), {} for nil.
func jsonMap[V any](w *Writer, m map[string]V) string {
	if len(m) == 0 {
		return "{}"
	}
	return w.jsonText(m)
}
