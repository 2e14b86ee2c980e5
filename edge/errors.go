package edge

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

// writeError answers err: a 422 HTTPValidationError for field errors
// (snapshots.FieldErrors) and EINVALID (with loc naming the body or query),
// error.v1 otherwise, with the status of snapshots.HTTPStatus (the one code ->
// status table, which MCP's HTTP layer uses too). Internal detail is logged
// once here and never shown.
func (s *Server) writeError(ctx *fasthttp.RequestCtx, err error) {
	var verrs validationErrors
	if errors.As(err, &verrs) {
		writeJSON(ctx, fasthttp.StatusUnprocessableEntity, map[string]any{"detail": []validationError(verrs)})
		return
	}
	code := snapshots.ErrorCode(err)
	status := snapshots.HTTPStatus(code)
	if code == snapshots.EINVALID {
		loc := []any{"query"}
		if ctx.IsPost() {
			loc = []any{"body"}
		}
		writeJSON(ctx, status, map[string]any{"detail": []validationError{{Loc: loc, Msg: snapshots.ErrorMessage(err), Type: "value_error"}}})
		return
	}
	if code == snapshots.EINTERNAL {
		s.log.Error("request failed", "path", string(ctx.Path()), "request_id", requestID(ctx), "err", err)
	}
	writeCode(ctx, code, snapshots.ErrorMessage(err))
}

// writeCode answers an error.v1 body of code and msg with the code's status.
func writeCode(ctx *fasthttp.RequestCtx, code, msg string) {
	writeJSON(ctx, snapshots.HTTPStatus(code), snapshots.NewErrorBody(code, msg))
}

func writeJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	b := bytes.TrimRight(buf.Bytes(), "\n")
	if err != nil {
		status = fasthttp.StatusInternalServerError
		b = []byte(`{"contract":"error.v1","error":{"code":"internal","message":"internal error"}}`)
	}
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
}

// removedRoutes are withdrawn routes: 404 with code removed and the path to
// use instead.
var removedRoutes = []struct{ method, pattern, replacement string }{
	{"GET", "/api/v3/analytics/grade-premium", ""},
	{"GET", "/api/v3/analytics/kfactor", ""},
	{"GET", "/api/v3/cards/summary", "GET /api/v3/cards/{id} or GET /api/v3/cards?limit=N"},
	{"GET", "/api/v3/cards/timeseries", "GET /api/v3/cards/{id}/market-history"},
	{"GET", "/api/v3/cards/{id}/bundle", "GET /api/v3/cards/{id}, /chart-series, /sales, and the partner history route individually"},
	{"GET", "/api/v3/lists", ""},
	{"GET", "/api/v3/lists/{id}", ""},
	{"PATCH", "/api/v3/lists/{id}", ""},
	{"PATCH", "/api/v3/lists/{id}/items/{item_id}", ""},
	{"POST", "/api/v3/lists", ""},
	{"POST", "/api/v3/lists/{id}/items", ""},
	{"GET", "/api/v3/marketplaces", ""},
	{"GET", "/api/v3/me/portfolio/history", ""},
	{"GET", "/api/v3/me/portfolio/mark-preview", ""},
	{"GET", "/api/v3/me/portfolio/valuation", ""},
	{"GET", "/api/v3/me/watchlist/movers", ""},
	{"GET", "/api/v3/sales", "GET /api/v3/cards/{id}/sales"},
	{"POST", "/api/v3/cards/analytics/batch", "GET /api/v3/cards/{id}/analytics per card"},
	{"POST", "/api/v3/events/share", ""},
	{"POST", "/api/v3/feedback", ""},
}

func writeRemoved(ctx *fasthttp.RequestCtx, method, path, replacement string) {
	body := snapshots.NewErrorBody(snapshots.EREMOVED, method+" "+path+" has been removed")
	d := &body.Error
	if replacement != "" {
		d.Message += "; use " + replacement
		d.Details = map[string]any{"replacement": replacement}
	} else {
		d.Message += " and has no replacement"
		d.Details = map[string]any{"replacement": nil}
	}
	writeJSON(ctx, snapshots.HTTPStatus(snapshots.EREMOVED), body)
}
