package builder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/bulk"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/bolt"
	"github.com/cardedge/cardedge/snapshots/gold"
)

// Options configure one build. The zero value of each field is documented.
type Options struct {
	// Out is the snapshots root: the build writes Out/<id>/ and Out/CURRENT.
	Out string
	// Preset is tiny, default or large ("" = default). With MarketDir it only
	// selects the catalog (tiny subset, whole, or expanded).
	Preset string
	// Seed makes synthesis deterministic (0 is a valid seed).
	Seed int64
	// CatalogDir holds sets.jsonl(.gz) and cards.jsonl(.gz).
	CatalogDir string
	// PokemonTCGData, when set, is a local clone of pokemon-tcg-data whose
	// card text (rules, ability and attack text, flavor text, ancient
	// trait, evolvesTo) the English Pokémon cards take (see ReadTCGData);
	// "" builds without card text.
	PokemonTCGData string
	// MarketDir, when set, holds market feeds (sales.jsonl, prices.jsonl,
	// listings.jsonl) compiled instead of synthesized data.
	MarketDir string
	// AsOf is the snapshot's "today". Zero: yesterday (UTC) of Now for
	// synthesized data, the latest sale date for market feeds.
	AsOf snapshots.Day
	// Keep is how many snapshots to keep in Out (< 1 = 3).
	Keep int
	// SnapshotID names the snapshot ("" = UTC build time, e.g. 20261121T235900Z).
	SnapshotID string
	// Progress receives stage and progress lines; nil is quiet.
	Progress io.Writer
	// Workers computing cards in parallel (< 1 = GOMAXPROCS).
	Workers int
	// Now is the clock (nil = time.Now).
	Now func() time.Time
	// Hooks, for tests that kill or fail a build at a stage: called at the
	// start of each stage with its name; an error aborts the build.
	StageHook func(stage string) error

	// Sources, when set, are the real market sources the build reads
	// (cardbuild build --source name=LOCATION[,key=value]) instead of
	// synthesizing market data; MarketDir must then be empty. See
	// sources.go for how their numbers land in the snapshot. A History
	// without Sources builds from the store's days alone.
	Sources []source.Input
	// History is the history store (a directory or s3://BUCKET/PREFIX):
	// each source's day is filed there and the snapshot's history is read
	// back from it. "" keeps none: the snapshot has the days read now.
	History string
	// HistoryDays is how many days, ending at as_of, of the history the
	// snapshot holds (< 1 = 730).
	HistoryDays int
	// ReplaceDay lets a day already filed with other content be replaced
	// (else that day's input is refused and the filed day serves).
	ReplaceDay bool
	// Rates is the ECB's eurofxref-hist.csv (a file or URL), which converts
	// the sources' non-USD amounts ("" = none: a source in EUR then gives
	// no numbers, and its report says why).
	Rates string
	// Fetcher reads the sources' and the rates' locations (nil:
	// source.NewFetcher(Version, Contact, "")).
	Fetcher *source.Fetcher
	// Version and Contact make the default Fetcher's User-Agent.
	Version, Contact string
	// ReportDir receives each source's report of the day it read,
	// <source>-<day>.csv ("" = none).
	ReportDir string
	// SyntheticFill gives the cards no source had synthesized market data,
	// flagged row by row (snapshots.SaleSynthetic).
	SyntheticFill bool
	// OnReport receives each source's report of the day it read; OnRefused
	// each refused input (nil: none).
	OnReport  func(*source.Report)
	OnRefused func(source string, err error)
}

// Compile builds a snapshot and publishes it: everything is written into
// Out/<id>.tmp/, fsynced and renamed to Out/<id>/, and only then is CURRENT
// replaced (atomically). A failed or killed build leaves the live snapshot
// as it was. It returns the manifest of the new snapshot.
func Compile(ctx context.Context, opts Options) (*snapshots.Manifest, error) {
	b, err := newBuild(opts)
	if err != nil {
		return nil, err
	}
	m, err := b.run(ctx)
	if err != nil {
		if b.tmp != "" {
			os.RemoveAll(b.tmp)
		}
		return nil, err
	}
	return m, nil
}

