package edge_test

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cardedge/cardedge/edge"
	"github.com/cardedge/cardedge/snapshots"
)

// paramSeeds are query strings every route is seeded with: valid and
// invalid values of each kind, hostile encodings and huge numbers.
var paramSeeds = []string{
	"", "limit=0", "limit=1", "limit=200", "limit=201", "limit=-1", "limit=abc", "limit=%20%205", "limit=1e3",
	"offset=99999999999", "offset=999999999999999999", "offset=9999999999999999999", "offset=-0", "offset=+7",
	"limit=%ff", "q=%ff%fe", "q=%00", "q=a%00b", "q=" + strings.Repeat("x", 300), "q=" + strings.Repeat("%C3%A9", 257),
	"date_from=2026-02-30", "date_from=2026-1-1", "since=20261120", "since=+02026-11-2", "date_to=9999-12-31",
	"date_from=0000-01-01", "window=all", "window=2d", "window_days=366", "window_days=0",
	"grade_num=NaN", "grade_num=Inf", "grade_num=-0", "grade_num=1e309", "grade_num=0x10", "grade_num=10.0000000001",
	"include_filtered=maybe", "include_filtered=YES", "include_filtered=", "cursor=..", "cursor=" + strings.Repeat("A", 513),
	"sort=price&order=asc&limit=5&offset=5", "limit=5&limit=500", "li%6dit=0", "language=fr", "language=EN",
	"q=%2e%2e%2f%2e%2e%2fetc%2fpasswd", "set_id=../../etc", "game=chess", "game=" + strings.Repeat("g", 40),
	"interval=week&method=tvwap&grade=slab:10", "grade=raw:near_mint", "metric=composite&window=7d&grader=bgs&grade_num=9.5",
	"ids=en:base1-4,en:base1-2&source=all", "strict=true", "min_price=-1&max_price=1e400",
	"q=%", "q=%%", "q=a+b", "&&&=&", "=x", "limit", "limit=&offset=",
}

// FuzzParams drives the query-parameter validation of every route with
// fuzzed query strings. Properties: no panic; every rejection is a 422 entry
// with loc ["query", <a declared parameter>], a message and a type, and
// encodes as JSON; every accepted value is within its declared type and
// bounds; normalizing is idempotent (resending the normalized values gives
// the same cache key, also after the Playground row cap lowers limit).
func FuzzParams(f *testing.F) {
	routes := edge.Routes()
	if len(routes) == 0 {
		f.Fatal("no routes")
	}
	for i := range routes {
		f.Add(uint16(i), []byte("limit=201&offset=-1&q=%ff&since=2026-02-30&include_filtered=maybe&window=2d"))
	}
	for j, q := range paramSeeds {
		f.Add(uint16(j%len(routes)), []byte(q))
	}
	f.Fuzz(func(t *testing.T, which uint16, query []byte) {
		rt := routes[int(which)%len(routes)]
		checkParse(t, rt, query, 0)
		checkParse(t, rt, query, 50) // the Playground row cap
	})
}

func checkParse(t *testing.T, rt edge.Route, query []byte, rowCap int) {
	t.Helper()
	declared := map[string]edge.Param{}
	for _, p := range rt.Params {
		declared[p.Name] = p
	}
	got, issues := rt.Parse(query, rowCap)
	if len(issues) > 0 {
		for _, is := range issues {
			name, _ := is.Loc[len(is.Loc)-1].(string)
			if len(is.Loc) != 2 || is.Loc[0] != "query" || declared[name].Name == "" {
				t.Fatalf("%s %s ?%q: loc %v does not name a declared query parameter", rt.Method, rt.Pattern, query, is.Loc)
			}
			if is.Msg == "" || is.Type == "" {
				t.Fatalf("%s ?%q: entry without msg or type: %+v", rt.Pattern, query, is)
			}
			if _, err := json.Marshal(is.Entry); err != nil {
				t.Fatalf("%s ?%q: entry does not encode: %v", rt.Pattern, query, err)
			}
		}
		return
	}
	for name, v := range got.Values {
		p := declared[name]
		switch p.Kind {
		case "string":
			maxLen := p.MaxLen
			if maxLen == 0 {
				maxLen = 256
			}
			if !utf8.ValidString(v) || utf8.RuneCountInString(v) > maxLen || strings.IndexByte(v, 0) >= 0 {
				t.Fatalf("%s ?%q: accepted %s=%q (max %d characters, UTF-8, no NUL)", rt.Pattern, query, name, v, maxLen)
			}
		case "int", "float":
			n := got.Floats[name]
			if p.Kind == "int" && float64(got.Ints[name]) != n {
				t.Fatalf("%s ?%q: %s int %d, float %v", rt.Pattern, query, name, got.Ints[name], n)
			}
			if (p.HasMin && n < p.Min) || (p.HasMax && n > p.Max) || n != n {
				t.Fatalf("%s ?%q: accepted %s=%v outside [%v, %v]", rt.Pattern, query, name, n, p.Min, p.Max)
			}
			if name == "limit" && rowCap > 0 && n > float64(rowCap) {
				t.Fatalf("%s ?%q: limit %v above the row cap %d", rt.Pattern, query, n, rowCap)
			}
		case "enum":
			found := false
			for _, e := range p.Enum {
				found = found || e == v
			}
			if !found {
				t.Fatalf("%s ?%q: accepted %s=%q, not one of %v", rt.Pattern, query, name, v, p.Enum)
			}
		case "bool":
			if v != "true" && v != "false" {
				t.Fatalf("%s ?%q: bool %s normalized to %q", rt.Pattern, query, name, v)
			}
		case "date":
			if _, err := snapshots.ParseDay(v); err != nil || len(v) != 10 {
				t.Fatalf("%s ?%q: accepted date %s=%q", rt.Pattern, query, name, v)
			}
		}
	}
	again, issues := rt.Parse(edge.Query(got.Values), rowCap)
	if len(issues) > 0 {
		t.Fatalf("%s ?%q: the normalized query %q is refused: %+v", rt.Pattern, query, edge.Query(got.Values), issues[0])
	}
	if again.Canonical != got.Canonical {
		t.Fatalf("%s ?%q: normalizing is not idempotent:\n%q\n%q", rt.Pattern, query, got.Canonical, again.Canonical)
	}
}

