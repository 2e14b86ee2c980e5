package mcp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/collection"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/state"
	"github.com/mark3labs/mcp-go/server"
)

// Name and Version are the server's identity in initialize (serverInfo);
// Version is also the mcp_version the edge reports on /health. Title and
// Description are what hosts show of it (serverInfo.title and description,
// with the icons of icon.go).
const (
	Name        = "cardedge"
	Version     = "1.1.0"
	Title       = "cardedge: trading-card market data"
	Description = "Fair prices from verified sales, sales, listings and grade ladders of trading cards, per card, printing and grade, " +
		"as of the live snapshot; cohorts, a collection and prompts for the common questions."
)

// Defaults of Options.
const (
	DefaultSessionIdleTTL    = 12 * time.Hour
	DefaultCohortTTL         = 7 * 24 * time.Hour
	DefaultMaxSessionsPerKey = 64
	DefaultMaxCohortsPerKey  = 256
	// ResultHandlesPerSession is how many result handles a session keeps
	// (the newest).
	ResultHandlesPerSession = 32
)

// Snapshots is the live snapshot as the tools read it: package live's Live.
type Snapshots interface {
	// Acquire pins the live snapshot (View.Release unpins it).
	Acquire() *live.View
}

// Options configure a Server. Every zero value has a documented default
// except the required fields.
type Options struct {
	// Snapshots is the live snapshot (required). Each tool call pins it.
	Snapshots Snapshots
	// Access charges tool calls (required). The caller of every request
	// must be in its context (access.WithCaller): the HTTP layer in front
	// (edge) authenticates.
	Access *access.Service
	// State is the state store, where cohorts are kept (bucket
	// state.Cohorts; required).
	State state.Store
	// Collections is the collections service of the collection tools
	// (list_collection, add_to_collection, remove_from_collection: chat
	// tools); nil leaves them out.
	Collections *collection.Service
	// Alerts keeps the accounts' want lists and alert rules (package
	// alert's Service) for the alert tools (list_alerts, create_alert,
	// delete_alert, add_to_want_list, recent_alerts: chat tools,
	// tool_alerts.go); nil leaves them out.
	Alerts Alerts
	// Logger receives internal errors of tools; nil discards.
	Logger *slog.Logger
	// Now is the clock of cohort expiry (as the cohorts report it; the
	// state store's own clock removes them); nil means time.Now.
	Now func() time.Time
	// SessionIdleTTL ends sessions idle that long; 0 means
	// DefaultSessionIdleTTL.
	SessionIdleTTL time.Duration
	// CohortTTL is how long a pinned cohort lives; 0 means DefaultCohortTTL.
	CohortTTL time.Duration
	// MaxSessionsPerKey bounds the live sessions of one key; initializing
	// one more ends the key's least recently used session. 0 means
	// DefaultMaxSessionsPerKey.
	MaxSessionsPerKey int
	// MaxCohortsPerKey bounds the live cohorts of one key; pinning one more
	// drops its oldest. 0 means DefaultMaxCohortsPerKey.
	MaxCohortsPerKey int
	// WebsiteURL is the server's home page in initialize
	// (serverInfo.websiteUrl: the dashboard at the public URL); "" leaves
	// it out.
	WebsiteURL string
}

// Server is the MCP server: an http.Handler for /api/v3/mcp/ behind an
// authenticating HTTP layer. It is safe for concurrent use.
type Server struct {
	opts     Options
	log      *slog.Logger
	acc      *access.Service
	mcp      *server.MCPServer
	http     *server.StreamableHTTPServer
	sessions *sessions
	cohorts  *cohortStore
}

// New builds the server: its ten public tools, the chat tools that only
// callers with the chat tools see (tool_chat.go), its resources
// (resources.go) and prompts (prompts.go).
func New(opts Options) (*Server, error) {
	if opts.Snapshots == nil || opts.Access == nil || opts.State == nil {
		return nil, errors.New("mcp: Options.Snapshots, Access and State are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SessionIdleTTL <= 0 {
		opts.SessionIdleTTL = DefaultSessionIdleTTL
	}
	if opts.CohortTTL <= 0 {
		opts.CohortTTL = DefaultCohortTTL
	}
	if opts.MaxSessionsPerKey <= 0 {
		opts.MaxSessionsPerKey = DefaultMaxSessionsPerKey
	}
	if opts.MaxCohortsPerKey <= 0 {
		opts.MaxCohortsPerKey = DefaultMaxCohortsPerKey
	}
	s := &Server{
		opts: opts, log: opts.Logger, acc: opts.Access,
		sessions: newSessions(opts.MaxSessionsPerKey, opts.Now),
		cohorts:  newCohortStore(opts.State, opts.CohortTTL, opts.MaxCohortsPerKey, opts.Now),
	}
	info := []server.ServerOption{
		server.WithTitle(Title),
		server.WithDescription(Description),
		server.WithIcons(icons()...),
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false),
		server.WithStrictInputSchemaDefault(),
		server.WithInstructions(instructions),
		server.WithToolFilter(chatToolFilter),
		server.WithPromptFilter(promptFilter),
	}
	if opts.WebsiteURL != "" {
		info = append(info, server.WithWebsiteURL(opts.WebsiteURL))
	}
	s.mcp = server.NewMCPServer(Name, Version, info...)
	for _, t := range append(s.tools(), s.chatToolDefs()...) {
		s.mcp.AddTool(t.tool, s.handler(t))
	}
	s.addResources()
	s.addPrompts()
	s.http = server.NewStreamableHTTPServer(s.mcp,
		server.WithStateful(true),
		server.WithSessionIdManagerResolver(sessionResolver{s.sessions}),
		server.WithDisableStreaming(true),
		server.WithSessionIdleTTL(opts.SessionIdleTTL),
		server.WithHTTPContextFunc(httpContext),
		server.WithStreamableHTTPLogger(opts.Logger),
	)
	return s, nil
}

// Close stops the session sweeper and ends every session.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return s.http.Shutdown(ctx)
}

// instructions is sent in initialize: how to use the tools well.
const instructions = `cardedge: trading-card market data (prices, sales, listings) for the games of the live snapshot.
Resolve cards first with search (q for one lookup, ids to batch-resolve card ids, TCGplayer product ids, cardmarket:<idProduct> ids or names), then quote or read history with the ids it returns.
Every result says the snapshot's market_source: synthetic means invented numbers (the offline default), never real prices; sources means the marketplaces' files, and each price says its source (tcgplayer, cardmarket, pricecharting, observed sales).
Every tools/call costs at least 1 unit of the key's daily quota; batch tools cost their unique resolved ids (batch_grade_ladder dry_run=true previews the cost for free). At most 1000 ids per call.
History rows (get_sales, get_prices, rank_set_sales) are limited to the key's tier history window, counted back from the snapshot's as_of.
Cohorts: pin a working set with pin_cohort (or compare_set_finish) and pass its cohort_handle to batch_grade_ladder and rank_set_sales; handles live 7 days.
Resources (JSON, 1 unit a read): cardedge://cards/{id} (a card and each printing's price), cardedge://sets/{id}, cardedge://movers/{game} (the week's biggest fmv moves) and cardedge://me/collection (chat tools' callers only). Prompts: compare_printings, what_moved_this_week, value_my_collection.`

// ServeHTTP serves one MCP request (see the package doc for the HTTP rules).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serveHTTP(w, r) }

var _ http.Handler = (*Server)(nil)
