package edge

import (
	"net/url"

	"github.com/cardedge/cardedge/agent"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/collection"
	"github.com/valyala/fasthttp"
)

// Hooks for the fuzz tests in package edge_test: the parsers of untrusted
// input, driven without a server or a snapshot.

// Route is one route of the table and its query-parameter specs.
type Route struct {
	Method, Pattern string
	Params          []Param
	specs           []paramSpec
}

// Param describes one declared query parameter.
type Param struct {
	Name           string
	Kind           string // string, int, float, bool, enum, date
	MaxLen         int    // strings (0 = 256)
	Min, Max       float64
	HasMin, HasMax bool
	Enum           []string
}

// Issue is one entry of a 422 body, as parseParams made it.
type Issue struct {
	Loc       []any
	Msg, Type string
	Entry     any // the validationError itself, for JSON encoding
}

// Parsed is what parseParams accepted.
type Parsed struct {
	Canonical string            // the cache-key form
	Values    map[string]string // normalized value of every given parameter
	Ints      map[string]int
	Floats    map[string]float64
}

var kindNames = map[paramKind]string{kString: "string", kInt: "int", kFloat: "float", kBool: "bool", kEnum: "enum", kDate: "date"}

// Routes returns the route table a Server registers (removed routes left
// out).
func Routes() []Route {
	s := &Server{router: newRouter()}
	s.registerRoutes()
	var out []Route
	for _, rt := range s.router.routes {
		if rt.removed {
			continue
		}
		r := Route{Method: rt.method, Pattern: rt.pattern, specs: rt.params}
		for _, p := range rt.params {
			r.Params = append(r.Params, Param{Name: p.name, Kind: kindNames[p.kind], MaxLen: p.maxLen, Min: p.min, Max: p.max,
				HasMin: p.hasMin, HasMax: p.hasMax, Enum: p.enum})
		}
		out = append(out, r)
	}
	return out
}

// Parse validates a raw query string against the route's parameters, then
// applies a row cap to limit as the front door does (0 = none).
func (r Route) Parse(query []byte, rowCap int) (Parsed, []Issue) {
	var args fasthttp.Args
	args.ParseBytes(query)
	p, verrs := parseParams(&args, r.specs)
	if len(verrs) > 0 {
		issues := make([]Issue, len(verrs))
		for i, e := range verrs {
			issues[i] = Issue{Loc: e.Loc, Msg: e.Msg, Type: e.Type, Entry: e}
		}
		return Parsed{}, issues
	}
	for _, s := range r.specs {
		if s.name == "limit" && rowCap > 0 && p.int("limit") > rowCap {
			p.setInt("limit", rowCap)
		}
	}
	out := Parsed{Canonical: string(p.canonical(nil)), Values: map[string]string{}, Ints: map[string]int{}, Floats: map[string]float64{}}
	for i, v := range p.values {
		name := r.specs[i].name
		if v.set || (name == "limit" && rowCap > 0 && v.s != "") {
			out.Values[name] = v.s
		}
		out.Ints[name], out.Floats[name] = v.i, v.f
	}
	return out, nil
}

// Query encodes values as a query string (what a client resending the
// normalized request would send).
func Query(values map[string]string) []byte {
	q := url.Values{}
	for k, v := range values {
		q.Set(k, v)
	}
	return []byte(q.Encode())
}

// BatchIssue is one rejection of a batch body.
type BatchIssue struct {
	Loc       []any
	Msg, Type string
}

// DecodeBatch decodes a batch body against games; it returns the game and
// profile it settled on, the unique ids, or the rejections (ok false when the
// error is not a validation error).
func DecodeBatch(body []byte, games []string) (game, profile string, ids []string, issues []BatchIssue, ok bool) {
	b, ids, err := decodeBatch(body, games)
	if err == nil {
		return b.Game, b.Profile, ids, nil, true
	}
	verrs, isV := err.(validationErrors)
	if !isV {
		return "", "", nil, nil, false
	}
	for _, e := range verrs {
		issues = append(issues, BatchIssue{Loc: e.Loc, Msg: e.Msg, Type: e.Type})
	}
	return "", "", nil, issues, true
}

// BodyParsers are the readers of POST bodies that need no snapshot, by name
// (prices decodes inside its handler: the HTTP fuzz target covers it).
var BodyParsers = map[string]func(body []byte) error{
	"batch":           func(b []byte) error { _, _, err := decodeBatch(b, []string{"pokemon", "onepiece"}); return err },
	"sql":             func(b []byte) error { _, err := parseSQLBody(b); return err },
	"imports_json":    func(b []byte) error { _, err := collection.ParseUpload(b, "application/json"); return err },
	"imports_csv":     func(b []byte) error { _, err := collection.ParseUpload(b, "text/csv; charset=utf-8"); return err },
	"imports_sniff":   func(b []byte) error { _, err := collection.ParseUpload(b, ""); return err },
	"imports_confirm": func(b []byte) error { _, err := collection.ParseConfirm(b); return err },
	"chat":            func(b []byte) error { _, err := agent.ParseChat(b); return err },
}

// Rejection classifies an error of a body parser: the loc of every 422 entry
// with its msg and type, or (nil, code) for an error the one table maps.
func Rejection(err error) (issues []BatchIssue, code string) {
	if verrs, ok := err.(validationErrors); ok {
		for _, e := range verrs {
			issues = append(issues, BatchIssue{Loc: e.Loc, Msg: e.Msg, Type: e.Type})
		}
		return issues, ""
	}
	return nil, apperr.ErrorCode(err)
}

// Status is the HTTP status the one table gives an error code.
func Status(code string) int { return apperr.HTTPStatus(code) }