type build struct {
	opts     Options
	started  time.Time
	progress *progress
	tmp      string
}

func newBuild(opts Options) (*build, error) {
	if opts.Out == "" {
		return nil, errors.New("build: no output directory")
	}
	if opts.Preset == "" {
		opts.Preset = "default"
	}
	if opts.Keep < 1 {
		opts.Keep = 3
	}
	if opts.Workers < 1 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.StageHook == nil {
		opts.StageHook = func(string) error { return nil }
	}
	return &build{opts: opts, started: opts.Now(), progress: newProgress(opts.Progress)}, nil
}

func (b *build) stage(name string) error {
	b.progress.stage(name)
	return b.opts.StageHook(name)
}

func (b *build) run(ctx context.Context) (*snapshots.Manifest, error) {
	opts := b.opts
	if err := b.stage("catalog"); err != nil {
		return nil, err
	}
	preset, err := synth.PresetByName(opts.Preset)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	cat, err := ReadCatalog(opts.CatalogDir)
	if err != nil {
		return nil, fmt.Errorf("build: catalog: %w", err)
	}
	if opts.PokemonTCGData != "" {
		data, err := ReadTCGData(opts.PokemonTCGData)
		if err != nil {
			return nil, fmt.Errorf("build: catalog: %w", err)
		}
		joined := data.Join(cat.Cards)
		cat.Digests["pokemon-tcg-data"] = data.Digest
		b.progress.note(fmt.Sprintf("catalog: card text of %d catalog cards from pokemon-tcg-data (%d cards in %s)", joined, len(data.Cards), opts.PokemonTCGData))
	}
	cards, sets := preset.Catalog(opts.Seed, cat.Cards, cat.Sets)
	ShortenSetIDs(sets, cards)
	inputs := map[string]string{}
	for k, v := range cat.Digests {
		inputs["catalog/"+k] = v
	}

	// Ordinals first: the sources' matching orders cards by them.
	ordinals := map[string]uint32{}
	for _, c := range cards {
		c.Ordinal = ordinals[c.Game]
		ordinals[c.Game]++
	}

	var market MarketSource
	asOf := opts.AsOf
	marketSource := snapshots.MarketSynthetic
	var statuses []snapshots.MarketSourceStatus
	fromSources := len(opts.Sources) > 0 || opts.History != ""
	if fromSources && opts.MarketDir != "" {
		return nil, errors.New("build: give market feeds (--market) or sources (--source, --history), not both")
	}
	if fromSources {
		res, err := b.loadSources(ctx, cards, sets, preset)
		if err != nil {
			return nil, fmt.Errorf("build: sources: %w", err)
		}
		for k, v := range res.inputs {
			inputs[k] = v
		}
		asOf, market, marketSource, statuses = res.asOf, res.market, snapshots.MarketSources, res.statuses
	} else if opts.MarketDir != "" {
		if err := b.stage("market-feeds"); err != nil {
			return nil, err
		}
		feed, latest, digests, err := readMarketFeeds(opts.MarketDir, cards)
		if err != nil {
			return nil, fmt.Errorf("build: market feeds: %w", err)
		}
		for k, v := range digests {
			inputs["market/"+k] = v
		}
		if asOf == 0 {
			asOf = latest
		}
		market, marketSource = feed, snapshots.MarketFeed
	} else {
		if asOf == 0 {
			asOf = snapshots.DayOf(opts.Now()) - 1
		}
		market = synthSource{gen: synth.New(preset, opts.Seed, asOf).WithCatalog(cards, sets)}
	}
	id := opts.SnapshotID
	if id == "" {
		id = b.started.UTC().Format("20060102T150405Z")
	}
	if !snapshots.ValidID(id) {
		return nil, fmt.Errorf("build: invalid snapshot id %q", id)
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	if _, err := os.Stat(filepath.Join(opts.Out, id)); err == nil {
		return nil, fmt.Errorf("build: snapshot %s already exists in %s", id, opts.Out)
	}
	b.tmp = filepath.Join(opts.Out, id+".tmp")
	if err := os.RemoveAll(b.tmp); err != nil {
		return nil, fmt.Errorf("build: clear %s: %w", b.tmp, err)
	}
	if err := os.Mkdir(b.tmp, 0o755); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}

	w, err := bolt.Create(b.tmp)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	gw, err := gold.Create(filepath.Join(b.tmp, "gold.sqlite"))
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("build: %w", err)
	}
	// The gold tables are written by their own goroutine, beside the card
	// computation and the bbolt writes: SQLite is the slowest sink.
	gs := startGoldSink(gw)
	counts := map[string]int64{}
	byGame := map[string][]*snapshots.Card{}
	setsByGame := map[string][]*snapshots.Set{}
	for _, s := range sets {
		setsByGame[s.Game] = append(setsByGame[s.Game], s)
	}
	for _, c := range cards {
		byGame[c.Game] = append(byGame[c.Game], c)
	}
	var games []string
	for gi, game := range Games {
		if len(byGame[game]) == 0 {
			continue
		}
		games = append(games, game)
		for i, c := range byGame[game] {
			c.Ordinal = uint32(i)
			c.PartnerProductID = c.TCGplayerProductID()
		}
		if err := b.stage("market:" + game); err != nil {
			w.Abort()
			gs.abort()
			return nil, err
		}
		if err := b.compileGame(ctx, gi, game, setsByGame[game], byGame[game], market, asOf, w, gs, counts); err != nil {
			w.Abort()
			gs.abort()
			return nil, fmt.Errorf("build: %s: %w", game, err)
		}
	}
	if len(games) == 0 {
		w.Abort()
		gs.abort()
		return nil, errors.New("build: the catalog has no cards")
	}
	digest, err := w.Close()
	if err != nil {
		gs.abort()
		return nil, fmt.Errorf("build: %w", err)
	}
	// The bulk files are written from the finished bbolt files, alone (on
	// every worker), before Bleve: a disk that fills up while Bleve
	// persists its segments is only seen when its persister gives up, where
	// a full disk under the bulk files fails the build at once with the
	// file's name.
	if err := b.stage("bulk"); err != nil {
		gs.abort()
		return nil, err
	}
	if err := b.writeBulk(ctx, games, asOf, marketSource); err != nil {
		gs.abort()
		return nil, fmt.Errorf("build: bulk files: %w", err)
	}
	if err := b.stage("index"); err != nil {
		gs.abort()
		return nil, err
	}
	// The gold tables finish (rows, then their indexes) while Bleve builds.
	goldDone := make(chan error, 1)
	go func() { goldDone <- gs.finish() }()
	var allSets []*snapshots.Set
	var allCards []*snapshots.Card
	for _, g := range games {
		allSets = append(allSets, setsByGame[g]...)
		allCards = append(allCards, byGame[g]...)
	}
	ixOpts := index.BuildOptions{Progress: func(done, total int) { b.progress.rows("index", done, total) }}
	if len(allCards) > largeCatalog {
		ixOpts.BatchSize = 10_000
	}
	err = index.Build(ctx, b.tmp, allSets, allCards, ixOpts)
	if gerr := <-goldDone; gerr != nil {
		return nil, fmt.Errorf("build: gold tables: %w", gerr)
	}
	if err != nil {
		return nil, fmt.Errorf("build: index: %w", err)
	}

	if err := b.stage("manifest"); err != nil {
		return nil, err
	}
	files, err := snapshots.HashFiles(b.tmp)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	counts["sets"], counts["cards"] = int64(len(allSets)), int64(len(allCards))
	m := &snapshots.Manifest{
		SnapshotID: id, FormatVersion: snapshots.FormatVersion, AsOf: asOf.String(), Games: games,
		Preset: opts.Preset, Seed: opts.Seed, MarketSource: marketSource, Sources: statuses, SyntheticFill: fromSources && opts.SyntheticFill, Counts: counts,
		BuiltAt: b.started.UTC().Format(time.RFC3339), InputDigests: inputs, Files: files, ContentDigest: digest,
	}
	m.BuildSeconds = math.Round(opts.Now().Sub(b.started).Seconds()*1000) / 1000
	if err := snapshots.WriteManifest(b.tmp, m); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	if err := b.stage("publish"); err != nil {
		return nil, err
	}
	if err := snapshots.SyncTree(b.tmp); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	final := filepath.Join(opts.Out, id)
	if err := os.Rename(b.tmp, final); err != nil {
		return nil, fmt.Errorf("build: publish: %w", err)
	}
	b.tmp = ""
	err = snapshots.SyncDir(opts.Out)
	if err == nil {
		err = snapshots.Publish(opts.Out, id)
	}
	if err != nil {
		// A complete snapshot that never became CURRENT (the disk filled up
		// writing CURRENT, say) is removed: a failed build leaves nothing.
		// If CURRENT does name it (only the final directory fsync failed),
		// it is live and stays.
		if cur, cerr := snapshots.ReadCurrent(opts.Out); (cerr == nil && cur != id) || errors.Is(cerr, snapshots.ErrNoCurrent) {
			os.RemoveAll(final)
		}
		return nil, fmt.Errorf("build: %w", err)
	}
	removed, err := snapshots.Prune(opts.Out, opts.Keep)
	if err != nil {
		return nil, fmt.Errorf("build: published %s but pruning failed: %w", id, err)
	}
	b.progress.done(id, removed, opts.Now().Sub(b.started))
	return m, nil
}

