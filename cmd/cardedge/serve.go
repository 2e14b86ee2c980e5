package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	"github.com/cardedge/cardedge/alert"
	"github.com/cardedge/cardedge/chattoken"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/live"
	cardmcp "github.com/cardedge/cardedge/mcp"
	"github.com/cardedge/cardedge/oauth"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/state"
	"github.com/cardedge/cardedge/web"
	"github.com/cardedge/cardedge/webhook"
)

// ServeConfig is what `cardedge serve` runs with.
type ServeConfig struct {
	Snapshots, State, Addr, Redis, LogLevel string
	CacheMB                                 int
	// WarmEntries is how many of the response cache's hottest entries are
	// made again on a new snapshot before it serves (edge.Options.WarmEntries:
	// 0 is edge.DefaultWarmEntries, negative none).
	WarmEntries int
	// LLMURL, LLMModel and LLMKey point the agent chat at an OpenAI-compatible
	// endpoint (empty URL: the embedded agent).
	LLMURL, LLMModel, LLMKey string
	// Signup is "open", "closed" or "" (open on a loopback Addr, closed
	// elsewhere); PublicURL is the URL people reach the server at (https:
	// Secure cookies); KeyMaxDays caps dashboard keys' lifetime (0: none).
	Signup, PublicURL string
	KeyMaxDays        int
	// ImageURLTemplate is /v2's image URL template (pokemontcg.Options.ImageURL;
	// "" is pokemontcg.io's own images).
	ImageURLTemplate string
	// Fleet: the snapshots pulled from a bucket, draining (fleet.go).
	Fleet FleetConfig
	// AppsTest loosens how connected apps' Client ID Metadata Documents
	// are fetched, for tests only (--oauth-cimd-*; see cimdTestOptions).
	AppsTest AppsTestConfig
	// Alerts: the background work of a new snapshot and webhooks (alerts.go).
	Alerts AlertsConfig
	// Ready, when set, receives the listening address once serving (tests).
	Ready func(addr string)
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg ServeConfig
	fs.StringVar(&cfg.Snapshots, "snapshots", "", "snapshots root with CURRENT, or s3://BUCKET/PREFIX with --cache-dir (required)")
	fs.StringVar(&cfg.State, "state", "", "state file: accounts, sessions, keys, usage, previews, collections, cohorts (one node; or --redis)")
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen address")
	fs.IntVar(&cfg.CacheMB, "cache-mb", 256, "response cache size in MiB (0 disables)")
	fs.IntVar(&cfg.WarmEntries, "warm-entries", edge.DefaultWarmEntries, "how many of the response cache's hottest entries are made again on a new snapshot before it serves, paced as the rest of the swap (0: the default; negative: none)")
	fs.StringVar(&cfg.Redis, "redis", "", "redis://host:port/db: the shared state store of a fleet (alone), or only the quotas and rate limits shared by replicas (with --state)")
	fs.StringVar(&cfg.LogLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&cfg.LLMURL, "llm-url", "", "base URL of an OpenAI-compatible API (.../v1) for the agent chat; empty: the embedded agent")
	fs.StringVar(&cfg.LLMModel, "llm-model", "", "model name for --llm-url (default \"default\")")
	fs.StringVar(&cfg.Signup, "signup", "", "dashboard sign-up: open or closed (default: open on a loopback --addr, closed elsewhere)")
	fs.StringVar(&cfg.PublicURL, "public-url", "", "the URL people reach this server at, e.g. https://api.example.com (https makes the dashboard's cookies Secure; the OpenAPI document's servers)")
	fs.StringVar(&cfg.ImageURLTemplate, "image-url-template", pokemontcg.DefaultImageURL, "the image URLs of /v2's cards and sets: {set} is the set id, {image} the image's name (4, 4_hires, symbol, logo); point it at a mirror of pokemontcg.io's images")
	fs.IntVar(&cfg.KeyMaxDays, "key-max-days", 0, "the longest lifetime of keys made in the dashboard, in days (0: no cap, keys may never expire)")
	cfg.Fleet.register(fs)
	cfg.AppsTest.register(fs)
	cfg.Alerts.register(fs)
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	gcPercent := fs.Int("gc-percent", 400, "Go GC target percentage (GOGC) unless GOGC is set: the live heap is mostly the snapshot, which never becomes garbage, so collecting less often costs little memory and saves CPU per request")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" && *gcPercent > 0 {
		debug.SetGCPercent(*gcPercent)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("serve: --cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("serve: --cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if _, err := pokemontcg.NewCatalog(nil, nil, pokemontcg.Options{ImageURL: cfg.ImageURLTemplate}); err != nil {
		return fmt.Errorf("serve: --image-url-template: %w", err)
	}
	cfg.LLMKey = os.Getenv("CARDEDGE_LLM_API_KEY")
	if cfg.Snapshots == "" || (cfg.State == "" && cfg.Redis == "") {
		return errors.New("serve: --snapshots and --state FILE (one node) or --redis URL (a fleet) are required")
	}
	return Serve(ctx, cfg, stdout, stderr)
}

// Serve runs the edge until ctx ends, then drains and exits.
func Serve(ctx context.Context, cfg ServeConfig, stdout, stderr io.Writer) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return fmt.Errorf("serve: --log-level: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	quietRedis(log)
	srv, err := openServer(ctx, cfg, log)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer srv.Close()
	return srv.run(ctx, cfg, log)
}

// server is one cardedge serve: the services main builds (the state store,
// the live snapshot, access, collections, accounts, chat-user tokens) and
// the adapters it hands them to (edge, MCP, the dashboard). Close closes
// what was opened, in reverse order.
type server struct {
	store       state.Store
	tokens      *chattoken.Service
	access      *access.Service
	live        *live.Live
	source      snapshotSource
	collections *collection.Service
	alerts      *alert.Service
	webhooks    *webhook.Service
	accounts    *account.Service
	apps        *oauth.Server // nil: connected apps are off
	edge        *edge.Server
	ln          net.Listener
	closers     []func()
}

// openServer builds the services and the adapters of cfg, in the order
// they need each other: the listener (its address is the public URL when
// none is given), the state store and the shared counters, chat-user
// tokens, accounts, the authorization server of connected apps, access, the
// live snapshot, collections, then MCP, the dashboard and the edge.
func openServer(ctx context.Context, cfg ServeConfig, log *slog.Logger) (_ *server, err error) {
	s := &server{}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if s.ln, err = net.Listen("tcp", cfg.Addr); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { s.ln.Close() })
	st, counters, err := openServeStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.store = st
	s.closers = append(s.closers, func() { st.Close() })
	accessOpts := access.Options{State: st, Logger: log}
	if counters != nil {
		s.closers = append(s.closers, func() { counters.Close() })
		accessOpts.Counter = counters
	}
	if s.tokens, err = chattoken.New(ctx, chattoken.Options{State: st, Logger: log}); err != nil {
		return nil, err
	}
	accessOpts.Chat = s.tokens
	if s.accounts, err = account.New(account.Options{State: st, Logger: log, KeyMaxDays: cfg.KeyMaxDays}); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { s.accounts.Close() })
	if err := s.openApps(ctx, cfg, log); err != nil {
		return nil, err
	}
	if s.apps != nil {
		accessOpts.Apps = s.apps
	}
	if s.access, err = access.Open(accessOpts); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { s.access.Close() })
	legacy := ""
	if cfg.State != "" {
		legacy = cfg.State + ".cursor-key"
	}
	secret, err := cursorSecret(ctx, st, legacy)
	if err != nil {
		return nil, err
	}
	if s.source, err = openSnapshotSource(ctx, cfg, log); err != nil {
		return nil, err
	}
	if s.live, err = live.Open(s.source.root, live.Options{
		Source: s.source.source, Pacer: snapshots.NewPacer(cfg.Fleet.SwapShare), SwapGCPercent: cfg.Fleet.SwapGOGC, Logger: log,
		Derive: []live.Derivation{edge.Derivation(), pokemontcg.Derivation(pokemontcg.Options{ImageURL: cfg.ImageURLTemplate})},
	}); err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.live.Close)
	// One collection service: the REST routes, MCP's chat tools and the
	// dashboard share the accounts' collections.
	s.collections = collection.New(collection.Options{State: st})
	// Collections belong to accounts: fold what keys of accounts kept as
	// their own before (once; a no-op after).
	if n, err := s.collections.Adopt(ctx, func(id string) string { k, _ := s.access.Key(id); return k.Account }); err != nil {
		return nil, err
	} else if n > 0 {
		log.Info("collections of keys folded into their accounts' collections", "keys", n)
	}
	// Alerts and webhooks (alerts.go): evaluated at start-up and after each
	// swap in the background, delivered all the time.
	if err := s.openAlerts(cfg.Alerts, log); err != nil {
		return nil, err
	}
	mcpHandler, err := cardmcp.New(cardmcp.Options{Snapshots: s.live, Access: s.access, State: st, Collections: s.collections, Alerts: s.alerts, Logger: log,
		WebsiteURL: dashboardURL(cfg.PublicURL, s.ln.Addr().String())})
	if err != nil {
		return nil, fmt.Errorf("MCP server: %w", err)
	}
	s.closers = append(s.closers, func() { mcpHandler.Close() })
	open, err := signupOpen(cfg.Signup, cfg.Addr)
	if err != nil {
		return nil, err
	}
	// The dashboard's market pages read the live snapshot the REST routes
	// serve and the collections the account's keys and chat share, and
	// spend the account's own quota, as its chat does.
	dashboard, err := web.New(web.Options{Accounts: s.accounts, Usage: s.access, PublicURL: cfg.PublicURL, Signup: open, Logger: log,
		ChatTokens: s.tokens, Snapshots: s.live, Collections: s.collections, Charge: s.access, OAuth: s.apps,
		Alerts: s.alerts, Webhooks: s.webhooks, AccountData: accountParts(s.webhooks)})
	if err != nil {
		return nil, err
	}
	eo := edge.Options{
		Snapshots: s.live, Source: s.source.source, Access: s.access, Collections: s.collections,
		CacheBytes: int64(cfg.CacheMB) << 20, WarmEntries: cfg.WarmEntries, CursorSecret: secret,
		Logger: log, Version: version, Model: agentModel(cfg), PublicURL: cfg.PublicURL,
		MCP: mcpHandler, Dashboard: dashboard, Alerts: s.alerts, Webhooks: s.webhooks,
	}
	if s.apps != nil {
		eo.Apps = s.apps
	}
	if s.edge, err = edge.New(eo); err != nil {
		return nil, err
	}
	// A new snapshot serves with the response cache's hottest entries made
	// again on it (paced as the rest of its opening), not with an empty one.
	s.live.BeforeSwap("edge cache", s.edge.WarmCache)
	return s, nil
}

