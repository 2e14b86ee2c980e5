package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/cardedge/cardedge/builder"
	"github.com/cardedge/cardedge/builder/source"
	"github.com/cardedge/cardedge/snapshots"
	snaps3 "github.com/cardedge/cardedge/snapshots/s3"
)

// version is set by the Makefile (-ldflags -X main.version).
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Main(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "cardbuild:", err)
		}
		os.Exit(1)
	}
}

// Main runs one cardbuild command.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return errors.New("no command")
	}
	switch args[0] {
	case "build":
		return runBuild(ctx, args[1:], stdout, stderr)
	case "publish":
		return runPublish(ctx, args[1:], stdout, stderr)
	case "verify":
		return runVerify(args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "bulk":
		return runBulk(ctx, args[1:], stdout, stderr)
	case "backfill":
		return runBackfill(ctx, args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	fmt.Fprintln(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

const usage = `usage:
  cardbuild build --out DIR [--preset tiny|default|large] [--seed N] [--catalog DIR]
                  [--market DIR] [--as-of YYYY-MM-DD] [--keep N] [--id ID] [--quiet]
                  [--publish s3://BUCKET/PREFIX [--allow-shrink]]
                  [--source NAME=FILE|DIR|URL[,key=value...]]... [--history DIR|s3://BUCKET/PREFIX]
                  [--rates FILE|URL] [--contact URL|EMAIL] [--reports DIR] [--replace-day]
                  [--synthetic-fill] [--history-days N] [--fetch-cache DIR] [--dry-run]
                                         real market sources instead of the synthesizer (docs/real-data.md):
                                         cardmarket=price_guide_6.json  tcgplayer=https://tcgcsv.com[,categories=3+85+68]
                                         pricecharting=guide.csv[,day=D]  soldlistings=sold.csv[,day=D,marketplace=ebay]
  cardbuild backfill --history DIR|s3://BUCKET/PREFIX --source NAME=DIR|FILE ... [--replace-day] [--contact C]
                                         file past days into the history store: a directory of dated Cardmarket
                                         files, tcgcsv's archive (YYYY-MM-DD/{category}/{group}/prices), dated CSVs
  cardbuild publish DIR/<snapshot_id> s3://BUCKET/PREFIX [--allow-shrink] [--max-shrink 0.10]
                                         upload every file, then the manifest, then CURRENT; refuses a snapshot
                                         whose cards, sets or sales shrank more than 10 % against the published one
                                         (credentials, region, endpoint: AWS_* environment and config files)
  cardbuild verify DIR/<snapshot_id>
  cardbuild report DIR/<snapshot_id>     the realism report: liquidity of leaderboards, graded ladders,
                                         single-sale moves, printings, chase cards; with the per-source
                                         summary of a snapshot built from sources
  cardbuild report --reports DIR [--day YYYY-MM-DD]
                                         the sources' reports (<source>-<day>.csv): per source, rows read,
                                         matched by id, by number and name, by title, ambiguous, unmatched,
                                         rejected with reasons (the newest day of each source by default)
  cardbuild bulk DIR/<snapshot_id> OUTDIR [--workers N] [--quiet]
                                         write the snapshot's bulk files (per game: cards, sets, prices,
                                         price-history as gzip JSON Lines, their schemas, index.json) into OUTDIR`

// defaultCatalog finds the shipped catalog from the working directory or
// beside the binary (bin/../builder/catalog).
func defaultCatalog() string {
	candidates := []string{"builder/catalog"}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "..", "builder", "catalog"))
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(c, "cards.jsonl.gz")); err == nil {
			return c
		}
	}
	return "builder/catalog"
}

func runBuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts builder.Options
	var asOf string
	var quiet bool
	fs.StringVar(&opts.Out, "out", "", "snapshots root directory (required)")
	fs.StringVar(&opts.Preset, "preset", "default", "tiny, default or large")
	fs.Int64Var(&opts.Seed, "seed", 1, "synthesis seed")
	fs.StringVar(&opts.CatalogDir, "catalog", defaultCatalog(), "directory with sets.jsonl(.gz) and cards.jsonl(.gz)")
	fs.Func("catalog-source", "an extra catalog source, NAME=DIR (repeatable); NAME is pokemon-tcg-data: a local clone of github.com/PokemonTCG/pokemon-tcg-data, whose card text (rules, ability and attack text, flavor text) the English Pokémon cards take", func(v string) error {
		name, dir, ok := strings.Cut(v, "=")
		switch {
		case !ok || dir == "":
			return fmt.Errorf("want NAME=DIR, not %q", v)
		case name != "pokemon-tcg-data":
			return fmt.Errorf("unknown catalog source %q (known: pokemon-tcg-data)", name)
		}
		opts.PokemonTCGData = dir
		return nil
	})
	fs.StringVar(&opts.MarketDir, "market", "", "directory with market feeds (sales.jsonl, prices.jsonl, listings.jsonl) instead of synthesized data")
	fs.StringVar(&asOf, "as-of", "", "the snapshot's today, YYYY-MM-DD (default: yesterday UTC, or the latest sale of the feeds)")
	fs.IntVar(&opts.Keep, "keep", 3, "snapshots to keep in --out")
	fs.StringVar(&opts.SnapshotID, "id", "", "snapshot id (default: build time, UTC)")
	fs.IntVar(&opts.Workers, "workers", 0, "parallel workers (default: GOMAXPROCS)")
	fs.BoolVar(&quiet, "quiet", false, "print nothing but errors and the snapshot id")
	publishTo := fs.String("publish", "", "after the build, publish the snapshot to s3://BUCKET/PREFIX (see cardbuild publish)")
	var pub publishFlags
	pub.register(fs)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the build to this file")
	memProfile := fs.String("memprofile", "", "write a heap profile taken at the peak of the live Go heap to this file (and print what --memstats prints)")
	memStats := fs.Bool("memstats", false, "print the peak resident set and Go heap of each build stage to stderr")
	var srcs sourceFlags
	fs.Var(&srcs, "source", "a real market source, NAME=FILE|DIR|URL[,key=value...] (repeatable; NAME: "+strings.Join(builder.SourceNames(), ", ")+")")
	fs.StringVar(&opts.History, "history", "", "the sources' history store, a directory or s3://BUCKET/PREFIX: each day is filed there and the snapshot's history read back")
	fs.IntVar(&opts.HistoryDays, "history-days", builder.DefaultHistoryDays, "days of history, ending at as_of, the snapshot holds")
	fs.BoolVar(&opts.ReplaceDay, "replace-day", false, "replace a day already filed in the history with other content (else that input is refused)")
	fs.StringVar(&opts.Rates, "rates", "", "the ECB's eurofxref-hist.csv (or .zip), a file or URL, converting EUR and other currencies to USD")
	fs.StringVar(&opts.Contact, "contact", "", "the operator's URL or email, sent in the User-Agent of every request to a source")
	fs.StringVar(&opts.ReportDir, "reports", "var/reports", "where each source's report of the day goes (<source>-<day>.csv)")
	fs.BoolVar(&opts.SyntheticFill, "synthetic-fill", false, "give the cards no source has synthesized market data, flagged row by row")
	fetchCache := fs.String("fetch-cache", "", "keep the sources' downloads here for conditional requests (ETag, If-Modified-Since)")
	memLimitMiB := fs.Int64("mem-limit-mib", 3200, "soft limit of the Go heap in MiB (the garbage collector works harder near it; 0: none)")
	gcPercent := fs.Int("gc-percent", 200, "garbage collection target percentage, as GOGC (-1: keep GOGC's)")
	dryRun := fs.Bool("dry-run", false, "check the flags, print what the build would read and where it would write, and build nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if opts.Out == "" {
		return errors.New("build: --out is required")
	}
	if *publishTo != "" {
		if _, err := snaps3.ParseURL(*publishTo); err != nil {
			return fmt.Errorf("build: --publish: %w", err)
		}
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("build: unexpected argument %q", fs.Arg(0))
	}
	if asOf != "" {
		d, err := snapshots.ParseDay(asOf)
		if err != nil {
			return fmt.Errorf("build: --as-of: %w", err)
		}
		opts.AsOf = d
	}
	if *dryRun {
		writePlan(stdout, opts, srcs, *publishTo)
		return nil
	}
	if !quiet {
		opts.Progress = stderr
	}
	opts.Sources = srcs
	if len(srcs) > 0 {
		opts.Version = version
		opts.Fetcher = source.NewFetcher(version, opts.Contact, *fetchCache)
		opts.OnRefused = func(name string, err error) {
			if quiet {
				fmt.Fprintf(stderr, "cardbuild: source %s refused (the history serves): %v\n", name, err)
			}
		}
		if opts.Contact == "" {
			fmt.Fprintln(stderr, "cardbuild: no --contact: the sources see no way to reach the operator (give a URL or an email)")
		}
	}
	if *memLimitMiB > 0 {
		// A backstop: the build's RSS target is 4 GiB, and the large
		// preset's Go heap peaks near 1.6 GiB at --gc-percent 200.
		debug.SetMemoryLimit(*memLimitMiB << 20)
	}
	if *gcPercent >= 0 {
		// The build allocates many times what it keeps (the large preset's
		// live heap stays under 0.6 GiB): at GOGC's 100 its collector ran
		// twice as often and took about 60 s of CPU, at 200 about 30 s, for
		// 0.5 GiB more peak RSS.
		debug.SetGCPercent(*gcPercent)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("build: --cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("build: --cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var watch *memWatch
	if *memProfile != "" || *memStats {
		watch = startMemWatch(*memProfile, 250*time.Millisecond)
		opts.StageHook = func(stage string) error {
			watch.setStage(stage)
			return nil
		}
	}
	m, err := builder.Compile(ctx, opts)
	if watch != nil {
		if werr := watch.finish(stderr); err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(stdout, "snapshot %s: as_of %s, %d cards, %d sales, content digest %s\n",
			m.SnapshotID, m.AsOf, m.Counts["cards"], m.Counts["sales"], m.ContentDigest)
		writeSources(stdout, m)
	}
	dir := filepath.Join(opts.Out, m.SnapshotID)
	if *publishTo != "" {
		out := stdout
		if quiet {
			out = io.Discard
		}
		if err := publish(ctx, dir, *publishTo, pub, out, stderr); err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout, dir)
	return nil
}

// writePlan prints what a build with these flags would read and write
// (build --dry-run).
func writePlan(w io.Writer, opts builder.Options, srcs sourceFlags, publishTo string) {
	fmt.Fprintf(w, "dry run: a build into %s (keep %d), catalog %s\n", opts.Out, opts.Keep, opts.CatalogDir)
	switch {
	case len(srcs) > 0 || opts.History != "":
		for _, in := range srcs {
			fmt.Fprintf(w, "  source %s: %s", in.Source, in.Location)
			keys := make([]string, 0, len(in.Options))
			for k := range in.Options {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(w, ", %s=%s", k, in.Options[k])
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "  history: %s (%d days)\n  rates: %s\n  contact: %s\n", orNone(opts.History), max(opts.HistoryDays, 1), orNone(opts.Rates), orNone(opts.Contact))
		for _, warning := range planWarnings(opts, srcs) {
			fmt.Fprintf(w, "  warning: %s\n", warning)
		}
	case opts.MarketDir != "":
		fmt.Fprintf(w, "  market feeds: %s\n", opts.MarketDir)
	default:
		fmt.Fprintf(w, "  the synthetic market (preset %s, seed %d)\n", opts.Preset, opts.Seed)
	}
	if publishTo != "" {
		fmt.Fprintf(w, "  then published to %s\n", publishTo)
	}
}

// planWarnings are what a build from sources with these flags would miss
// without failing at once: a URL fetched with no contact, EUR prices with
// no rates to convert them (dropped), a catalog directory that is not
// there (the build fails reading it).
func planWarnings(opts builder.Options, srcs sourceFlags) []string {
	var out []string
	fetched, eur := false, false
	for _, in := range srcs {
		fetched = fetched || strings.HasPrefix(in.Location, "https://") || strings.HasPrefix(in.Location, "http://")
		eur = eur || in.Source == source.Cardmarket || in.Source == source.SoldListings
	}
	if fetched && opts.Contact == "" {
		out = append(out, "no --contact: the sources' sites see no way to reach you (give a URL or an email)")
	}
	if eur && opts.Rates == "" {
		out = append(out, "no --rates: amounts in a currency other than USD (Cardmarket's EUR, a sold-listing export's) are dropped")
	}
	if fi, err := os.Stat(opts.CatalogDir); err != nil || !fi.IsDir() {
		out = append(out, fmt.Sprintf("catalog %s is not a directory here: the build reads its cards from it", opts.CatalogDir))
	}
	return out
}

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("verify: want one snapshot directory")
	}
	dir := fs.Arg(0)
	// A snapshots root is accepted too: verify the one CURRENT names.
	if id, err := snapshots.ReadCurrent(dir); err == nil {
		if _, err := os.Stat(filepath.Join(dir, snapshots.ManifestFile)); err != nil {
			dir = filepath.Join(dir, id)
		}
	}
	m, err := snapshots.Verify(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ok: snapshot %s verifies (%d files, content digest %s)\n", m.SnapshotID, len(m.Files), m.ContentDigest)
	return nil
}
