package e2e_test

import (
	"context"
	"encoding/json"
	"math"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardedge/cardedge/index"
	"github.com/cardedge/cardedge/index/syntax"
	"github.com/cardedge/cardedge/live"
	"github.com/cardedge/cardedge/pokemontcg"
)

// The /v2 suite (#32): pokemontcg.io's JavaScript and TypeScript SDKs,
// pointed at the running binary, load cards, sets, types, subtypes,
// supertypes and rarities, and every answer is compared with what the
// catalog says: the /v2 catalog of the snapshot the server serves, loaded
// here by pokemontcg.Load over the same files, its queries run on the same
// index (the index package checks those answers against a reference
// evaluator of the syntax over the whole catalog). Every query example of
// pokemontcg.io's documentation runs through the REST client, every answer
// checked against the OpenAPI document.

// v2Oracle is the catalog of a snapshot as /v2 serves it.
type v2Oracle struct {
	cat *pokemontcg.Catalog
	ix  *index.Index
}

// openV2Oracle loads the /v2 catalog of root's current snapshot.
func openV2Oracle(t *testing.T, root string) *v2Oracle {
	t.Helper()
	dir, _, r := openCurrent(t, root)
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	cat, err := pokemontcg.Load(live.NewView(r, ix, nil), pokemontcg.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &v2Oracle{cat: cat, ix: ix}
}

// list is every card (or set) the catalog answers for q and orderBy, in
// order.
func (o *v2Oracle) list(t *testing.T, resource, q, orderBy string) []map[string]any {
	t.Helper()
	all := pokemontcg.Paging{Page: 1, PageSize: math.MaxInt32}
	var body pokemontcg.Body
	var err error
	if resource == "sets" {
		body, err = o.cat.ListSets(q, orderBy, "", all)
	} else {
		body, err = o.cat.ListCards(context.Background(), o.ix, q, orderBy, "", all)
	}
	if err != nil {
		t.Fatalf("%s %q: %v", resource, q, err)
	}
	var m struct{ Data []map[string]any }
	if err := json.Unmarshal(body.AppendJSON(nil), &m); err != nil {
		t.Fatal(err)
	}
	return m.Data
}

// cardJSON is a card (or set) object as the catalog writes it, decoded.
func (o *v2Oracle) object(t *testing.T, resource, id string) any {
	t.Helper()
	var body pokemontcg.Body
	var err error
	if resource == "sets" {
		body, err = o.cat.GetSet(id, "")
	} else {
		body, err = o.cat.GetCard(id, "")
	}
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(body.AppendJSON(nil), &m)
	return m["data"]
}

func idsOf(objs []map[string]any) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i], _ = o["id"].(string)
	}
	return out
}

func anyIDs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m["id"].(string))
		} else {
			out = append(out, x.(string))
		}
	}
	return out
}

// v2Page is one page of a list as the catalog has it.
func v2Page(list []string, page, size int) []string {
	from, to := pokemontcg.Paging{Page: page, PageSize: size}.Window(len(list))
	return list[from:to]
}

// sdkPlan is what the SDK scripts call.
type sdkPlan struct {
	Find     string              `json:"find"`
	Where    []map[string]any    `json:"where"`
	All      []map[string]any    `json:"all"`
	SetFind  string              `json:"setFind"`
	SetsQ    string              `json:"setsQ"`
	Errors   []map[string]string `json:"errors"`
	Missing  string              `json:"missing"`
	runs     []v2Where
	errTerms []string
}

// v2Where is one where() call: its parameters as sent.
type v2Where struct {
	q, orderBy     string
	page, pageSize int
}

