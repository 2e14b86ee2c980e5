package bolt

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots"
	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Reader is a read-only snapshots.Reader over a snapshot directory. The
// catalog (sets, cards) and the listings are decoded into memory at Open;
// per-card market rows and aggregates are decoded from the memory-mapped
// bbolt files on each call.
//
// Per-card rows are found without a B+tree search: Open walks each per-card
// bucket of market.bolt once (tens of milliseconds for the default preset)
// and keeps, per card ordinal, the value's bytes in the mapped file. They
// stay valid because the read transaction they came from (marketTx) stays
// open until Close; the file is read-only, so that transaction holds back no
// writer. Nothing uses marketTx concurrently: reads only touch the slices,
// under rowsMu so that Close never unmaps pages a read is decoding.
type Reader struct {
	dir      string
	manifest *snapshots.Manifest
	market   *bbolt.DB
	aggs     *bbolt.DB
	games    map[string]*gameCatalog
	marketTx *bbolt.Tx // open from Open to Close: the pages cardRows point into

	rowsMu sync.RWMutex // read-held while a row is decoded, held by Close
	closed bool         // under rowsMu
}

// cardBucket names a per-card bucket of market.bolt (keyed by OrdinalKey).
type cardBucket int

const (
	salesBucket cardBucket = iota
	pricesBucket
	analyticsBucket
	cumBucket
	listingsBucket
	fpricesBucket
	fanalyticsBucket
	fcumBucket
	printingsBucket
	sourcesBucket
	numCardBuckets
)

var cardBucketNames = [numCardBuckets]string{"sales", "prices", "analytics", "cum", "listings", "fprices", "fanalytics", "fcum", "printings", "sources"}

// printingBucket is, per kind of per-printing row, the bucket of the base
// printing's and of the other printings'.
var printingBucket = map[cardBucket]cardBucket{pricesBucket: fpricesBucket, analyticsBucket: fanalyticsBucket, cumBucket: fcumBucket}

var (
	_ snapshots.Reader           = (*Reader)(nil)
	_ snapshots.ProvenanceReader = (*Reader)(nil)
)

type gameCatalog struct {
	cards     []*snapshots.Card
	byID      map[string]*snapshots.Card // lower-cased id
	byPartner map[int64]*snapshots.Card
	// byMarket maps each marketplace's product ids of the cards' printings
	// (MarketIDs) to the first card in catalog order that has it.
	byMarket map[string]map[int64]*snapshots.Card
	sets     []*snapshots.Set
	setByID  map[string]*snapshots.Set // lower-cased id
	setCards map[string][]*snapshots.Card
	listings []*snapshots.Listing
	base     []uint8 // by ordinal: the card's base printing
	// cardRows holds, per per-card bucket and card ordinal, the value in
	// market.bolt (nil: the card has no row there).
	cardRows [numCardBuckets][][]byte
}

// Open opens the snapshot in dir read-only. The caller verifies the manifest
// first (snapshots.Verify) and passes it in.
//
// A bbolt file shorter than its meta page says, or whose pages do not decode
// (damaged before its manifest was written, so the hashes match), is an
// ErrVerify error naming the file, not a panic or a fault: bbolt panics on
// such pages, and pages past the end of a memory-mapped file fault.
func Open(dir string, m *snapshots.Manifest) (*Reader, error) {
	return OpenMetered(dir, m, nil)
}

