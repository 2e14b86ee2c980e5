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
	if code == snapshots.EUNAVAILABLE {
		s.log.Warn("request needs the state store, which is unavailable", "path", string(ctx.Path()), "request_id", requestID(ctx), "err", err)
		ctx.Response.Header.Set("Retry-After", "5")
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