func newSDKPlan() *sdkPlan {
	p := &sdkPlan{Find: "base1-4", SetFind: "base1", SetsQ: "series:base", Missing: "base1-9999",
		runs: []v2Where{
			{"name:charizard", "-set.releaseDate", 1, 2},
			{"set.id:base1", "number", 2, 10},
			{"hp:[100 TO *] types:fire", "name,-number", 1, 250},
			{"nationalPokedexNumbers:[1 TO 151] -supertype:trainer", "-nationalPokedexNumbers,id", 3, 20},
			{`name:"dark charizard" OR !name:charizard`, "", 1, 250},
		},
		Errors: []map[string]string{
			{"q": "legailities.standard:legal"}, {"q": "name:charizard hp:[150 TO"}, {"q": "name:charizard (subtypes:mega"}, {"orderBy": "nmae"},
		},
		errTerms: []string{`"legailities.standard:legal" at position 0: unknown field`, `"hp:[150 TO" at position 15: unclosed range`, `"(subtypes:mega" at position 15: "(" without ")"`, `unknown field "nmae"`},
	}
	for _, w := range p.runs {
		p.Where = append(p.Where, map[string]any{"q": w.q, "orderBy": w.orderBy, "page": w.page, "pageSize": w.pageSize})
	}
	p.All = []map[string]any{{"q": "set.id:base1", "pageSize": 25}, {"q": "supertype:pokémon -set.id:base1", "orderBy": "name", "pageSize": 50}}
	return p
}

// runSDK runs an SDK script of a tool set against base with key and plan,
// and decodes what it printed.
func runSDK(t *testing.T, toolset, base, key string, plan *sdkPlan) map[string]any {
	t.Helper()
	dir := npmWorkdir(t, "e2e/testdata/"+toolset, "sdk.cjs")
	b, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BASE", base)
	t.Setenv("KEY", key)
	t.Setenv("PLAN", string(b))
	out := runNode(t, dir, 3*time.Minute, "node", "sdk.cjs")
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s: %v\n%s", toolset, err, truncate(out))
	}
	return m
}