// OpenMetered is Open with the loading of the catalog paced by meter (a
// snapshot opened beside the live one): every card, set, row and listing
// decoded is a Tick. A nil meter is Open.
func OpenMetered(dir string, m *snapshots.Manifest, meter *snapshots.Meter) (_ *Reader, err error) {
	r := &Reader{dir: dir, manifest: m, games: map[string]*gameCatalog{}}
	var catalog *bbolt.DB
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			if catalog != nil {
				catalog.Close()
			}
			r.Close()
			err = fmt.Errorf("%w: %s: damaged bbolt file: %v", snapshots.ErrVerify, dir, v)
		}
	}()
	if catalog, err = openDB(filepath.Join(dir, CatalogFile)); err != nil {
		return nil, err
	}
	defer catalog.Close()
	if r.market, err = openDB(filepath.Join(dir, MarketFile)); err != nil {
		return nil, err
	}
	if r.aggs, err = openDB(filepath.Join(dir, AggregatesFile)); err != nil {
		r.market.Close()
		return nil, err
	}
	if r.marketTx, err = r.market.Begin(false); err != nil {
		r.Close()
		return nil, fmt.Errorf("open %s: %w", dir, err)
	}
	for _, game := range m.Games {
		g, err := loadGame(catalog, r.marketTx, game, meter)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("open %s: game %s: %w", dir, game, err)
		}
		r.games[game] = g
	}
	return r, nil
}

