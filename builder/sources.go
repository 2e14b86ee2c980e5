package builder

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cardedge/cardedge/builder/history"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/builder/source/cardmarket"
	"github.com/cardedge/cardedge/builder/source/ecb"
	"github.com/cardedge/cardedge/builder/source/pricecharting"
	"github.com/cardedge/cardedge/builder/source/soldlistings"
	"github.com/cardedge/cardedge/builder/source/tcgcsv"
	"github.com/cardedge/cardedge/builder/synth"
	"github.com/cardedge/cardedge/estimate"
	"github.com/cardedge/cardedge/snapshots"
)

// How the numbers of real sources land in a snapshot (docs/real-data.md
// says the same for operators):
//
//   - Every number a source gave on its newest day, with its provenance
//     (source, day, original amount and currency, the ECB rate and its day,
//     product id, match) is a Quote of the card's CardSources (bucket
//     sources/<game>).
//   - Each source's headline field (TCGplayer market, Cardmarket trend,
//     PriceCharting's price of each grade) is kept day by day as a
//     SourceSeries of the card's CardSources: the source's market history.
//   - TCGplayer is the partner marketplace: its market price is also filed
//     as partner price-feed sales (SalePriceFeed, raw near-mint), one per
//     printing and day, which the partner history route and prices.v1's
//     source=partner read today.
//   - Each printing and grade with a feed gets a supplied price series, its
//     own (fmv) history, from one source chosen per series (headlineOf): raw
//     grades from TCGplayer's market price, else Cardmarket's trend in USD;
//     graded ones from PriceCharting. The choice is recorded as a
//     SeriesSource. Its estimate's confidence follows the source's freshness
//     (feedEstimate). Series without a feed are estimated from verified
//     sales as before: the sold listings (observed).
//   - Sold listings matched with confidence are verified sales of their
//     marketplace (observed).
//   - A year of history stays cheap (accumulate.go): a day that is not its
//     source's newest is read from its mapped day in the store (mapped once,
//     history.Mapped) and gives its headline fields and sales only; the
//     snapshot keeps the history daily for DailyDays, weekly to WeeklyDays,
//     monthly before; a feed's price series keeps its changes; the feed
//     rows cover FeedRowDays.

// ErrAllRefused fails a build whose every source given was refused: the
// live snapshot stays (rebuild from the store alone with a History and no
// Sources).
var ErrAllRefused = errors.New("every source given was refused: nothing new to build, the live snapshot stays")

// sourcesByName are the sources --source names.
var sourcesByName = map[string]source.Source{
	source.Cardmarket:    cardmarket.Source{},
	source.TCGplayer:     tcgcsv.Source{},
	source.PriceCharting: pricecharting.Source{},
	source.SoldListings:  soldlistings.Source{},
}