// checkSDKResources compares what both SDKs share: the card and set found
// by id, the set search and the lists.
func checkSDKResources(t *testing.T, o *v2Oracle, plan *sdkPlan, got map[string]any) {
	t.Helper()
	if want := o.object(t, "cards", plan.Find); !reflect.DeepEqual(got["find"], want) {
		t.Errorf("card %s:\n got %v\nwant %v", plan.Find, got["find"], want)
	}
	if want := o.object(t, "sets", plan.SetFind); !reflect.DeepEqual(got["setFind"], want) {
		t.Errorf("set %s:\n got %v\nwant %v", plan.SetFind, got["setFind"], want)
	}
	for name, want := range map[string][]string{"types": o.cat.Types(), "subtypes": o.cat.Subtypes(), "supertypes": o.cat.Supertypes(), "rarities": o.cat.Rarities()} {
		if got := anyIDs(got[name]); !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

// TestV2_JavaScriptSDK drives pokemontcg.io's JavaScript SDK (npm
// pokemontcgsdk 2.0.0, host configured) with a key in X-Api-Key:
// card.find, card.where with q, orderBy, page and pageSize (each answer's
// page and totalCount as the catalog's), card.all over several pages, the
// sets, types, subtypes, supertypes and rarities, the 400s of malformed
// queries naming the term and the 404 of an unknown id.
func TestV2_JavaScriptSDK(t *testing.T) {
	o := openV2Oracle(t, env.root)
	plan := newSDKPlan()
	got := runSDK(t, "pokemontcgsdk-js", env.base, env.keys["unmetered"], plan)
	checkSDKResources(t, o, plan, got)
	for i, w := range plan.runs {
		list := idsOf(o.list(t, "cards", w.q, w.orderBy))
		page := got["where"].([]any)[i].(map[string]any)
		want := v2Page(list, w.page, w.pageSize)
		if ids := anyIDs(page["data"]); !slices.Equal(ids, want) || len(list) == 0 {
			t.Errorf("where %+v: %q, want %q", w, ids, want)
		}
		if page["totalCount"] != float64(len(list)) || page["page"] != float64(w.page) || page["pageSize"] != float64(w.pageSize) ||
			page["count"] != float64(len(want)) {
			t.Errorf("where %+v: page %v pageSize %v count %v totalCount %v, want totalCount %d", w, page["page"], page["pageSize"], page["count"], page["totalCount"], len(list))
		}
	}
	for i, args := range plan.All {
		want := idsOf(o.list(t, "cards", args["q"].(string), strOf(args["orderBy"])))
		if ids := anyIDs(got["all"].([]any)[i]); !slices.Equal(ids, want) || len(want) <= args["pageSize"].(int) {
			t.Errorf("all %v: %d cards, want %d over several pages", args, len(ids), len(want))
		}
	}
	if want := idsOf(o.list(t, "sets", "", "releaseDate")); !slices.Equal(anyIDs(got["sets"]), want) {
		t.Errorf("sets: %q, want %q", anyIDs(got["sets"]), want)
	}
	sw := got["setsWhere"].(map[string]any)
	if want := idsOf(o.list(t, "sets", plan.SetsQ, "")); sw["totalCount"] != float64(len(want)) || !slices.Equal(anyIDs(sw["data"]), want[:1]) {
		t.Errorf("sets where %q: %v, want %q", plan.SetsQ, sw, want)
	}
	for i, e := range got["errors"].([]any) {
		checkV2Error(t, e.(map[string]any), 400, plan.errTerms[i])
	}
	checkV2Error(t, got["missing"].(map[string]any), 404, `no card with id "base1-9999"`)
}

func strOf(v any) string { s, _ := v.(string); return s }

func hpOf(c map[string]any) int { n, _ := strconv.Atoi(strOf(c["hp"])); return n }

// checkV2Error checks an SDK's failure: the status, and pokemontcg.io's
// error body naming what is wrong.
func checkV2Error(t *testing.T, e map[string]any, status int, message string) {
	t.Helper()
	body, _ := e["body"].(map[string]any)
	inner, _ := body["error"].(map[string]any)
	if e["status"] != float64(status) || inner["code"] != float64(status) || !strings.Contains(strOf(inner["message"]), message) {
		t.Errorf("error %v, want %d naming %q", e, status, message)
	}
}

// TestV2_TypeScriptSDK drives pokemontcg.io's TypeScript SDK (npm
// pokemon-tcg-sdk-typescript 1.3.4, its base URL rewritten by an axios
// interceptor, the key in POKEMONTCG_API_KEY): findCardByID,
// findCardsByQueries, getAllCards over several pages (every English card,
// in catalog order), the sets, types, subtypes, supertypes and rarities,
// and a 400 naming the term.
func TestV2_TypeScriptSDK(t *testing.T) {
	o := openV2Oracle(t, env.root)
	plan := newSDKPlan()
	got := runSDK(t, "pokemontcgsdk-ts", env.base, env.keys["unmetered"], plan)
	checkSDKResources(t, o, plan, got)
	for i, w := range plan.runs {
		want := v2Page(idsOf(o.list(t, "cards", w.q, w.orderBy)), w.page, w.pageSize)
		if ids := anyIDs(got["where"].([]any)[i]); !slices.Equal(ids, want) {
			t.Errorf("findCardsByQueries %+v: %q, want %q", w, ids, want)
		}
	}
	all := idsOf(o.list(t, "cards", "", ""))
	if ids := anyIDs(got["all"]); !slices.Equal(ids, all) || len(all) <= pokemontcg.MaxPageSize {
		t.Errorf("getAllCards: %d cards, want the catalog's %d (more than a page)", len(ids), len(all))
	}
	if ids, want := anyIDs(got["sets"]), idsOf(o.list(t, "sets", "", "")); !slices.Equal(ids, want) {
		t.Errorf("getAllSets: %q, want %q", ids, want)
	}
	if ids, want := anyIDs(got["setsWhere"]), idsOf(o.list(t, "sets", plan.SetsQ, "")); !slices.Equal(ids, want) || len(want) == 0 {
		t.Errorf("findSetsByQueries: %q, want %q", ids, want)
	}
	checkV2Error(t, got["error"].(map[string]any), 400, plan.errTerms[0])
}

// v2Checks are necessary conditions of some documentation examples, read
// off each answered card: a second opinion beside the oracle, which runs
// the server's code.
var v2Checks = map[string]func(c map[string]any) bool{
	"name:charizard":  func(c map[string]any) bool { return strings.Contains(strings.ToLower(strOf(c["name"])), "charizard") },
	"!name:charizard": func(c map[string]any) bool { return strOf(c["name"]) == "Charizard" },
	"name:char*":      func(c map[string]any) bool { return strings.Contains(strings.ToLower(strOf(c["name"])), "char") },
	"nationalPokedexNumbers:[1 TO 151]": func(c map[string]any) bool {
		return slices.ContainsFunc(asStrings(c["nationalPokedexNumbers"]), func(n string) bool { x, _ := strconv.Atoi(n); return x >= 1 && x <= 151 })
	},
	"hp:[* TO 100]":              func(c map[string]any) bool { n, _ := strconv.Atoi(strOf(c["hp"])); return n > 0 && n <= 100 },
	"hp:[150 TO *]":              func(c map[string]any) bool { n, _ := strconv.Atoi(strOf(c["hp"])); return n >= 150 },
	"set.id:sm1":                 func(c map[string]any) bool { return c["set"].(map[string]any)["id"] == "sm1" },
	"legalities.standard:banned": func(c map[string]any) bool { return c["legalities"].(map[string]any)["standard"] == "Banned" },
	"subtypes:mega -types:water": func(c map[string]any) bool {
		return slices.ContainsFunc(asStrings(c["subtypes"]), func(s string) bool { return strings.Contains(strings.ToLower(s), "mega") }) &&
			!slices.Contains(asStrings(c["types"]), "Water")
	},
}

// asStrings is a JSON list of strings or numbers as strings.
func asStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if n, ok := x.(float64); ok {
			x = strconv.FormatFloat(n, 'f', -1, 64)
		}
		out = append(out, strOf(x))
	}
	return out
}

