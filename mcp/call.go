package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/resolve"
	"github.com/cardedge/cardedge/snapshots"
	mcpproto "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// toolDef pairs a tool's declaration with its handler and the Go types of
// its data (output.go).
type toolDef struct {
	tool mcpproto.Tool
	fn   toolFunc
	out  []any
}

// toolFunc runs one tool call and returns its data (encoded as JSON into the
// first content block) or an error (a tool error result).
type toolFunc func(t *toolCall) (any, error)

// toolCall is one tools/call being served.
type toolCall struct {
	ctx  context.Context
	srv  *Server
	name string
	call *call
	snap *live.View
	req  mcpproto.CallToolRequest
	// cost is the units this call spent (HTTP layer and tool).
	cost int
}

// envelope is the JSON of every tool result.
type envelope struct {
	Contract   string `json:"contract"`
	AsOf       string `json:"as_of"`
	SnapshotID string `json:"snapshot_id"`
	// MarketSource is the snapshot's market (synthetic, feed or sources)
	// and Synthetic whether it is synthesized as a whole.
	MarketSource string `json:"market_source"`
	Synthetic    bool   `json:"synthetic"`
	Cost         int    `json:"cost"`
	Data         any    `json:"data"`
}

// handler adapts a toolFunc to mcp-go: arguments checked against the input
// schema (validateArgs: messages that name the argument), a snapshot
// reference held, panics and errors turned into tool results (isError),
// never protocol errors.
func (s *Server) handler(d toolDef) server.ToolHandlerFunc {
	tool, fn, name := d.tool, d.fn, d.tool.Name
	return func(ctx context.Context, req mcpproto.CallToolRequest) (res *mcpproto.CallToolResult, _ error) {
		if _, ok := req.Params.Arguments.(map[string]any); !ok && req.Params.Arguments != nil {
			return errorResult(apperr.Errorf(apperr.EINVALID, "arguments must be a JSON object")), nil
		}
		if err := validateArgs(tool, req.GetArguments()); err != nil {
			return errorResult(err), nil
		}
		c, err := callOf(ctx)
		if err != nil {
			return errorResult(err), nil
		}
		snap := s.opts.Snapshots.Acquire()
		defer snap.Release()
		t := &toolCall{ctx: ctx, srv: s, name: name, call: c, snap: snap, req: req, cost: c.charged}
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("mcp tool panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
				res = errorResult(apperr.Errorf(apperr.EINTERNAL, "internal error"))
			}
		}()
		data, err := fn(t)
		if err != nil {
			if apperr.ErrorCode(err) == apperr.EINTERNAL {
				s.log.Error("mcp tool failed", "tool", name, "key", c.caller.KeyID, "err", err)
			}
			return errorResult(err), nil
		}
		if !declared(data, d.out) {
			s.log.Error("mcp tool returned an undeclared type", "tool", name, "type", fmt.Sprintf("%T", data))
			return errorResult(apperr.Errorf(apperr.EINTERNAL, "internal error")), nil
		}
		text, err := envelopeJSON("mcp."+name+".v1", snap, t.cost, data)
		if err != nil {
			s.log.Error("mcp tool result does not encode", "tool", name, "err", err)
			return errorResult(apperr.Errorf(apperr.EINTERNAL, "internal error")), nil
		}
		// The JSON as text in the first content block, and the same bytes
		// as structuredContent (the tool's outputSchema describes them).
		return mcpproto.NewToolResultStructured(json.RawMessage(text), string(text)), nil
	}
}

// callOf is the call ctx carries: the HTTP layer's, or for a caller put in
// the context without it (in-process use) a call of that caller, charged
// nothing yet. EUNAUTHORIZED without a caller with a key.
func callOf(ctx context.Context) (*call, error) {
	if c := callFrom(ctx); c != nil {
		return c, nil
	}
	caller, ok := access.CallerFromContext(ctx)
	if !ok || caller.KeyID == "" {
		return nil, apperr.Errorf(apperr.EUNAUTHORIZED, "MCP requires an API key")
	}
	return &call{caller: caller}, nil
}