// SourceNames lists the sources --source takes, sorted.
func SourceNames() []string {
	out := make([]string, 0, len(sourcesByName))
	for n := range sourcesByName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// SourceByName returns the source named name.
func SourceByName(name string) (source.Source, error) {
	s, ok := sourcesByName[name]
	if !ok {
		return nil, fmt.Errorf("unknown source %q; known: %s", name, strings.Join(SourceNames(), ", "))
	}
	return s, nil
}

// CheckInput checks a --source value before anything is read: a known
// source and the options it takes.
func CheckInput(in source.Input) error {
	s, err := SourceByName(in.Source)
	if err != nil {
		return err
	}
	return in.CheckOptions(s.Options()...)
}

// provenanceName is the provenance name of a source's numbers.
func provenanceName(src string) string {
	switch src {
	case source.Cardmarket:
		return snapshots.SourceCardmarket
	case source.TCGplayer:
		return snapshots.SourceTCGplayer
	case source.PriceCharting:
		return snapshots.SourcePriceCharting
	}
	return snapshots.SourceObserved
}

// headline reports whether a source's field is kept day by day (its
// history) and may make a price series.
func headline(src, field string) bool {
	switch src {
	case source.TCGplayer:
		return field == "market"
	case source.Cardmarket:
		return field == "trend"
	case source.PriceCharting:
		return true
	}
	return false
}

// seriesPriority ranks the sources a price series may come from (lower
// first): the methodology's order (estimate.Default.Sources.Priority), which
// /api/v3/methodology publishes.
func seriesPriority(source string) int { return estimate.Default.SourceRank(source) }

// refusable reports whether err refuses a source's day (a bad file, a
// location unavailable) rather than the build.
func refusable(err error) bool {
	return errors.Is(err, source.ErrRefused) || errors.Is(err, source.ErrUnavailable) || errors.Is(err, history.ErrDayFiled)
}

// loadedSource is one --source of the build.
type loadedSource struct {
	src    source.Source
	in     source.Input
	read   *source.Day // the day this build read (nil: refused or none)
	status snapshots.MarketSourceStatus
	days   []history.Entry // the store's days of the source (with a store)
}

// sourcesMarket is the market of a build from real sources: each card's
// prepared market, the synthesizer for --synthetic-fill.
type sourcesMarket struct {
	byCard map[*snapshots.Card]*CardMarket
	fill   *synth.Generator // nil: no fill
}

func (m *sourcesMarket) CardMarket(gameIndex int, c *snapshots.Card, set *snapshots.Set) CardMarket {
	if cm := m.byCard[c]; cm != nil {
		// Sale ids as the synthesizer gives them: game, ordinal and a
		// sequence rising with time (sales are newest first).
		out := *cm
		out.Sales = make([]snapshots.Sale, len(cm.Sales))
		base := uint64(gameIndex)<<56 | uint64(c.Ordinal)<<24
		for i, s := range cm.Sales {
			s.ID = base | uint64(len(cm.Sales)-1-i)
			out.Sales[i] = s
		}
		return out
	}
	if m.fill == nil {
		return CardMarket{}
	}
	sales, listings := m.fill.CardMarket(gameIndex, c, set)
	for i := range sales {
		sales[i].Flags |= snapshots.SaleSynthetic
	}
	for i := range listings {
		listings[i].Synthetic = true
	}
	return CardMarket{Sales: sales, Listings: listings, Sources: &snapshots.CardSources{Synthetic: true}}
}

// sourcesResult is what loadSources made.
type sourcesResult struct {
	market   *sourcesMarket
	asOf     snapshots.Day
	statuses []snapshots.MarketSourceStatus
	inputs   map[string]string
}

// loadSources reads the build's sources, files their days in the history
// store, reads the history back and maps every day onto the catalog
// (cards: every game, ordinals set).
func (b *build) loadSources(ctx context.Context, cards []*snapshots.Card, sets []*snapshots.Set, preset synth.Preset) (*sourcesResult, error) {
	opts := b.opts
	f := opts.Fetcher
	if f == nil {
		f = source.NewFetcher(opts.Version, opts.Contact, "")
	}
	var store *history.Store
	if opts.History != "" {
		var err error
		if store, err = history.Open(ctx, opts.History); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	var rates *ecb.Rates
	inputs := map[string]string{}
	if opts.Rates != "" {
		file, err := f.Get(ctx, opts.Rates)
		if err != nil {
			return nil, fmt.Errorf("rates: %w", err)
		}
		if rates, err = ecb.Parse(file.Body); err != nil {
			return nil, fmt.Errorf("rates %s: %w", opts.Rates, err)
		}
		inputs["rates"] = source.Digest(file.Body)
	}

	// Read each source's day and file it.
	var loaded []*loadedSource
	seen := map[string]bool{}
	for _, in := range opts.Sources {
		src, err := SourceByName(in.Source)
		if err != nil {
			return nil, err
		}
		if seen[in.Source] {
			return nil, fmt.Errorf("source %s given twice", in.Source)
		}
		seen[in.Source] = true
		ls := &loadedSource{src: src, in: in, status: snapshots.MarketSourceStatus{Name: in.Source, Input: in.Location}}
		loaded = append(loaded, ls)
		if err := b.stage("source:" + in.Source); err != nil {
			return nil, err
		}
		day, err := src.Read(ctx, f, in)
		if err != nil {
			if !refusable(err) {
				return nil, err
			}
			b.refuse(ls, err)
		}
		if store != nil {
			if ls.days, err = store.Days(ctx, in.Source); err != nil {
				return nil, err
			}
		}
		if day != nil && store != nil {
			if err := checkCreatedAt(ctx, store, ls.days, day); err != nil {
				b.refuse(ls, err)
				day = nil
			}
		}
		if day != nil && store != nil {
			_, outcome, n, err := store.Put(ctx, day, opts.ReplaceDay)
			if err != nil {
				if !refusable(err) {
					return nil, err
				}
				b.refuse(ls, err)
				day = nil
			} else {
				b.progress.note(fmt.Sprintf("history: %s %s %s (%d bytes)", in.Source, day.Date, outcome, n))
				if ls.days, err = store.Days(ctx, in.Source); err != nil {
					return nil, err
				}
			}
		}
		if day != nil {
			ls.read = day
			inputs["source/"+in.Source] = day.Digest
		}
	}

	// The store's other sources serve too: a source not given today (a
	// weekly guide, the sold listings of past exports) keeps its days.
	if store != nil {
		for _, name := range SourceNames() {
			if seen[name] {
				continue
			}
			days, err := store.Days(ctx, name)
			if err != nil {
				return nil, err
			}
			if len(days) == 0 {
				continue
			}
			src, _ := SourceByName(name)
			loaded = append(loaded, &loadedSource{src: src, in: source.Input{Source: name}, days: days,
				status: snapshots.MarketSourceStatus{Name: name}})
		}
	}

	// as_of: given, else the newest day of any source.
	asOf := opts.AsOf
	if asOf == 0 {
		for _, ls := range loaded {
			if ls.read != nil && ls.read.Date > asOf {
				asOf = ls.read.Date
			}
			if n := len(ls.days); n > 0 && ls.days[n-1].Date > asOf {
				asOf = ls.days[n-1].Date
			}
		}
	}
	if asOf == 0 {
		msgs := make([]string, 0, len(loaded))
		for _, ls := range loaded {
			msgs = append(msgs, ls.in.Source+": "+ls.status.Refused)
		}
		return nil, fmt.Errorf("no source has a day to build from (%s)", strings.Join(msgs, "; "))
	}

	// Every source given refused (files bad or unreachable): nothing new
	// to build, and a new snapshot would only say yesterday's numbers again
	// (a nightly job then fails, and publishes nothing).
	if len(opts.Sources) > 0 {
		var msgs []string
		for _, ls := range loaded[:len(opts.Sources)] {
			if ls.read == nil {
				msgs = append(msgs, ls.in.Source+": "+ls.status.Refused)
			}
		}
		if len(msgs) == len(opts.Sources) {
			return nil, fmt.Errorf("%w: %s", ErrAllRefused, strings.Join(msgs, "; "))
		}
	}

	// Map every day of every source onto the catalog: the newest day of
	// each source from its raw day (all its numbers, its report), the
	// older ones from their mapped days when the store keeps them (else
	// mapped now from their raw day, and filed), oldest first.
	cat := source.NewCatalog(cards, sets)
	var key history.MappedKey
	if store != nil {
		var err error
		if key, err = history.KeyOf(cat); err != nil {
			return nil, err
		}
	}
	acc := newAccumulator(asOf)
	historyDays := opts.HistoryDays
	if historyDays < 1 {
		historyDays = DefaultHistoryDays
	}
	from := asOf - snapshots.Day(historyDays) + 1
	for _, ls := range loaded {
		if err := b.stage("map:" + ls.in.Source); err != nil {
			return nil, err
		}
		if err := b.mapSource(ctx, store, key, cat, acc, ls, rates, from, asOf); err != nil {
			return nil, err
		}
		ls.status.Stale = ls.status.LastDay == "" || int(asOf-mustDay(ls.status.LastDay)) > snapshots.StaleAfterDays
	}

	m := &sourcesMarket{byCard: acc.markets(cards, loaded)}
	if opts.SyntheticFill {
		m.fill = synth.New(preset, opts.Seed, asOf).WithCatalog(cards, sets)
	}
	res := &sourcesResult{market: m, asOf: asOf, inputs: inputs}
	for _, ls := range loaded {
		res.statuses = append(res.statuses, ls.status)
	}
	return res, nil
}

func mustDay(s string) snapshots.Day {
	d, _ := snapshots.ParseDay(s)
	return d
}

// refuse records why a source's day is not used.
func (b *build) refuse(ls *loadedSource, err error) {
	ls.status.Refused = err.Error()
	b.progress.note(fmt.Sprintf("source %s: day refused, the history serves: %v", ls.in.Source, err))
	if b.opts.OnRefused != nil {
		b.opts.OnRefused(ls.in.Source, err)
	}
}

// report writes a source's report of the day it read.
func (b *build) report(rep *source.Report) error {
	if b.opts.OnReport != nil {
		b.opts.OnReport(rep)
	}
	if b.opts.ReportDir == "" {
		return nil
	}
	path, err := rep.WriteFile(b.opts.ReportDir)
	if err != nil {
		return err
	}
	b.progress.note("report: " + path)
	return nil
}

// checkCreatedAt refuses a day whose input is older than the newest filed
// day's (Cardmarket's createdAt, tcgcsv's last-updated.txt).
func checkCreatedAt(ctx context.Context, store *history.Store, days []history.Entry, d *source.Day) error {
	if d.CreatedAt.IsZero() || len(days) == 0 {
		return nil
	}
	last, err := store.Header(ctx, days[len(days)-1])
	if err != nil {
		return err
	}
	if !last.CreatedAt.IsZero() && d.CreatedAt.Before(last.CreatedAt) {
		return source.Refusedf("%s's file was created %s, before the last one loaded (%s, day %s)", d.Source,
			d.CreatedAt.Format("2006-01-02T15:04:05Z07:00"), last.CreatedAt.Format("2006-01-02T15:04:05Z07:00"), last.Date)
	}
	return nil
}

// DefaultHistoryDays is how many days of history a snapshot built from
// sources holds by default (Options.HistoryDays).
const DefaultHistoryDays = 730

// kept reports whether an observation of a day other than its source's
// newest is kept: its headline field (the source's history) and sales.
// The other numbers of a day are quotes, and quotes are the newest day's.
func kept(src string, o *source.Observation) bool {
	return o.Field == source.FieldSale || headline(src, o.Field)
}

// mapSource maps a source's days from from to to into acc: the newest from
// its raw day, the older ones from their mapped days (mapped now and filed
// when the store has none).
func (b *build) mapSource(ctx context.Context, store *history.Store, key history.MappedKey, cat *source.Catalog,
	acc *accumulator, ls *loadedSource, rates *ecb.Rates, from, to snapshots.Day) error {
	name := ls.in.Source
	var days []history.Entry
	for _, e := range ls.days {
		if e.Date >= from && e.Date <= to {
			days = append(days, e)
		}
	}
	var latest *source.Day
	switch {
	case store == nil:
		if ls.read != nil && ls.read.Date <= to {
			latest = ls.read
		}
	case len(days) > 0:
		e := days[len(days)-1]
		if ls.read != nil && ls.read.Date == e.Date {
			latest = ls.read
		} else {
			var err error
			if latest, err = store.Get(ctx, e); err != nil {
				return err
			}
		}
	}
	if latest == nil {
		return nil
	}
	var onFile map[snapshots.Day][]history.MappedEntry
	if store != nil {
		var err error
		if onFile, err = store.MappedDays(ctx, name); err != nil {
			return err
		}
	}
	fromFile, mapped := 0, 0
	err := b.olderDays(ctx, days[:max(len(days)-1, 0)], func(e history.Entry) (olderDay, error) {
		return b.olderDay(ctx, store, key, cat, ls, e, latest, onFile[e.Date])
	}, func(e history.Entry, o olderDay) {
		if o.cached {
			fromFile++
		} else {
			mapped++
		}
		for _, n := range o.notes {
			b.progress.note(n)
		}
		acc.add(name, e.Date, o.obs, rates)
		ls.status.Days++
	})
	if err != nil {
		return err
	}

	obs, rep := ls.src.Map(latest, latest, cat)
	dropped := acc.add(name, latest.Date, obs, rates)
	for reason, n := range dropped {
		rep.Reasons[reason] += n
		rep.Observations -= n
	}
	ls.status.Days++
	ls.status.LastDay = latest.Date.String()
	ls.status.Rows, ls.status.Matched, ls.status.Observations = rep.Read, rep.Matched(), rep.Observations
	if ls.read != nil && ls.read.Date == latest.Date {
		if err := b.report(rep); err != nil {
			return err
		}
	}
	if store != nil {
		// Tomorrow this day is an older one: file what it keeps.
		e := days[len(days)-1]
		if !mappedOnFile(onFile[e.Date], e, key) {
			if err := fileMapped(ctx, store, cat, &history.Mapped{Entry: e, Key: key, Observations: keptOf(name, obs)}, onFile[e.Date]); err != nil {
				b.progress.note(err.Error())
			}
		}
		b.progress.note(fmt.Sprintf("history: %s: %d older days read mapped, %d mapped from their raw day", name, fromFile, mapped))
	}
	return nil
}

// olderDay is what a source's older day gives: its kept observations,
// whether they were read mapped (else mapped now), and what to note.
type olderDay struct {
	obs    []source.Observation
	cached bool
	notes  []string
}

// olderDays gets the older days of a source on up to b.opts.Workers
// goroutines, a few days ahead of their use, and hands them to use in
// their order, on the calling goroutine.
func (b *build) olderDays(ctx context.Context, days []history.Entry, get func(history.Entry) (olderDay, error), use func(history.Entry, olderDay)) error {
	type result struct {
		o   olderDay
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	workers := max(1, b.opts.Workers)
	results := make([]chan result, len(days))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	ahead := make(chan struct{}, 2*workers) // days got and not yet used
	jobs := make(chan int)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		for i := range days {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				o, err := get(days[i])
				results[i] <- result{o, err}
			}
		}()
	}
	for i, e := range days {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		if r.err != nil {
			return r.err
		}
		<-ahead
		use(e, r.o)
	}
	return nil
}

// olderDay returns what a source's older day e gives: from its mapped day
// on file (cached), else mapped now with latest, the source's newest day,
// and filed. It may run on several goroutines at once.
func (b *build) olderDay(ctx context.Context, store *history.Store, key history.MappedKey, cat *source.Catalog, ls *loadedSource,
	e history.Entry, latest *source.Day, onFile []history.MappedEntry) (olderDay, error) {
	var out olderDay
	for _, me := range onFile {
		if !me.Of(e, key) {
			continue
		}
		m, err := store.GetMapped(ctx, me, e, key, cat)
		if err == nil {
			out.obs, out.cached = m.Observations, true
			return out, nil
		}
		out.notes = append(out.notes, fmt.Sprintf("history: %v; mapping the day again from its raw day", err))
	}
	d := ls.read
	if d == nil || d.Date != e.Date {
		var err error
		if d, err = store.Get(ctx, e); err != nil {
			return out, err
		}
	}
	all, _ := ls.src.Map(d, latest, cat)
	out.obs = keptOf(ls.in.Source, all)
	if err := fileMapped(ctx, store, cat, &history.Mapped{Entry: e, Key: key, Observations: out.obs}, onFile); err != nil {
		out.notes = append(out.notes, err.Error())
	}
	return out, nil
}

func mappedOnFile(onFile []history.MappedEntry, e history.Entry, key history.MappedKey) bool {
	for _, me := range onFile {
		if me.Of(e, key) {
			return true
		}
	}
	return false
}

// fileMapped files a mapped day; a failure is to be noted, not an error:
// the day is mapped from its raw day until it is filed.
func fileMapped(ctx context.Context, store *history.Store, cat *source.Catalog, m *history.Mapped, onFile []history.MappedEntry) error {
	if _, _, err := store.PutMapped(ctx, m, cat, onFile); err != nil {
		return fmt.Errorf("history: %w (the day is mapped from its raw day until it is filed)", err)
	}
	return nil
}

// keptOf returns the observations of obs kept of a day that is not its
// source's newest (kept), in their order.
func keptOf(src string, obs []source.Observation) []source.Observation {
	out := make([]source.Observation, 0, len(obs)/4)
	for i := range obs {
		if kept(src, &obs[i]) {
			out = append(out, obs[i])
		}
	}
	return out
}