// checkV2Examples runs every query example of pokemontcg.io's
// documentation (syntax.LuceneExamples) through the REST client against
// base, every page of 250 with the key in X-Api-Key: the cards (or sets)
// and totalCount the catalog says, in its order, each answer checked
// against the OpenAPI document; it returns how many examples answered
// some card.
func checkV2Examples(t *testing.T, o *v2Oracle, base, key string) int {
	nonEmpty := 0
	for _, ex := range syntax.LuceneExamples {
		t.Run(ex.Resource+"?q="+ex.Q+"&orderBy="+ex.OrderBy, func(t *testing.T) {
			want := o.list(t, ex.Resource, ex.Q, ex.OrderBy)
			var ids []string
			for page := 1; ; page++ {
				path := "/v2/" + ex.Resource + "?q=" + url.QueryEscape(ex.Q) + "&orderBy=" + url.QueryEscape(ex.OrderBy) + "&pageSize=250&page=" + strconv.Itoa(page)
				r := doAt(t, freshClient(), base, "GET", path, "", nil, "X-Api-Key", key)
				if r.Status != 200 || r.JSON["totalCount"] != float64(len(want)) {
					t.Fatalf("%s: %d totalCount %v, want %d: %s", path, r.Status, r.JSON["totalCount"], len(want), truncate(r.Body))
				}
				data := r.JSON["data"].([]any)
				if len(data) == 0 {
					break
				}
				for _, x := range data {
					c := x.(map[string]any)
					if ok := v2Checks[ex.Q]; ok != nil && ex.Resource == "cards" && !ok(c) {
						t.Errorf("%s answers %s", ex.Q, c["id"])
					}
					ids = append(ids, c["id"].(string))
				}
			}
			if !slices.Equal(ids, idsOf(want)) {
				t.Errorf("%d items, want %d in the catalog's order", len(ids), len(want))
			}
			if len(want) > 0 {
				nonEmpty++
			}
			t.Logf("totalCount %d", len(want))
		})
	}
	return nonEmpty
}