// openDB opens one bbolt file read-only and checks that the file holds all
// the pages its meta page counts.
func openDB(path string) (*bbolt.DB, error) {
	db, err := bbolt.Open(path, 0o444, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	var need int64
	db.View(func(tx *bbolt.Tx) error { need = tx.Size(); return nil })
	if need > fi.Size() {
		db.Close()
		return nil, fmt.Errorf("%w: %s: truncated: %d bytes, its pages need %d", snapshots.ErrVerify, path, fi.Size(), need)
	}
	return db, nil
}

func loadGame(catalog *bbolt.DB, market *bbolt.Tx, game string, meter *snapshots.Meter) (*gameCatalog, error) {
	g := &gameCatalog{
		byID:      map[string]*snapshots.Card{},
		byPartner: map[int64]*snapshots.Card{},
		byMarket:  map[string]map[int64]*snapshots.Card{snapshots.MarketIDTCGplayer: {}, snapshots.MarketIDCardmarket: {}},
		setByID:   map[string]*snapshots.Set{},
		setCards:  map[string][]*snapshots.Card{},
	}
	err := catalog.View(func(tx *bbolt.Tx) error {
		setsB, orderB := tx.Bucket([]byte("sets/"+game)), tx.Bucket([]byte("setorder/"+game))
		if setsB == nil || orderB == nil {
			return fmt.Errorf("no sets")
		}
		err := orderB.ForEach(func(_, id []byte) error {
			meter.Tick()
			var s snapshots.Set
			if err := json.Unmarshal(setsB.Get(id), &s); err != nil {
				return fmt.Errorf("decode set %s: %w", id, err)
			}
			g.sets = append(g.sets, &s)
			g.setByID[strings.ToLower(s.ID)] = &s
			return nil
		})
		if err != nil {
			return err
		}
		cardsB := tx.Bucket([]byte("cards/" + game))
		if cardsB == nil {
			return fmt.Errorf("no cards")
		}
		return cardsB.ForEach(func(k, v []byte) error {
			meter.Tick()
			c := new(snapshots.Card)
			if err := json.Unmarshal(v, c); err != nil {
				return fmt.Errorf("decode card %x: %w", k, err)
			}
			if int(c.Ordinal) != len(g.cards) {
				return fmt.Errorf("card %s has ordinal %d at position %d", c.ID, c.Ordinal, len(g.cards))
			}
			g.cards = append(g.cards, c)
			g.base = append(g.base, uint8(snapshots.BasePrinting(c)))
			g.byID[strings.ToLower(c.ID)] = c
			// Cards of two languages can share a product (the catalog
			// gives Traditional Chinese cards the ids of their Japanese
			// printing): the first in catalog order keeps it.
			if _, taken := g.byPartner[c.PartnerProductID]; c.PartnerProductID != 0 && !taken {
				g.byPartner[c.PartnerProductID] = c
			}
			for _, m := range c.MarketIDs {
				g.addMarketID(snapshots.MarketIDTCGplayer, m.TCGplayer, c)
				g.addMarketID(snapshots.MarketIDCardmarket, m.Cardmarket, c)
			}
			key := strings.ToLower(c.SetID)
			g.setCards[key] = append(g.setCards[key], c)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	for i, name := range cardBucketNames {
		if g.cardRows[i], err = cardRows(market, name+"/"+game, len(g.cards), meter); err != nil {
			return nil, err
		}
	}
	for ord, v := range g.cardRows[listingsBucket] {
		if v == nil {
			continue
		}
		meter.Tick()
		var ls []snapshots.Listing
		if err := json.Unmarshal(v, &ls); err != nil {
			return nil, fmt.Errorf("decode listings of card %d: %w", ord, err)
		}
		for i := range ls {
			g.listings = append(g.listings, &ls[i])
		}
	}
	sort.SliceStable(g.listings, func(i, j int) bool { return g.listings[i].AskCents < g.listings[j].AskCents })
	return g, nil
}

// cardRows indexes the values of one per-card bucket by card ordinal; a
// missing bucket is no rows.
func cardRows(tx *bbolt.Tx, bucket string, cards int, meter *snapshots.Meter) ([][]byte, error) {
	rows := make([][]byte, cards)
	b := tx.Bucket([]byte(bucket))
	if b == nil {
		return rows, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		meter.Tick()
		if len(k) != 4 || v == nil {
			return fmt.Errorf("%s: key %x is not a card ordinal", bucket, k)
		}
		ord := binary.BigEndian.Uint32(k)
		if int(ord) >= cards {
			return fmt.Errorf("%s: card ordinal %d of %d cards", bucket, ord, cards)
		}
		rows[ord] = v
		return nil
	})
	return rows, err
}

// Manifest implements snapshots.Reader.
func (r *Reader) Manifest() *snapshots.Manifest { return r.manifest }

// Dir implements snapshots.Reader.
func (r *Reader) Dir() string { return r.dir }

// Close implements snapshots.Reader.
func (r *Reader) Close() error {
	r.rowsMu.Lock()
	r.closed = true
	if r.marketTx != nil {
		r.marketTx.Rollback()
	}
	r.rowsMu.Unlock()
	var first error
	for _, db := range []*bbolt.DB{r.market, r.aggs} {
		if db != nil {
			if err := db.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

func (r *Reader) game(game string) (*gameCatalog, error) {
	g, ok := r.games[game]
	if !ok {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "unknown game %q; this snapshot has %s", game, strings.Join(r.manifest.Games, ", "))
	}
	return g, nil
}

// lookup finds id in m, whose keys are lower-cased ids: ASCII ids (every id
// of the shipped catalogs) are lower-cased on the stack, not allocated.
func lookup[V any](m map[string]V, id string) (V, bool) {
	var buf [128]byte
	if len(id) <= len(buf) {
		k := buf[:len(id)]
		ascii := true
		for i := 0; i < len(id); i++ {
			c := id[i]
			if c >= utf8.RuneSelf {
				ascii = false
				break
			}
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			k[i] = c
		}
		if ascii {
			v, ok := m[string(k)]
			return v, ok
		}
	}
	v, ok := m[strings.ToLower(id)]
	return v, ok
}

// Card implements snapshots.Reader.
func (r *Reader) Card(game, id string) (*snapshots.Card, error) {
	_, c, err := r.card(game, id)
	return c, err
}

// card finds a card and its game's catalog.
func (r *Reader) card(game, id string) (*gameCatalog, *snapshots.Card, error) {
	g, err := r.game(game)
	if err != nil {
		return nil, nil, err
	}
	c, ok := lookup(g.byID, id)
	if !ok {
		return nil, nil, apperr.Errorf(apperr.ENOTFOUND, "card %q not found in %s", id, game)
	}
	return g, c, nil
}

// CardByPartnerID implements snapshots.Reader.
func (r *Reader) CardByPartnerID(game string, productID int64) (*snapshots.Card, error) {
	g, err := r.game(game)
	if err != nil {
		return nil, err
	}
	c, ok := g.byPartner[productID]
	if !ok {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "no %s card has partner product id %d", game, productID)
	}
	return c, nil
}

// addMarketID files product id of market for c unless 0 or taken.
func (g *gameCatalog) addMarketID(market string, id int64, c *snapshots.Card) {
	if _, taken := g.byMarket[market][id]; id != 0 && !taken {
		g.byMarket[market][id] = c
	}
}

// CardByMarketID implements snapshots.Reader.
func (r *Reader) CardByMarketID(game, market string, id int64) (*snapshots.Card, error) {
	g, err := r.game(game)
	if err != nil {
		return nil, err
	}
	if c, ok := g.byPartner[id]; ok && market == snapshots.MarketIDTCGplayer {
		return c, nil
	}
	if c, ok := g.byMarket[market][id]; ok {
		return c, nil
	}
	return nil, apperr.Errorf(apperr.ENOTFOUND, "no %s card has %s product id %d", game, market, id)
}

// Cards implements snapshots.Reader.
func (r *Reader) Cards(game string) ([]*snapshots.Card, error) {
	g, err := r.game(game)
	if err != nil {
		return nil, err
	}
	return g.cards, nil
}

// Set implements snapshots.Reader.
func (r *Reader) Set(game, id string) (*snapshots.Set, error) {
	g, err := r.game(game)
	if err != nil {
		return nil, err
	}
	s, ok := lookup(g.setByID, id)
	if !ok {
		return nil, apperr.Errorf(apperr.ENOTFOUND, "set %q not found in %s", id, game)
	}
	return s, nil
}

// Sets implements snapshots.Reader.
func (r *Reader) Sets(game string) ([]*snapshots.Set, error) {
	g, err := r.game(game)
	if err != nil {
		return nil, err
	}
	return g.sets, nil
}

// SetCards implements snapshots.Reader.
func (r *Reader) SetCards(game, setID string) ([]*snapshots.Card, error) {
	s, err := r.Set(game, setID)
	if err != nil {
		return nil, err
	}
	return r.games[game].setCards[strings.ToLower(s.ID)], nil
}

// AllListings implements snapshots.Reader.
func (r *Reader) AllListings(game string) ([]*snapshots.Listing, error) {
	g, err := r.game(game)
	if err != nil {
		return nil, err
	}
	return g.listings, nil
}

// cardValue calls decode with the value of a card's row in bucket of
// market.bolt, or with nil when the card has no row. The value is valid only
// inside decode.
func (r *Reader) cardValue(bucket cardBucket, game, cardID string, decode func([]byte) error) error {
	g, c, err := r.card(game, cardID)
	if err != nil {
		return err
	}
	r.rowsMu.RLock()
	defer r.rowsMu.RUnlock()
	if r.closed {
		return fmt.Errorf("read %s of %s: %w", cardBucketNames[bucket], cardID, berrors.ErrDatabaseNotOpen)
	}
	if err := decode(g.cardRows[bucket][c.Ordinal]); err != nil {
		return fmt.Errorf("read %s of %s: %w", cardBucketNames[bucket], cardID, err)
	}
	return nil
}

// printingValue calls decode with the value of one printing's row of kind
// (pricesBucket, analyticsBucket or cumBucket): the base printing's from
// that bucket, another's from its per-printing bucket; nil when none.
func (r *Reader) printingValue(kind cardBucket, game, cardID string, finish int, decode func([]byte) error) error {
	g, c, err := r.card(game, cardID)
	if err != nil {
		return err
	}
	if finish < 0 || finish >= c.Printings() {
		return apperr.Errorf(apperr.EINVALID, "card %s has no printing %d; it has %d", c.ID, finish, c.Printings())
	}
	bucket := kind
	if finish != int(g.base[c.Ordinal]) {
		bucket = printingBucket[kind]
	}
	r.rowsMu.RLock()
	defer r.rowsMu.RUnlock()
	if r.closed {
		return fmt.Errorf("read %s of %s: %w", cardBucketNames[bucket], cardID, berrors.ErrDatabaseNotOpen)
	}
	v := g.cardRows[bucket][c.Ordinal]
	if bucket != kind && v != nil {
		var ok bool
		if v, ok, err = snapshots.PrintingPayload(v, uint8(finish)); err != nil {
			return fmt.Errorf("read %s of %s: %w", cardBucketNames[bucket], cardID, err)
		} else if !ok {
			v = nil
		}
	}
	if err := decode(v); err != nil {
		return fmt.Errorf("read %s of %s: %w", cardBucketNames[bucket], cardID, err)
	}
	return nil
}

// Printings implements snapshots.Reader.
func (r *Reader) Printings(game, cardID string) ([]snapshots.Printing, error) {
	_, card, err := r.card(game, cardID)
	if err != nil {
		return nil, err
	}
	var out []snapshots.Printing
	err = r.cardValue(printingsBucket, game, cardID, func(v []byte) (err error) {
		if v != nil {
			out, err = snapshots.DecodePrintings(v, card.Variants)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if out == nil { // no market rows: the printings alone
		base := snapshots.BasePrinting(card)
		out = make([]snapshots.Printing, card.Printings())
		for i := range out {
			out[i].Finish, out[i].Base = uint8(i), i == base
			if i < len(card.Variants) {
				out[i].Name = card.Variants[i]
			}
		}
	}
	return out, nil
}

// PrintingSeries implements snapshots.Reader.
func (r *Reader) PrintingSeries(game, cardID string, finish int) ([]snapshots.PriceSeries, error) {
	var out []snapshots.PriceSeries
	err := r.printingValue(pricesBucket, game, cardID, finish, func(v []byte) (err error) {
		if v != nil {
			out, err = snapshots.DecodeSeries(v)
		}
		return err
	})
	return out, err
}

// PrintingCum implements snapshots.Reader.
func (r *Reader) PrintingCum(game, cardID string, finish int) ([]snapshots.CumSeries, error) {
	var out []snapshots.CumSeries
	err := r.printingValue(cumBucket, game, cardID, finish, func(v []byte) (err error) {
		if v != nil {
			out, err = snapshots.DecodeCum(v)
		}
		return err
	})
	return out, err
}

// PrintingAnalytics implements snapshots.Reader.
func (r *Reader) PrintingAnalytics(game, cardID string, finish int) ([]snapshots.CardAnalytics, error) {
	var out []snapshots.CardAnalytics
	err := r.printingValue(analyticsBucket, game, cardID, finish, func(v []byte) (err error) {
		if v != nil {
			out, err = snapshots.DecodeAnalytics(v)
		}
		return err
	})
	return out, err
}

// PrintingAnalyticsWindow implements snapshots.Reader.
func (r *Reader) PrintingAnalyticsWindow(game, cardID string, finish int, window string, buf []snapshots.AnalyticsEntry) (w snapshots.WindowAnalytics, ok bool, err error) {
	err = r.printingValue(analyticsBucket, game, cardID, finish, func(v []byte) (err error) {
		if v != nil {
			w, ok, err = snapshots.DecodeAnalyticsWindow(v, window, buf)
		}
		return err
	})
	return w, ok && err == nil, err
}

// ScanPrintings implements snapshots.Reader.
func (r *Reader) ScanPrintings(game string, fn func(c *snapshots.Card, finish int, cum []snapshots.CumSeries, series []snapshots.PriceSeries) error) error {
	g, err := r.game(game)
	if err != nil {
		return err
	}
	for _, c := range g.cards {
		for f := 0; f < c.Printings(); f++ {
			var cum []snapshots.CumSeries
			var series []snapshots.PriceSeries
			if cum, err = r.PrintingCum(game, c.ID, f); err == nil {
				series, err = r.PrintingSeries(game, c.ID, f)
			}
			if err != nil {
				return fmt.Errorf("scan printings of %s: %w", c.ID, err)
			}
			if err := fn(c, f, cum, series); err != nil {
				return err
			}
		}
	}
	return nil
}

// TrendingRows implements snapshots.Reader.
func (r *Reader) TrendingRows(game, metric, window, language string) ([]snapshots.TrendingRow, error) {
	g, err := r.game(game)
	if err != nil {
		return nil, err
	}
	var keep func(*snapshots.TrendingRow) bool
	if language != "all" {
		keep = func(row *snapshots.TrendingRow) bool {
			return int(row.Ordinal) < len(g.cards) && g.cards[row.Ordinal].Language == language
		}
	}
	var out []snapshots.TrendingRow
	err = r.aggs.View(func(tx *bbolt.Tx) error {
		var v []byte
		if b := tx.Bucket([]byte("trendrows/" + game)); b != nil {
			v = b.Get(TrendingKey(metric, window, "all"))
		}
		if v == nil || (language != "all" && !snapshots.IsLanguage(language)) {
			return apperr.Errorf(apperr.ENOTFOUND, "no trending ranking for metric %q, window %q, language %q", metric, window, language)
		}
		var err error
		out, err = snapshots.DecodeTrendingRows(nil, v, keep)
		return err
	})
	return out, err
}

// CardSources implements snapshots.ProvenanceReader.
func (r *Reader) CardSources(game, cardID string) (*snapshots.CardSources, error) {
	var out *snapshots.CardSources
	err := r.cardValue(sourcesBucket, game, cardID, func(v []byte) (err error) {
		if v != nil {
			out, err = snapshots.DecodeCardSources(v)
		}
		return err
	})
	return out, err
}

// Sales implements snapshots.Reader.
func (r *Reader) Sales(game, cardID string) ([]snapshots.Sale, error) {
	var out []snapshots.Sale
	err := r.cardValue(salesBucket, game, cardID, func(v []byte) (err error) {
		if v != nil {
			out, err = snapshots.DecodeSales(make([]snapshots.Sale, 0, len(v)/26), v)
		}
		return err
	})
	return out, err
}

// PriceSeries implements snapshots.Reader.
func (r *Reader) PriceSeries(game, cardID string) ([]snapshots.PriceSeries, error) {
	var out []snapshots.PriceSeries
	err := r.cardValue(pricesBucket, game, cardID, func(v []byte) (err error) {
		if v != nil {
			out, err = snapshots.DecodeSeries(v)
		}
		return err
	})
	return out, err
}

// Analytics implements snapshots.Reader.
func (r *Reader) Analytics(game, cardID string) ([]snapshots.CardAnalytics, error) {
	var out []snapshots.CardAnalytics
	err := r.cardValue(analyticsBucket, game, cardID, func(v []byte) (err error) {
		if v != nil {
			out, err = snapshots.DecodeAnalytics(v)
		}
		return err
	})
	return out, err
}

// AnalyticsWindow implements snapshots.Reader.
func (r *Reader) AnalyticsWindow(game, cardID, window string, buf []snapshots.AnalyticsEntry) (w snapshots.WindowAnalytics, ok bool, err error) {
	err = r.cardValue(analyticsBucket, game, cardID, func(v []byte) (err error) {
		if v != nil {
			w, ok, err = snapshots.DecodeAnalyticsWindow(v, window, buf)
		}
		return err
	})
	return w, ok && err == nil, err
}

// Listings implements snapshots.Reader.
func (r *Reader) Listings(game, cardID string) ([]snapshots.Listing, error) {
	var out []snapshots.Listing
	err := r.cardValue(listingsBucket, game, cardID, func(v []byte) error {
		if v == nil {
			return nil
		}
		return json.Unmarshal(v, &out)
	})
	return out, err
}

// Trending implements snapshots.Reader.
func (r *Reader) Trending(game, metric, window, language string) ([]snapshots.TrendingEntry, error) {
	if _, err := r.game(game); err != nil {
		return nil, err
	}
	var out []snapshots.TrendingEntry
	err := r.aggs.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("trending/" + game))
		if b == nil {
			return nil
		}
		v := b.Get(TrendingKey(metric, window, language))
		if v == nil {
			return apperr.Errorf(apperr.ENOTFOUND, "no trending ranking for metric %q, window %q, language %q", metric, window, language)
		}
		var err error
		out, err = snapshots.DecodeTrending(v)
		return err
	})
	return out, err
}

// SetAggregates implements snapshots.Reader.
func (r *Reader) SetAggregates(game, setID string) (*snapshots.SetAggregates, error) {
	s, err := r.Set(game, setID)
	if err != nil {
		return nil, err
	}
	agg := &snapshots.SetAggregates{SetID: s.ID}
	err = r.aggs.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("setagg/" + game))
		if b == nil {
			return nil
		}
		if v := b.Get([]byte(s.ID)); v != nil {
			return json.Unmarshal(v, agg)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read set aggregates of %s: %w", s.ID, err)
	}
	return agg, nil
}

// SetDaily implements snapshots.Reader.
func (r *Reader) SetDaily(game, setID string) ([]snapshots.DailyStat, error) {
	s, err := r.Set(game, setID)
	if err != nil {
		return nil, err
	}
	var out []snapshots.DailyStat
	err = r.aggs.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte("setdaily/" + game))
		if b == nil {
			return nil
		}
		if v := b.Get([]byte(s.ID)); v != nil {
			var err error
			out, err = snapshots.DecodeDaily(v)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read set daily of %s: %w", s.ID, err)
	}
	return out, nil
}

// Cum implements snapshots.Reader.
func (r *Reader) Cum(game, cardID string) ([]snapshots.CumSeries, error) {
	var out []snapshots.CumSeries
	err := r.cardValue(cumBucket, game, cardID, func(v []byte) (err error) {
		if v != nil {
			out, err = snapshots.DecodeCum(v)
		}
		return err
	})
	return out, err
}

// ScanMarket calls fn for every card of game in ordinal order with its
// cumulative series and price series (nil when the card has none). The
// slices are freshly decoded and owned by fn.
func (r *Reader) ScanMarket(game string, fn func(c *snapshots.Card, cum []snapshots.CumSeries, series []snapshots.PriceSeries) error) error {
	g, err := r.game(game)
	if err != nil {
		return err
	}
	for _, c := range g.cards {
		cum, series, err := r.marketRows(g, c)
		if err != nil {
			return fmt.Errorf("scan market of %s: %w", c.ID, err)
		}
		if err := fn(c, cum, series); err != nil {
			return err
		}
	}
	return nil
}

// marketRows decodes a card's cumulative and price series (nil when none),
// under rowsMu (not held while ScanMarket's fn runs: fn may read too).
func (r *Reader) marketRows(g *gameCatalog, c *snapshots.Card) (cum []snapshots.CumSeries, series []snapshots.PriceSeries, err error) {
	r.rowsMu.RLock()
	defer r.rowsMu.RUnlock()
	if r.closed {
		return nil, nil, berrors.ErrDatabaseNotOpen
	}
	if v := g.cardRows[cumBucket][c.Ordinal]; v != nil {
		if cum, err = snapshots.DecodeCum(v); err != nil {
			return nil, nil, err
		}
	}
	if v := g.cardRows[pricesBucket][c.Ordinal]; v != nil {
		if series, err = snapshots.DecodeSeries(v); err != nil {
			return nil, nil, err
		}
	}
	return cum, series, nil
}