// FuzzBatchBody checks the POST /api/v3/cards/batch body decoder.
// Properties: no panic; a rejection is a validation error located in the
// body with a message and a type; an accepted body is one valid JSON value
// with 1 to 128-character ids, unique ignoring case, a known profile and
// game.
func FuzzBatchBody(f *testing.F) {
	for _, s := range []string{
		`{"ids":["en:base1-4","EN:BASE1-4","en:nope"],"profile":"market"}`,
		`{"ids":["en:base1-4"],"game":"onepiece","profile":"full"}`,
		`{"ids":"x"}`, `{"ids":[]}`, `{"ids":[""]}`, `{"ids":[null]}`, `null`, `[]`, ``, `{`, `{"ids":["a"]}{"ids":["b"]}`,
		`{"ids":["a"]} x`, `{"ids":["a"],"ids":["b"]}`, `{"ids":["a"],"game":"chess","profile":"max"}`,
		`{"ids":["` + strings.Repeat("x", 129) + `"]}`, `{"ids":["\u0000"]}`, "{\"ids\":[\"\xff\xfe\"]}",
		`{"ids":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`,
		`{"x":` + strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000) + `,"ids":["a"]}`,
		`{"ids":["a"],"profile":1e999}`, `{"IDS":["a"]}`,
	} {
		f.Add([]byte(s))
	}
	games := []string{"pokemon", "onepiece"}
	f.Fuzz(func(t *testing.T, body []byte) {
		game, profile, ids, issues, ok := edge.DecodeBatch(body, games)
		if !ok {
			t.Fatalf("%q: rejected with an error that is not a validation error", body)
		}
		if len(issues) > 0 {
			for _, is := range issues {
				if len(is.Loc) == 0 || is.Loc[0] != "body" || is.Msg == "" || is.Type == "" {
					t.Fatalf("%q: bad rejection %+v", body, is)
				}
			}
			return
		}
		if !json.Valid(bytes.TrimSpace(body)) {
			t.Fatalf("accepted %q, which is not one JSON value", body)
		}
		if len(ids) == 0 || (profile != "core" && profile != "market" && profile != "full") || (game != games[0] && game != games[1]) {
			t.Fatalf("%q: accepted ids %q, profile %q, game %q", body, ids, profile, game)
		}
		seen := map[string]bool{}
		for _, id := range ids {
			k := strings.ToLower(id)
			if id == "" || len(id) > 128 || seen[k] {
				t.Fatalf("%q: accepted id %q (1 to 128 characters, unique)", body, id)
			}
			seen[k] = true
		}
	})
}

// FuzzBodies feeds one fuzzed body to every POST body reader that needs no
// snapshot (batch, SQL, imports as JSON, CSV and sniffed, import confirm,
// agent chat). Properties: no panic; a rejection is either a 422 whose every
// entry is located in the body with a message and a type, or an error code
// the one table maps to a 4xx (413 for an oversized upload), never a 5xx.
func FuzzBodies(f *testing.F) {
	for _, s := range []string{
		`{"sql":"SELECT 1"}`, `{"query":"SELECT 1"}`, `{"sql":1}`, `{"sql":"  "}`, `{"sql":null}`, `null`, `[]`,
		`[{"card_id":"en:base1-4","quantity":2,"price_paid":"$1,000.50"}]`, `{"rows":[{"name":"Charizard","set":"Base","number":"4/102"}]}`,
		"name,set,number,quantity\nCharizard,Base,4/102,1\n", "name;set\n\"a;b\";c\n", "\xef\xbb\xbfcard_id\nen:base1-4\n",
		"a,b\n\"unterminated\n", "name\n\xff\xfe\n", `{"preview_id":"imp_x","choices":{"1":"en:base1-4"}}`, `{"preview_id":"x"}`,
		`{"message":"price of charizard"}`, `{"messages":[{"role":"system","content":"x"}]}`, `{"messages":[{"role":"user","content":""}]}`,
		`{"messages":` + strings.Repeat("[", 11000) + `}`, `{"ids":["a"]}garbage`,
	} {
		f.Add([]byte(s))
	}
	names := make([]string, 0, len(edge.BodyParsers))
	for n := range edge.BodyParsers {
		names = append(names, n)
	}
	sort.Strings(names)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, name := range names {
			err := edge.BodyParsers[name](body)
			if err == nil {
				continue
			}
			issues, code := edge.Rejection(err)
			if issues == nil {
				if st := edge.Status(code); st < 400 || st >= 500 {
					t.Fatalf("%s %q: %v (code %s, status %d), want a 4xx", name, truncateBytes(body), err, code, st)
				}
				continue
			}
			for _, is := range issues {
				if len(is.Loc) == 0 || is.Loc[0] != "body" || is.Msg == "" || is.Type == "" {
					t.Fatalf("%s %q: bad 422 entry %+v", name, truncateBytes(body), is)
				}
			}
		}
	})
}

func truncateBytes(b []byte) []byte {
	if len(b) > 200 {
		return b[:200]
	}
	return b
}
