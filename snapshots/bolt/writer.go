package bolt

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"path/filepath"

	"github.com/cardedge/cardedge/snapshots"
	"go.etcd.io/bbolt"
)

// File names inside a snapshot directory.
const (
	CatalogFile    = "catalog.bolt"
	MarketFile     = "market.bolt"
	AggregatesFile = "aggregates.bolt"
)

// commitEvery bounds the dirty pages a write transaction holds.
const commitEvery = 4 << 20

// Writer writes the bbolt files of a new snapshot. Records are buffered per
// file and committed in large transactions. It is not safe for concurrent use.
type Writer struct {
	dir    string
	files  map[string]*fileWriter
	digest hash.Hash
}

type fileWriter struct {
	db      *bbolt.DB
	tx      *bbolt.Tx
	pending int
}

// Create creates the bbolt files in dir, which must exist and be empty of them.
func Create(dir string) (*Writer, error) {
	w := &Writer{dir: dir, files: map[string]*fileWriter{}, digest: sha256.New()}
	for _, name := range []string{CatalogFile, MarketFile, AggregatesFile} {
		path := filepath.Join(dir, name)
		db, err := bbolt.Open(path, 0o644, &bbolt.Options{NoSync: true, NoFreelistSync: true, NoGrowSync: true})
		if err != nil {
			w.abort()
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		w.files[name] = &fileWriter{db: db}
	}
	return w, nil
}

func (w *Writer) abort() {
	for _, f := range w.files {
		if f.tx != nil {
			f.tx.Rollback()
		}
		f.db.Close()
	}
}

// put writes one record and feeds it to the content digest.
func (w *Writer) put(file, bucket string, key, value []byte) error {
	f := w.files[file]
	if f.tx == nil {
		tx, err := f.db.Begin(true)
		if err != nil {
			return fmt.Errorf("begin %s: %w", file, err)
		}
		f.tx = tx
	}
	b := f.tx.Bucket([]byte(bucket))
	if b == nil {
		var err error
		if b, err = f.tx.CreateBucket([]byte(bucket)); err != nil {
			return fmt.Errorf("create bucket %s in %s: %w", bucket, file, err)
		}
	}
	b.FillPercent = 1.0 // keys arrive mostly in order
	if err := b.Put(key, value); err != nil {
		return fmt.Errorf("put %s/%x in %s: %w", bucket, key, file, err)
	}
	var n [4]byte
	for _, part := range [][]byte{[]byte(file), []byte(bucket), key, value} {
		binary.LittleEndian.PutUint32(n[:], uint32(len(part)))
		w.digest.Write(n[:])
		w.digest.Write(part)
	}
	f.pending += len(key) + len(value)
	if f.pending >= commitEvery {
		if err := f.tx.Commit(); err != nil {
			return fmt.Errorf("commit %s: %w", file, err)
		}
		f.tx, f.pending = nil, 0
	}
	return nil
}

func (w *Writer) putJSON(file, bucket string, key []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s/%s: %w", bucket, key, err)
	}
	return w.put(file, bucket, key, b)
}

// OrdinalKey is the key of a card's rows: its ordinal, big-endian.
func OrdinalKey(ord uint32) []byte {
	var k [4]byte
	binary.BigEndian.PutUint32(k[:], ord)
	return k[:]
}

// TrendingKey is the key of a trending ranking.
func TrendingKey(metric, window, language string) []byte {
	return []byte(metric + "|" + window + "|" + language)
}

// PutSets writes a game's sets in catalog order.
func (w *Writer) PutSets(game string, sets []*snapshots.Set) error {
	for i, s := range sets {
		if err := w.putJSON(CatalogFile, "sets/"+game, []byte(s.ID), s); err != nil {
			return err
		}
		if err := w.put(CatalogFile, "setorder/"+game, OrdinalKey(uint32(i)), []byte(s.ID)); err != nil {
			return err
		}
	}
	return nil
}

// PutCard writes one card; cards must arrive with Ordinal 0, 1, 2, ...
func (w *Writer) PutCard(c *snapshots.Card) error {
	return w.putJSON(CatalogFile, "cards/"+c.Game, OrdinalKey(c.Ordinal), c)
}

// CardMarket is everything the market file holds for one card.
type CardMarket struct {
	Sales     []snapshots.Sale          // every printing
	Series    []snapshots.PriceSeries   // the base printing's
	Analytics []snapshots.CardAnalytics // the base printing's
	Listings  []snapshots.Listing       // every printing
	Cum       []snapshots.CumSeries     // the base printing's
	// Printings are the card's printings with their summaries (nil: none
	// written).
	Printings []snapshots.Printing
	// Others are the rows of the card's other printings.
	Others []PrintingMarket
	// Sources is the provenance of the card's numbers in a snapshot built
	// from real sources (nil: none written).
	Sources *snapshots.CardSources
}

// PrintingMarket is the rows of one printing other than the base printing.
type PrintingMarket struct {
	Finish    uint8
	Series    []snapshots.PriceSeries
	Analytics []snapshots.CardAnalytics
	Cum       []snapshots.CumSeries
}

