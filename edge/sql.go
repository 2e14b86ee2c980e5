package edge

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/snapshots/gold"
)

// The guarded SQL passthrough (contract sql-query.v1): internal, for keys
// created with --sql only, left out of the public OpenAPI document and of MCP.
// The guard itself (one read-only SELECT/WITH statement, no ATTACH, no
// PRAGMA, no extensions, 1 s, 1,000 rows) lives in snapshots/gold.

func (s *Server) registerSQLRoutes() {
	s.router.add(&route{method: "POST", pattern: "/api/v3/sql", name: "sql_query", contract: "sql-query.v1", internal: true,
		summary: "Guarded read-only SQL over the gold tables (internal allowlist)", schema: "SQLQuery",
		cost: sqlCost, handle: handleSQLQuery})
	s.router.add(&route{method: "GET", pattern: "/api/v3/sql/schema", name: "sql_schema", contract: "sql-schema.v1", internal: true, cacheable: true,
		summary: "Tables, columns and limits of the SQL passthrough (internal allowlist)", schema: "SQLSchema",
		cost: sqlSchemaCost, handle: handleSQLSchema})
}

// sqlBody is the request body: {"sql": "..."}; other properties are ignored.
type sqlBody struct {
	SQL string
}

// parseSQLBody decodes the body. A body that names the text query instead
// of sql is refused with a message that says so.
func parseSQLBody(body []byte) (sqlBody, error) {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&fields); err != nil || fields == nil {
		msg := "body must be a JSON object {\"sql\": \"SELECT ...\"}"
		if err != nil {
			msg += ": " + err.Error()
		}
		return sqlBody{}, validationErrors{{Loc: []any{"body"}, Msg: msg, Type: "json_invalid"}}
	}
	raw, ok := fields["sql"]
	if !ok {
		if _, q := fields["query"]; q {
			return sqlBody{}, validationErrors{{Loc: []any{"body", "sql"}, Msg: "Field required: the SQL text goes in the field \"sql\", not \"query\": send {\"sql\": \"SELECT ...\"}", Type: "missing"}}
		}
		return sqlBody{}, validationErrors{{Loc: []any{"body", "sql"}, Msg: "Field required: the SQL text goes in \"sql\"", Type: "missing"}}
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return sqlBody{}, validationErrors{{Loc: []any{"body", "sql"}, Msg: "Input should be a valid string", Type: "string_type"}}
	}
	if strings.TrimSpace(text) == "" {
		return sqlBody{}, validationErrors{{Loc: []any{"body", "sql"}, Msg: "the SQL text is empty", Type: "string_too_short"}}
	}
	return sqlBody{SQL: text}, nil
}

// sqlCost refuses callers off the allowlist (403) and bad bodies (422)
// before anything is charged; a query costs one unit.
func sqlCost(r *request) (int, error) {
	if err := access.CheckSQL(r.caller); err != nil {
		return 0, err
	}
	if _, err := parseSQLBody(r.body); err != nil {
		return 0, err
	}
	return 1, nil
}

func sqlSchemaCost(r *request) (int, error) {
	if err := access.CheckSQL(r.caller); err != nil {
		return 0, err
	}
	return 1, nil
}

// sqlPayload is gold.Result with the snapshot it ran on.
type sqlPayload struct {
	*gold.Result
	SnapshotID string `json:"snapshot_id"`
	AsOf       string `json:"as_of"`
}

func handleSQLQuery(r *request) (any, error) {
	b, err := parseSQLBody(r.body)
	if err != nil {
		return nil, err
	}
	res, err := r.snap.Gold.Query(r.ctx, b.SQL)
	if err != nil {
		return nil, sqlRefusal(r, err)
	}
	return sqlPayload{Result: res, SnapshotID: r.snap.Manifest().SnapshotID, AsOf: r.snap.AsOf.String()}, nil
}

// sqlRefusal turns the runner's EINVALID errors into a 422 located at
// body.sql whose type says which rule refused the query; a busy runner gets
// Retry-After.
func sqlRefusal(r *request, err error) error {
	switch apperr.ErrorCode(err) {
	case apperr.EINVALID:
		msg := apperr.ErrorMessage(err)
		typ := "sql_refused"
		switch {
		case strings.Contains(msg, "time limit"):
			typ = "sql_time_limit"
		case strings.HasPrefix(msg, "SQL error"):
			typ = "sql_error"
		case strings.HasPrefix(msg, "the result exceeds"):
			typ = "sql_result_too_large"
		}
		return validationErrors{{Loc: []any{"body", "sql"}, Msg: msg, Type: typ}}
	case apperr.EQUOTA:
		r.ctx.Response.Header.Set("Retry-After", "1")
	}
	return err
}

type sqlSchemaPayload struct {
	Tables     []gold.Table   `json:"tables"`
	Limits     map[string]any `json:"limits"`
	Rules      []string       `json:"rules"`
	SnapshotID string         `json:"snapshot_id"`
	AsOf       string         `json:"as_of"`
}

func handleSQLSchema(r *request) (any, error) {
	return sqlSchemaPayload{
		Tables: r.snap.Gold.Schema(),
		Limits: map[string]any{
			"max_rows": gold.DefaultMaxRows, "time_limit_ms": gold.DefaultTimeout.Milliseconds(),
			"max_result_bytes": gold.DefaultMaxBytes, "max_sql_bytes": gold.MaxSQLBytes,
		},
		Rules: []string{
			"exactly one SELECT or WITH ... SELECT statement; no INSERT, UPDATE, DELETE, CREATE, DROP, ATTACH, PRAGMA, VACUUM or transactions",
			"no bound parameters and no extension loading",
			"rows beyond max_rows are cut and truncated is true; a larger result than max_result_bytes is refused",
			"money is *_usd (REAL, two decimals) and *_cents (INTEGER); dates are TEXT YYYY-MM-DD; verified sales are WHERE hidden = 0",
		},
		SnapshotID: r.snap.Manifest().SnapshotID, AsOf: r.snap.AsOf.String(),
	}, nil
}