// openApps opens the authorization server of connected apps (package
// oauth) at the public URL: --public-url, or the listening address when it
// is a loopback one (a laptop, tests). A server others reach without an
// https --public-url has connected apps off, and says so: an app's
// redirects and tokens must not travel in the clear.
func (s *server) openApps(ctx context.Context, cfg ServeConfig, log *slog.Logger) error {
	cimd, err := cfg.AppsTest.cimdOptions(cfg.PublicURL, s.ln.Addr())
	if err != nil {
		return err
	}
	if cfg.AppsTest.on() {
		log.Warn("connected apps: TEST-ONLY options on: Client ID Metadata Documents are fetched from private addresses or with the CAs of --oauth-cimd-ca",
			"allow_private", cfg.AppsTest.CIMDAllowPrivate, "ca", cfg.AppsTest.CIMDCAFile)
	}
	public := cfg.PublicURL
	if public == "" {
		addr := s.ln.Addr().(*net.TCPAddr)
		if !addr.IP.IsLoopback() {
			log.Warn("connected apps (OAuth for MCP hosts) are off: give --public-url https://... to turn them on")
			return nil
		}
		public = "http://" + addr.String()
	}
	apps, err := oauth.New(ctx, oauth.Options{State: s.store, Accounts: s.accounts, PublicURL: public, Logger: log,
		ServiceDocumentation: strings.TrimRight(public, "/") + edge.DocsPath, CIMD: cimd})
	if err != nil {
		if !strings.HasPrefix(public, "https://") {
			log.Warn("connected apps (OAuth for MCP hosts) are off: --public-url must be https", "public_url", public, "err", err)
			return nil
		}
		return fmt.Errorf("connected apps: %w", err)
	}
	s.apps = apps
	return nil
}

// run serves until ctx ends: it watches the live snapshot (and pulls new
// ones from the fleet's bucket), then drains and shuts down.
func (s *server) run(ctx context.Context, cfg ServeConfig, log *slog.Logger) error {
	ln := s.ln
	wctx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	go s.live.Watch(wctx, time.Second)
	s.source.run(wctx, s.live)
	log.Info("listening", "addr", ln.Addr().String(), "version", version, "dashboard", dashboardURL(cfg.PublicURL, ln.Addr().String()))
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- s.edge.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	if cfg.Fleet.Drain > 0 {
		s.edge.Drain()
		log.Info("draining: /ready answers 503 before the listener closes", "for", cfg.Fleet.Drain.String())
		time.Sleep(cfg.Fleet.Drain)
	}
	log.Info("shutting down: draining requests")
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := s.edge.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	return nil
}

// Close closes what openServer opened, last first.
func (s *server) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}