// writeBulk writes the bulk files (package bulk) into the snapshot's bulk/
// directory from its finished bbolt files, read back as the edge reads
// them: cardbuild bulk writes the same bytes from the published snapshot.
func (b *build) writeBulk(ctx context.Context, games []string, asOf snapshots.Day, marketSource string) error {
	m := &snapshots.Manifest{FormatVersion: snapshots.FormatVersion, AsOf: asOf.String(), Games: games, MarketSource: marketSource}
	r, err := bolt.Open(b.tmp, m)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = bulk.Write(ctx, r, filepath.Join(b.tmp, bulk.Dir), bulk.Options{Workers: b.opts.Workers})
	return err
}

// largeCatalog is the catalog size above which the index is built in
// smaller batches, to bound the build's peak memory.
const largeCatalog = 100_000

// chunk is a run of consecutive cards computed by one worker.
type chunk struct {
	start   int
	results []*cardResult
}

// compileGame computes every card of one game in parallel (in chunks, written
// in ordinal order), then writes the catalog rows and the game's aggregates.
func (b *build) compileGame(ctx context.Context, gameIndex int, game string, sets []*snapshots.Set, cards []*snapshots.Card,
	source MarketSource, asOf snapshots.Day, w *bolt.Writer, gs *goldSink, counts map[string]int64) error {
	setByID := map[string]*snapshots.Set{}
	for _, s := range sets {
		setByID[s.ID] = s
	}
	const chunkSize = 256
	nChunks := (len(cards) + chunkSize - 1) / chunkSize
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Workers take chunk numbers in order; each chunk's result goes to its
	// own channel so the writer can consume them in order.
	jobs := make(chan int)
	ahead := make(chan struct{}, 2*b.opts.Workers) // chunks computed but not yet written
	outs := make([]chan chunk, nChunks)
	for i := range outs {
		outs[i] = make(chan chunk, 1)
	}
	var wg sync.WaitGroup
	for range b.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ci := range jobs {
				start := ci * chunkSize
				end := min(start+chunkSize, len(cards))
				ch := chunk{start: start}
				for _, c := range cards[start:end] {
					m := source.CardMarket(gameIndex, c, setByID[c.SetID])
					ch.results = append(ch.results, analyzeCard(c, m, asOf))
				}
				outs[ci] <- ch
			}
		}()
	}
	go func() {
		defer close(jobs)
		for ci := range nChunks {
			// Stay at most a few chunks ahead of the writer to bound memory.
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- ci:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer wg.Wait()

	agg := newGameAggregates(game, sets, len(cards), asOf)
	for _, s := range sets {
		set := *s // the aggregates below update the catalog's copy
		if err := gs.send(func(gw *gold.Writer) error { return gw.AddSet(&set) }); err != nil {
			return err
		}
	}
	for ci := range nChunks {
		var ch chunk
		select {
		case ch = <-outs[ci]:
			<-ahead
		case <-ctx.Done():
			return ctx.Err()
		}
		for _, r := range ch.results {
			c := r.card
			base := &r.printings[r.base]
			cm := &bolt.CardMarket{Sales: r.sales, Series: base.series, Analytics: base.analytics, Listings: r.listings,
				Cum: base.cum, Printings: r.summaries, Sources: r.sources}
			for f := range r.printings {
				if p := &r.printings[f]; f != r.base {
					cm.Others = append(cm.Others, bolt.PrintingMarket{Finish: uint8(f), Series: p.series, Analytics: p.analytics, Cum: p.cum})
				}
			}
			if err := w.PutCardMarket(game, c.Ordinal, cm); err != nil {
				return err
			}
			// The gold tables keep their shape: the base printing's series
			// and analytics (every sale carries its finish).
			card := *c
			if err := gs.send(func(gw *gold.Writer) error {
				return gw.AddCard(&card, r.sales, base.series, r.listings, base.analytics)
			}); err != nil {
				return err
			}
			agg.add(r)
			counts["sales"] += int64(len(r.sales))
			counts["listings"] += int64(len(r.listings))
			for _, p := range r.printings {
				for _, s := range p.series {
					counts["price_points"] += int64(len(s.Points))
				}
			}
		}
		b.progress.rows("cards "+game, ch.start+len(ch.results), len(cards))
	}
	for _, c := range cards {
		if err := w.PutCard(c); err != nil {
			return err
		}
	}
	return agg.write(w)
}

// gameAggregates accumulates a game's rankings and set aggregates.
type gameAggregates struct {
	game     string
	asOf     snapshots.Day
	sets     []*snapshots.Set
	setCards map[string][]*snapshots.Card
	setDaily map[string]map[snapshots.Day][2]int64
	// rankings[metric][window][language] (language index len(Languages) =
	// all): the base printings' rows that meet the liquidity rule.
	rankings [][][][]snapshots.TrendingEntry
	// rows[metric][window]: every printing's row.
	rows [][][]snapshots.TrendingRow
}

func newGameAggregates(game string, sets []*snapshots.Set, nCards int, asOf snapshots.Day) *gameAggregates {
	a := &gameAggregates{game: game, asOf: asOf, sets: sets, setCards: map[string][]*snapshots.Card{}, setDaily: map[string]map[snapshots.Day][2]int64{}}
	a.rankings = make([][][][]snapshots.TrendingEntry, len(snapshots.TrendingMetrics))
	a.rows = make([][][]snapshots.TrendingRow, len(snapshots.TrendingMetrics))
	for mi := range a.rankings {
		a.rankings[mi] = make([][][]snapshots.TrendingEntry, len(snapshots.TrendingWindows))
		a.rows[mi] = make([][]snapshots.TrendingRow, len(snapshots.TrendingWindows))
		for wi := range a.rankings[mi] {
			a.rankings[mi][wi] = make([][]snapshots.TrendingEntry, len(snapshots.Languages)+1)
		}
	}
	return a
}

func (a *gameAggregates) add(r *cardResult) {
	c := r.card
	a.setCards[c.SetID] = append(a.setCards[c.SetID], c)
	daily := a.setDaily[c.SetID]
	if daily == nil {
		daily = map[snapshots.Day][2]int64{}
		a.setDaily[c.SetID] = daily
	}
	for d, v := range r.daily {
		x := daily[d]
		daily[d] = [2]int64{x[0] + v[0], x[1] + v[1]}
	}
	li := indexOf(snapshots.Languages, c.Language)
	est := estimate.Default
	for f := range r.printings {
		for mi, byWindow := range r.printings[f].rows {
			for wi, row := range byWindow {
				if math.IsNaN(row.Value) {
					continue
				}
				row.Ordinal = c.Ordinal
				a.rows[mi][wi] = append(a.rows[mi][wi], row)
				if f != r.base || !(est.Liquid(int(row.SampleSize), row.PriceCents) || r.printings[f].feedLiquid[mi][wi]) {
					continue
				}
				e := snapshots.TrendingEntry{Ordinal: c.Ordinal, Value: row.Value}
				all := len(snapshots.Languages)
				a.rankings[mi][wi][all] = append(a.rankings[mi][wi][all], e)
				if li >= 0 {
					a.rankings[mi][wi][li] = append(a.rankings[mi][wi][li], e)
				}
			}
		}
	}
}

// priceBuckets are the bounds (cents) of set price distributions.
var priceBuckets = []int64{0, 100, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000}

func (a *gameAggregates) write(w *bolt.Writer) error {
	langs := append(append([]string{}, snapshots.Languages...), "all")
	for mi, metric := range snapshots.TrendingMetrics {
		for wi, win := range snapshots.TrendingWindows {
			for li, lang := range langs {
				entries := a.rankings[mi][wi][li]
				sort.SliceStable(entries, func(i, j int) bool {
					if entries[i].Value != entries[j].Value {
						return entries[i].Value > entries[j].Value
					}
					return entries[i].Ordinal < entries[j].Ordinal
				})
				if err := w.PutTrending(a.game, metric, win.Name, lang, entries); err != nil {
					return err
				}
			}
			rows := a.rows[mi][wi]
			sort.SliceStable(rows, func(i, j int) bool {
				x, y := &rows[i], &rows[j]
				if x.Value != y.Value {
					return x.Value > y.Value
				}
				if x.Ordinal != y.Ordinal {
					return x.Ordinal < y.Ordinal
				}
				return x.Finish < y.Finish
			})
			if err := w.PutTrendingRows(a.game, metric, win.Name, rows); err != nil {
				return err
			}
		}
	}
	for _, s := range a.sets {
		cards := a.setCards[s.ID]
		agg := setAggregates(s, cards)
		s.CardCount = len(cards)
		s.Volume30dCents, s.Sales30d = agg.Totals.Volume30dCents, agg.Totals.Sales30d
		daily := a.setDaily[s.ID]
		days := make([]snapshots.DailyStat, 0, len(daily))
		for d, v := range daily {
			days = append(days, snapshots.DailyStat{Day: d, Sales: int(v[0]), VolumeCents: v[1]})
		}
		sort.Slice(days, func(i, j int) bool { return days[i].Day < days[j].Day })
		if err := w.PutSetAggregates(a.game, agg, days); err != nil {
			return err
		}
	}
	return w.PutSets(a.game, a.sets)
}

func setAggregates(s *snapshots.Set, cards []*snapshots.Card) *snapshots.SetAggregates {
	agg := &snapshots.SetAggregates{SetID: s.ID}
	byRarity := map[string]*snapshots.RarityBreakdown{}
	var rarities []string
	prices := map[string][]int64{}
	var all []int64
	agg.Distribution = make([]snapshots.PriceBucket, len(priceBuckets))
	for i, lo := range priceBuckets {
		agg.Distribution[i].MinCents = lo
		if i+1 < len(priceBuckets) {
			agg.Distribution[i].MaxCents = priceBuckets[i+1]
		}
	}
	for _, c := range cards {
		rb := byRarity[c.Rarity]
		if rb == nil {
			rb = &snapshots.RarityBreakdown{Rarity: c.Rarity}
			byRarity[c.Rarity] = rb
			rarities = append(rarities, c.Rarity)
		}
		rb.Cards++
		rb.Volume30dCents += c.Volume30dCents
		rb.Sales30d += c.Sales30d
		agg.Totals.Cards++
		agg.Totals.Volume30dCents += c.Volume30dCents
		agg.Totals.Sales30d += c.Sales30d
		if c.PriceCents <= 0 {
			continue
		}
		rb.PricedCards++
		rb.ValueCents += c.PriceCents
		if c.PriceCents > rb.MaxPriceCents {
			rb.MaxPriceCents, rb.TopCardID = c.PriceCents, c.ID
		}
		prices[c.Rarity] = append(prices[c.Rarity], c.PriceCents)
		all = append(all, c.PriceCents)
		agg.Totals.PricedCards++
		agg.Totals.ValueCents += c.PriceCents
		i := sort.Search(len(priceBuckets), func(i int) bool { return priceBuckets[i] > c.PriceCents }) - 1
		agg.Distribution[i].Cards++
	}
	sort.Slice(rarities, func(i, j int) bool {
		x, y := byRarity[rarities[i]], byRarity[rarities[j]]
		if x.ValueCents != y.ValueCents {
			return x.ValueCents > y.ValueCents
		}
		return strings.Compare(x.Rarity, y.Rarity) < 0
	})
	for _, r := range rarities {
		rb := byRarity[r]
		rb.MedianPriceCents = snapshots.Median(prices[r])
		agg.Breakdown = append(agg.Breakdown, *rb)
	}
	agg.Totals.MedianPriceCents = snapshots.Median(all)
	return agg
}

// progress prints stage and rate lines for a long build.
type progress struct {
	w          io.Writer
	stageStart time.Time
	last       time.Time
	name       string
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) stage(name string) {
	if p.w == nil {
		return
	}
	now := time.Now()
	if p.name != "" {
		fmt.Fprintf(p.w, "build: %-18s done in %s\n", p.name, now.Sub(p.stageStart).Round(time.Millisecond))
	}
	p.name, p.stageStart, p.last = name, now, now
}

// note prints one line about the stage in progress.
func (p *progress) note(line string) {
	if p.w != nil {
		fmt.Fprintf(p.w, "build: %s\n", line)
	}
}

func (p *progress) rows(what string, done, total int) {
	if p.w == nil {
		return
	}
	now := time.Now()
	if done < total && now.Sub(p.last) < 2*time.Second {
		return
	}
	p.last = now
	elapsed := now.Sub(p.stageStart).Seconds()
	rate := float64(done) / math.Max(elapsed, 1e-3)
	eta := time.Duration(float64(total-done)/math.Max(rate, 1e-9)) * time.Second
	fmt.Fprintf(p.w, "build: %-18s %d/%d (%.0f%%) %.0f rows/s, ETA %s\n", what, done, total, 100*float64(done)/float64(max(total, 1)), rate, eta.Round(time.Second))
}

func (p *progress) done(id string, removed []string, took time.Duration) {
	if p.w == nil {
		return
	}
	p.stage("")
	fmt.Fprintf(p.w, "build: published snapshot %s in %s", id, took.Round(time.Millisecond))
	if len(removed) > 0 {
		fmt.Fprintf(p.w, " (pruned %s)", strings.Join(removed, ", "))
	}
	fmt.Fprintln(p.w)
}

// goldSink feeds the gold tables from one goroutine, in order. A write error
// stops the sink; send reports it to the producer.
type goldSink struct {
	gw       *gold.Writer
	ch       chan func(*gold.Writer) error
	done     chan struct{}
	err      error // set by the goroutine before done closes
	stop     chan struct{}
	aborting atomic.Bool // abort was called: drop the queued rows
}

func startGoldSink(gw *gold.Writer) *goldSink {
	gs := &goldSink{gw: gw, ch: make(chan func(*gold.Writer) error, 4096), done: make(chan struct{}), stop: make(chan struct{})}
	go func() {
		defer close(gs.done)
		for f := range gs.ch {
			if gs.err != nil || gs.aborting.Load() {
				continue // drain
			}
			if err := f(gw); err != nil {
				gs.err = err
				close(gs.stop)
			}
		}
	}()
	return gs
}

func (gs *goldSink) send(f func(*gold.Writer) error) error {
	select {
	case gs.ch <- f:
		return nil
	case <-gs.stop:
		<-gs.done
		return fmt.Errorf("gold tables: %w", gs.err)
	}
}

// finish waits for every row and closes the writer (indexes, fsync).
func (gs *goldSink) finish() error {
	close(gs.ch)
	<-gs.done
	if gs.err != nil {
		gs.gw.Close()
		return gs.err
	}
	return gs.gw.Close()
}

// abort drops the queued rows and abandons the file (the build discards
// it) without inserting the sales or building the indexes.
func (gs *goldSink) abort() {
	gs.aborting.Store(true)
	close(gs.ch)
	<-gs.done
	gs.gw.Abort()
}