// envelopeJSON encodes the envelope of a result (a tool's, a resource's):
// contract, the snapshot's as_of and id, the units spent, and data; JSON
// without HTML escaping or a trailing newline.
func envelopeJSON(contract string, snap *live.View, cost int, data any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	m := snap.Reader.Manifest()
	if err := enc.Encode(envelope{Contract: contract, AsOf: snap.AsOf.String(), SnapshotID: snap.ID(), MarketSource: m.MarketSource, Synthetic: m.Synthetic(),
		Cost: cost, Data: data}); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// errorResult is a tool error: HTTP 200, isError true, and an error.v1 JSON
// text whose message says what to change.
func errorResult(err error) *mcpproto.CallToolResult {
	return mcpproto.NewToolResultError(string(errorJSON(apperr.ErrorCode(err), apperr.ErrorMessage(err))))
}

// bind decodes the call's arguments into v (the input schema has already
// been checked by mcp-go).
func (t *toolCall) bind(v any) error {
	if err := t.req.BindArguments(v); err != nil {
		return apperr.Errorf(apperr.EINVALID, "arguments do not match the tool's input schema: %v", err)
	}
	return nil
}

// charge brings the call's cost to units (at least 1): the HTTP layer
// already spent call.charged; the rest is charged now. A refusal is an
// EQUOTA error that says what the call needed and what is left.
func (t *toolCall) charge(units int) error {
	units = max(units, 1)
	extra := units - t.call.charged
	if extra <= 0 {
		t.cost = max(t.cost, units)
		return nil
	}
	d, err := t.srv.acc.Charge(t.call.caller, extra)
	if err != nil {
		if apperr.ErrorCode(err) != apperr.EQUOTA {
			return err
		}
		if d.Reason == access.ReasonRate {
			return apperr.Errorf(apperr.EQUOTA, "%s; this call was not run (its %d extra units were not charged): retry in %d s",
				apperr.ErrorMessage(err), extra, d.RetryAfter)
		}
		return apperr.Errorf(apperr.EQUOTA, "this call costs %d units (one per unique resolved card id) but the key had %d left today (%s tier, %d per day; the quota resets at 00:00 UTC, in %d s); it was not run and only its first unit was spent: send at most %d ids, or retry after the reset (batch_grade_ladder dry_run=true previews a cost for free)",
			units, d.Remaining+t.call.charged, d.Tier, d.Limit, d.RetryAfter, d.Remaining+t.call.charged)
	}
	t.cost = units
	return nil
}

// game resolves the game argument ("" = the snapshot's first game).
func (t *toolCall) game(name string) (string, bool, error) {
	return t.snap.Game(name)
}

// checkGameFilter refuses a game filter the snapshot lacks ("" filters
// nothing: every game).
func (t *toolCall) checkGameFilter(name string) error {
	if m := t.snap.Reader.Manifest(); name != "" && !m.HasGame(name) {
		return apperr.Errorf(apperr.EINVALID, "game %q: want one of %s", name, strings.Join(m.Games, ", "))
	}
	return nil
}

// session is the id results and the active cohort are kept under.
func (t *toolCall) session() string { return t.call.session }

// checkIDs enforces the id cap of one call.
func checkIDs(field string, ids []string) error {
	if len(ids) > access.MaxJSONIDs {
		return apperr.Errorf(apperr.EINVALID, "too many %s: %d, at most %d per call; split the call", field, len(ids), access.MaxJSONIDs)
	}
	return nil
}

// parseDay parses an optional YYYY-MM-DD argument.
func parseDay(field, s string) (snapshots.Day, bool, error) {
	if s == "" {
		return 0, false, nil
	}
	d, err := snapshots.ParseDay(s)
	if err != nil {
		return 0, false, apperr.Errorf(apperr.EINVALID, "%s %q: want a date YYYY-MM-DD", field, s)
	}
	return d, true, nil
}

// historyRange resolves since/until for history rows: since is clamped to
// the caller's history window (as REST does), until defaults to as_of.
type historyRange struct {
	From, To    snapshots.Day
	FromSet     bool // From bounds the range (given, or the tier's window)
	Clamped     bool // the window raised the since the caller gave (or set one)
	HistoryDays *int // nil for unlimited tiers
	WindowStart *string
}

func (t *toolCall) historyRange(since, until string) (historyRange, error) {
	var hr historyRange
	from, fromSet, err := parseDay("since", since)
	if err != nil {
		return hr, err
	}
	to, toSet, err := parseDay("until", until)
	if err != nil {
		return hr, err
	}
	asOf := t.snap.AsOf
	if !toSet || to > asOf {
		to = asOf
	}
	tier := t.call.caller.Tier
	clamped := access.ClampSince(asOf, tier, from, fromSet)
	if start, ok := access.WindowStart(asOf, tier); ok {
		d := start.String()
		n := access.LimitsOf(tier).HistoryDays
		hr.WindowStart, hr.HistoryDays = &d, &n
		hr.Clamped = !fromSet || clamped != from
		fromSet = true
	}
	hr.From, hr.To, hr.FromSet = clamped, to, fromSet
	if hr.FromSet && hr.From > hr.To {
		return hr, apperr.Errorf(apperr.EINVALID, "since %s is after until %s", hr.From, hr.To)
	}
	return hr, nil
}

// rangeOut describes a history range in a result: since null when the
// range has no first day, history_days and window_start null for an
// unlimited tier.
type rangeOut struct {
	Until       string  `json:"until"`
	Since       *string `json:"since"`
	HistoryDays *int    `json:"history_days"`
	WindowStart *string `json:"window_start"`
	Note        string  `json:"note,omitempty"`
}

// JSON describes a history range in a result.
func (hr historyRange) JSON() rangeOut {
	out := rangeOut{Until: hr.To.String(), HistoryDays: hr.HistoryDays, WindowStart: hr.WindowStart}
	if hr.FromSet {
		out.Since = dayOrNil(hr.From, true)
	}
	if hr.Clamped {
		out.Note = fmt.Sprintf("since was raised to %s, the start of this key's %d-day history window (counted back from as_of)", hr.From, *hr.HistoryDays)
	}
	return out
}

// resolveIDs resolves a list of references, enforcing the cap.
func (t *toolCall) resolveIDs(field, game string, explicit bool, ids []string) ([]resolve.Resolution, []*snapshots.Card, error) {
	if err := checkIDs(field, ids); err != nil {
		return nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, apperr.Errorf(apperr.EINVALID, "%s is empty: give at least one card id, partner product id or card name", field)
	}
	rs, err := resolve.ResolveAll(t.ctx, t.snap, game, explicit, ids)
	if err != nil {
		return nil, nil, err
	}
	return rs, resolve.UniqueCards(rs), nil
}

// unresolved lists the references that did not resolve, for results.
type unresolved struct {
	Ref        string              `json:"ref"`
	Status     string              `json:"status"`
	Candidates []resolve.Candidate `json:"candidates,omitempty"`
	Message    string              `json:"message,omitempty"`
}

func unresolvedOf(rs []resolve.Resolution) []unresolved {
	out := []unresolved{}
	seen := map[string]bool{}
	for _, r := range rs {
		k := strings.ToLower(strings.TrimSpace(r.Ref))
		if r.Status == resolve.Resolved || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, unresolved{Ref: r.Ref, Status: r.Status, Candidates: r.Candidates, Message: r.Message})
	}
	return out
}

func cardIDs(cards []*snapshots.Card) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.ID
	}
	return out
}

func dayOrNil(d snapshots.Day, ok bool) *string {
	if !ok {
		return nil
	}
	s := d.String()
	return &s
}
