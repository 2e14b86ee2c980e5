package edge

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pokemontcg"
	"github.com/valyala/fasthttp"
)

// writeError answers err: a 422 HTTPValidationError for field errors
// (apperr.FieldErrors) and EINVALID (with loc naming the body or query),
// error.v1 otherwise, with the status of apperr.HTTPStatus (the one code ->
// status table, which MCP's HTTP layer uses too). Internal detail is logged
// once here and never shown.
func (s *Server) writeError(ctx *fasthttp.RequestCtx, err error) {
	var verrs validationErrors
	if errors.As(err, &verrs) && !isV2(ctx) {
		writeJSON(ctx, fasthttp.StatusUnprocessableEntity, map[string]any{"detail": []validationError(verrs)})
		return
	}
	code := apperr.ErrorCode(err)
	status := apperr.HTTPStatus(code)
	if code == apperr.EINVALID && !isV2(ctx) {
		loc := []any{"query"}
		if ctx.IsPost() || ctx.IsPut() {
			loc = []any{"body"}
		}
		writeJSON(ctx, status, map[string]any{"detail": []validationError{{Loc: loc, Msg: apperr.ErrorMessage(err), Type: "value_error"}}})
		return
	}
	if code == apperr.EINTERNAL {
		s.log.Error("request failed", "path", string(ctx.Path()), "request_id", requestID(ctx), "err", err)
	}
	if code == apperr.EUNAVAILABLE {
		s.log.Warn("request needs the state store, which is unavailable", "path", string(ctx.Path()), "request_id", requestID(ctx), "err", err)
		ctx.Response.Header.Set("Retry-After", "5")
	}
	writeCode(ctx, code, apperr.ErrorMessage(err))
}

// writeCode answers an error.v1 body of code and msg with the code's status;
// under /v2, pokemontcg.io's error body (its 400 for invalid input).
func writeCode(ctx *fasthttp.RequestCtx, code, msg string) {
	if isV2(ctx) {
		status, body := pokemontcg.ErrorBody(code, msg)
		writeJSON(ctx, status, json.RawMessage(body))
		return
	}
	writeJSON(ctx, apperr.HTTPStatus(code), apperr.NewErrorBody(code, msg))
}

func isV2(ctx *fasthttp.RequestCtx) bool { return bytes.HasPrefix(ctx.Path(), []byte("/v2/")) }

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

func writeRemoved(ctx *fasthttp.RequestCtx, method, path, replacement string) {
	body := apperr.NewErrorBody(apperr.EREMOVED, method+" "+path+" has been removed")
	d := &body.Error
	if replacement != "" {
		d.Message += "; use " + replacement
		d.Details = map[string]any{"replacement": replacement}
	} else {
		d.Message += " and has no replacement"
		d.Details = map[string]any{"replacement": nil}
	}
	writeJSON(ctx, apperr.HTTPStatus(apperr.EREMOVED), body)
}