// TestV2_Examples: the documentation's query examples on the shared tiny
// snapshot, orderBy on every documented field (each answer in the
// catalog's order), select of every top-level field, and the Playground
// without a key.
func TestV2_Examples(t *testing.T) {
	o := openV2Oracle(t, env.root)
	key := env.keys["unmetered"]
	if n := checkV2Examples(t, o, env.base, key); n < 5 {
		t.Errorf("%d examples answer cards on the tiny snapshot", n)
	}
	for _, tc := range []struct{ resource, q string }{{"cards", "set.id:base1 OR set.id:sv3pt5"}, {"sets", ""}} {
		fields := pokemontcg.CardSortFields()
		if tc.resource == "sets" {
			fields = pokemontcg.SetSortFields()
		}
		for _, f := range fields {
			for _, orderBy := range []string{f, "-" + f} {
				want := idsOf(o.list(t, tc.resource, tc.q, orderBy+",id"))
				r := do(t, freshClient(), "GET", "/v2/"+tc.resource+"?pageSize=250&q="+url.QueryEscape(tc.q)+"&orderBy="+url.QueryEscape(orderBy+",id"), "", nil, "X-Api-Key", key)
				if got := anyIDs(r.JSON["data"]); r.Status != 200 || !slices.Equal(got, v2Page(want, 1, 250)) {
					t.Errorf("%s orderBy=%s: %d %d items, want %d", tc.resource, orderBy, r.Status, len(got), len(want))
				}
			}
		}
		all := pokemontcg.CardFields
		if tc.resource == "sets" {
			all = pokemontcg.SetFields
		}
		for _, f := range all {
			r := do(t, freshClient(), "GET", "/v2/"+tc.resource+"?pageSize=250&select="+f+"&q="+url.QueryEscape(tc.q), "", nil, "X-Api-Key", key)
			seen := false
			for _, x := range r.JSON["data"].([]any) {
				for k := range x.(map[string]any) {
					if k != f {
						t.Fatalf("%s select=%s gave %s", tc.resource, f, k)
					}
					seen = true
				}
			}
			if r.Status != 200 || (!seen && f != "level" && f != "rules" && f != "ancientTrait" && f != "flavorText" && f != "evolvesTo" && f != "cardmarket" && f != "regulationMark") {
				t.Errorf("%s select=%s: %d, no item has it", tc.resource, f, r.Status)
			}
		}
	}
	// A second opinion on one key's order, read off the answers: hp as a
	// number (cards without one last, either way), names without case.
	for _, tc := range []struct {
		orderBy string
		less    func(a, b map[string]any) bool // a must not sort after b
	}{
		{"hp", func(a, b map[string]any) bool { return hpOf(b) == 0 || hpOf(a) != 0 && hpOf(a) <= hpOf(b) }},
		{"-hp", func(a, b map[string]any) bool { return hpOf(b) == 0 || hpOf(a) >= hpOf(b) }},
		{"name", func(a, b map[string]any) bool {
			return strings.ToLower(strOf(a["name"])) <= strings.ToLower(strOf(b["name"]))
		}},
	} {
		r := do(t, freshClient(), "GET", "/v2/cards?pageSize=250&q=set.id:base1&orderBy="+tc.orderBy, "", nil, "X-Api-Key", key)
		data := r.JSON["data"].([]any)
		for i := 1; i < len(data); i++ {
			if a, b := data[i-1].(map[string]any), data[i].(map[string]any); !tc.less(a, b) {
				t.Errorf("orderBy=%s: %s (%v) before %s (%v)", tc.orderBy, a["id"], a["hp"], b["id"], b["hp"])
				break
			}
		}
	}
	// Without a key: the Playground, pages of at most 50.
	r := do(t, freshClient(), "GET", "/v2/cards?pageSize=250", "", nil)
	if r.Status != 200 || r.JSON["pageSize"] != 50.0 || len(r.JSON["data"].([]any)) != 50 || r.Header.Get("X-Service-Tier") != "playground" {
		t.Errorf("playground: %d %v %s", r.Status, r.JSON["pageSize"], r.Header.Get("X-Service-Tier"))
	}
}

// TestV2_DefaultSnapshot runs the documentation's examples and the
// JavaScript SDK on the default snapshot (make test-default), where each
// of them answers cards.
func TestV2_DefaultSnapshot(t *testing.T) {
	if os.Getenv(defaultSnapshotsEnv) == "" {
		t.Skip(defaultSnapshotsEnv + " names no snapshots root (a default build: make test-default)")
	}
	e, root, se := defaultEdge(t)
	o := openV2Oracle(t, root)
	if n := checkV2Examples(t, o, e.Base, se.key); n < len(syntax.LuceneExamples)-1 {
		t.Errorf("%d of %d examples answer cards", n, len(syntax.LuceneExamples))
	}
	plan := newSDKPlan()
	got := runSDK(t, "pokemontcgsdk-js", e.Base, se.key, plan)
	checkSDKResources(t, o, plan, got)
	for i, args := range plan.All {
		want := idsOf(o.list(t, "cards", args["q"].(string), strOf(args["orderBy"])))
		if ids := anyIDs(got["all"].([]any)[i]); !slices.Equal(ids, want) {
			t.Errorf("all %v: %d cards, want %d", args, len(ids), len(want))
		}
	}
}