// PutCardMarket writes one card's market rows. Empty parts are not written.
func (w *Writer) PutCardMarket(game string, ord uint32, m *CardMarket) error {
	key := OrdinalKey(ord)
	if len(m.Sales) > 0 {
		if err := w.put(MarketFile, "sales/"+game, key, snapshots.EncodeSales(nil, m.Sales)); err != nil {
			return err
		}
	}
	if len(m.Series) > 0 {
		if err := w.put(MarketFile, "prices/"+game, key, snapshots.EncodeSeries(nil, m.Series)); err != nil {
			return err
		}
	}
	if len(m.Analytics) > 0 {
		v, err := snapshots.EncodeAnalytics(nil, m.Analytics)
		if err != nil {
			return fmt.Errorf("card %d: %w", ord, err)
		}
		if err := w.put(MarketFile, "analytics/"+game, key, v); err != nil {
			return err
		}
	}
	if len(m.Listings) > 0 {
		if err := w.putJSON(MarketFile, "listings/"+game, key, m.Listings); err != nil {
			return err
		}
	}
	if len(m.Cum) > 0 {
		if err := w.put(MarketFile, "cum/"+game, key, snapshots.EncodeCum(nil, m.Cum)); err != nil {
			return err
		}
	}
	var series, analytics, cum []byte
	for _, o := range m.Others {
		if len(o.Series) > 0 {
			series = snapshots.AppendPrinting(series, o.Finish, snapshots.EncodeSeries(nil, o.Series))
		}
		if len(o.Cum) > 0 {
			cum = snapshots.AppendPrinting(cum, o.Finish, snapshots.EncodeCum(nil, o.Cum))
		}
		if len(o.Analytics) > 0 {
			v, err := snapshots.EncodeAnalytics(nil, o.Analytics)
			if err != nil {
				return fmt.Errorf("card %d, printing %d: %w", ord, o.Finish, err)
			}
			analytics = snapshots.AppendPrinting(analytics, o.Finish, v)
		}
	}
	for _, x := range []struct {
		bucket string
		v      []byte
	}{{"fprices/", series}, {"fanalytics/", analytics}, {"fcum/", cum}} {
		if len(x.v) > 0 {
			if err := w.put(MarketFile, x.bucket+game, key, x.v); err != nil {
				return err
			}
		}
	}
	if m.Sources != nil {
		v, err := snapshots.EncodeCardSources(nil, m.Sources)
		if err != nil {
			return fmt.Errorf("card %d: %w", ord, err)
		}
		if err := w.put(MarketFile, "sources/"+game, key, v); err != nil {
			return err
		}
	}
	if len(m.Printings) > 0 {
		v, err := snapshots.EncodePrintings(nil, m.Printings)
		if err != nil {
			return fmt.Errorf("card %d: %w", ord, err)
		}
		if err := w.put(MarketFile, "printings/"+game, key, v); err != nil {
			return err
		}
	}
	return nil
}

// PutTrending writes one trending ranking.
func (w *Writer) PutTrending(game, metric, window, language string, entries []snapshots.TrendingEntry) error {
	return w.put(AggregatesFile, "trending/"+game, TrendingKey(metric, window, language), snapshots.EncodeTrending(nil, entries))
}

// PutTrendingRows writes one ranking of every printing (language all).
func (w *Writer) PutTrendingRows(game, metric, window string, rows []snapshots.TrendingRow) error {
	return w.put(AggregatesFile, "trendrows/"+game, TrendingKey(metric, window, "all"), snapshots.EncodeTrendingRows(nil, rows))
}

// PutSetAggregates writes a set's aggregates and daily series.
func (w *Writer) PutSetAggregates(game string, agg *snapshots.SetAggregates, daily []snapshots.DailyStat) error {
	if err := w.putJSON(AggregatesFile, "setagg/"+game, []byte(agg.SetID), agg); err != nil {
		return err
	}
	return w.put(AggregatesFile, "setdaily/"+game, []byte(agg.SetID), snapshots.EncodeDaily(nil, daily))
}

// Close commits, fsyncs and closes every file and returns the content digest:
// the hex SHA-256 over every record in write order (independent of bbolt's
// page layout).
func (w *Writer) Close() (string, error) {
	var first error
	for name, f := range w.files {
		if f.tx != nil {
			if err := f.tx.Commit(); err != nil && first == nil {
				first = fmt.Errorf("commit %s: %w", name, err)
			}
			f.tx = nil
		}
		if err := f.db.Sync(); err != nil && first == nil {
			first = fmt.Errorf("sync %s: %w", name, err)
		}
		if err := f.db.Close(); err != nil && first == nil {
			first = fmt.Errorf("close %s: %w", name, err)
		}
	}
	if first != nil {
		return "", first
	}
	return hex.EncodeToString(w.digest.Sum(nil)), nil
}

// Abort closes the files without committing pending records.
func (w *Writer) Abort() { w.abort() }
