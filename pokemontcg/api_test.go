package pokemontcg_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/pokemontcg"
)

// serve runs one request of the endpoint named name on the tiny
// snapshot's view and decodes the body.
func serve(t *testing.T, name, id string, params map[string]string, rowCap int) (map[string]any, error) {
	t.Helper()
	cat := mustTiny(t)
	i := slices.IndexFunc(pokemontcg.Endpoints, func(e pokemontcg.Endpoint) bool { return e.Name == name })
	if i < 0 {
		t.Fatalf("no endpoint %s", name)
	}
	e := &pokemontcg.Endpoints[i]
	body, err := pokemontcg.Serve(context.Background(), cat, tinyView.Index, e, pokemontcg.Request{ID: id, RowCap: rowCap,
		Param: func(p string) string {
			if !slices.ContainsFunc(e.Params, func(x pokemontcg.Param) bool { return x.Name == p }) {
				t.Fatalf("%s reads undeclared parameter %s", name, p)
			}
			return params[p]
		}})
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(body.AppendJSON(nil), &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m, nil
}

func ids(t *testing.T, m map[string]any) []string {
	t.Helper()
	var out []string
	for _, x := range m["data"].([]any) {
		out = append(out, x.(map[string]any)["id"].(string))
	}
	return out
}

// TestServe_Cards: GET /v2/cards's q, orderBy, page, pageSize and select
// on the tiny snapshot: the cards q selects among the catalog's English
// ones (totalCount), in orderBy's order, paged, with the selected fields.
func TestServe_Cards(t *testing.T) {
	cat := mustTiny(t)
	count := func(keep func(name, set string) bool) int {
		n := 0
		for _, c := range cat.Cards() {
			if keep(strings.ToLower(c.Name), c.SetID) {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		q    string
		want int
	}{
		{"", len(cat.Cards())},
		{"name:charizard", count(func(n, _ string) bool { return slices.Contains(strings.Fields(n), "charizard") })},
		{"set.id:base1", count(func(_, s string) bool { return s == "en:base1" })},
		{"set.id:base1 -name:charizard", count(func(n, s string) bool { return s == "en:base1" && n != "charizard" })},
		{"name:char*", count(func(n, _ string) bool {
			return slices.ContainsFunc(strings.Fields(n), func(w string) bool { return strings.HasPrefix(w, "char") })
		})},
		{"set.id:ja:SV2a", 0}, // Japanese cards are no /v2 cards
	} {
		m, err := serve(t, "v2_cards", "", map[string]string{"q": tc.q, "pageSize": "250"}, 0)
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		if got := int(m["totalCount"].(float64)); got != tc.want || (tc.want == 0) != (tc.q == "set.id:ja:SV2a") {
			t.Errorf("%q: totalCount %d, want %d", tc.q, got, tc.want)
		}
	}

	// orderBy, every page of 7, select.
	var all []string
	for page := 1; ; page++ {
		m, err := serve(t, "v2_cards", "", map[string]string{"q": "set.id:base1", "orderBy": "-hp,name", "page": itoa(page), "pageSize": "7",
			"select": "id,name,hp"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(t, m)
		if m["page"] != float64(page) || m["pageSize"] != 7.0 || int(m["count"].(float64)) != len(got) {
			t.Fatalf("page %d: %v %v %v", page, m["page"], m["pageSize"], m["count"])
		}
		for _, x := range m["data"].([]any) {
			for k := range x.(map[string]any) {
				if k != "id" && k != "name" && k != "hp" {
					t.Fatalf("select id,name,hp gave %s", k)
				}
			}
		}
		if len(got) == 0 {
			break
		}
		all = append(all, got...)
	}
	keys, _ := pokemontcg.ParseOrderBy("cards", "-hp,name")
	for i := 1; i < len(all); i++ {
		a, b := MustCard(t, cat, all[i-1]), MustCard(t, cat, all[i])
		if pokemontcg.CompareCards(a, b, keys) > 0 {
			t.Fatalf("-hp,name: %s (%s) before %s (%s)", a.ID, a.HP, b.ID, b.HP)
		}
	}
	if len(all) != count(func(_, s string) bool { return s == "en:base1" }) {
		t.Errorf("the pages hold %d cards", len(all))
	}

	// One key, each way: the order CompareCards gives.
	for _, orderBy := range []string{"number", "-set.releaseDate", "name"} {
		m, err := serve(t, "v2_cards", "", map[string]string{"orderBy": orderBy}, 0)
		if err != nil {
			t.Fatal(err)
		}
		keys, _ := pokemontcg.ParseOrderBy("cards", orderBy)
		got := ids(t, m)
		for i := 1; i < len(got); i++ {
			if a, b := MustCard(t, cat, got[i-1]), MustCard(t, cat, got[i]); pokemontcg.CompareCards(a, b, keys) > 0 {
				t.Fatalf("orderBy=%s: %s before %s", orderBy, a.ID, b.ID)
			}
		}
	}

	// The row cap lowers the page size; so does MaxPageSize.
	for _, tc := range []struct {
		size string
		cap  int
		want float64
	}{{"250", 50, 50}, {"1000", 0, 250}, {"10", 50, 10}} {
		m, err := serve(t, "v2_cards", "", map[string]string{"pageSize": tc.size}, tc.cap)
		if err != nil || m["pageSize"] != tc.want || float64(len(m["data"].([]any))) != tc.want {
			t.Errorf("pageSize %s, cap %d: %v %v", tc.size, tc.cap, m["pageSize"], err)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestServe_Errors: a malformed parameter is EINVALID naming it (400 in
// pokemontcg.io's shape), an unknown id ENOTFOUND (404).
func TestServe_Errors(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		params   map[string]string
		code     string
		message  string
	}{
		{"v2_cards", "", map[string]string{"q": "legailities.standard:legal"}, apperr.EINVALID, `q: "legailities.standard:legal" at position 0: unknown field`},
		{"v2_cards", "", map[string]string{"q": "hp:[150 TO"}, apperr.EINVALID, `q: "hp:[150 TO" at position 0`},
		{"v2_cards", "", map[string]string{"q": "name:charizard (subtypes:mega"}, apperr.EINVALID, `q: `},
		{"v2_cards", "", map[string]string{"orderBy": "-nmae"}, apperr.EINVALID, `orderBy: unknown field "nmae"`},
		{"v2_cards", "", map[string]string{"select": "hp,nmae"}, apperr.EINVALID, `select: unknown field "nmae"`},
		{"v2_cards", "", map[string]string{"pageSize": "0"}, apperr.EINVALID, `pageSize must be a whole number from 1, not "0"`},
		{"v2_sets", "", map[string]string{"q": "hp:100"}, apperr.EINVALID, `unknown field "hp"`},
		{"v2_sets", "", map[string]string{"orderBy": "set.name"}, apperr.EINVALID, `orderBy: unknown field "set.name"`},
		{"v2_card", "ja:SV2a-025", nil, apperr.ENOTFOUND, `no card with id "ja:SV2a-025"`},
		{"v2_card", "base1-4", map[string]string{"select": "x"}, apperr.EINVALID, `select: unknown field "x"`},
		{"v2_set", "SV2a", nil, apperr.ENOTFOUND, `no set with id "SV2a"`},
	} {
		_, err := serve(t, tc.name, tc.id, tc.params, 0)
		if apperr.ErrorCode(err) != tc.code || !strings.Contains(apperr.ErrorMessage(err), tc.message) {
			t.Errorf("%s %s %v: %v, want %s %q", tc.name, tc.id, tc.params, err, tc.code, tc.message)
		}
	}
	status, body := pokemontcg.ErrorBody(apperr.EINVALID, `q: "x" bad`)
	if status != 400 || string(body) != `{"error":{"message":"q: \"x\" bad","code":400}}` {
		t.Errorf("ErrorBody = %d %s", status, body)
	}
	if status, _ := pokemontcg.ErrorBody(apperr.EQUOTA, "slow down"); status != 429 {
		t.Errorf("EQUOTA: %d", status)
	}
}

// TestServe_Resources: a card and a set by id (case ignored), the sets,
// and the lists of types, subtypes, supertypes and rarities.
func TestServe_Resources(t *testing.T) {
	cat := mustTiny(t)
	m, err := serve(t, "v2_card", "BASE1-4", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := cat.CardByID("base1-4")
	want, _ := json.Marshal(map[string]any{"data": json.RawMessage(cat.Card(c).AppendJSON(nil, pokemontcg.All))})
	if got, _ := json.Marshal(m); string(got) != string(mustCompact(t, want)) {
		t.Errorf("card:\n got %s\nwant %s", got, want)
	}
	if m, err := serve(t, "v2_set", "base1", map[string]string{"select": "id,total"}, 0); err != nil || len(m["data"].(map[string]any)) != 2 {
		t.Errorf("set: %v %v", m, err)
	}
	m, err = serve(t, "v2_sets", "", map[string]string{"orderBy": "-releaseDate"}, 0)
	if err != nil || int(m["totalCount"].(float64)) != len(cat.Sets()) || ids(t, m)[0] != "sv8pt5" {
		t.Errorf("sets: %v %v", m, err)
	}
	for name, want := range map[string][]string{"v2_types": cat.Types(), "v2_subtypes": cat.Subtypes(), "v2_supertypes": cat.Supertypes(), "v2_rarities": cat.Rarities()} {
		m, err := serve(t, name, "", nil, 0)
		var got []string
		for _, x := range m["data"].([]any) {
			got = append(got, x.(string))
		}
		if err != nil || !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: %q, want %q (%v)", name, got, want, err)
		}
	}
}

func mustCompact(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}

// TestEndpoints: names and paths are unique, every route of pokemontcg.io's
// v2 is there, and Schemas has every component Responses refers to.
func TestEndpoints(t *testing.T) {
	seen := map[string]bool{}
	schemas := pokemontcg.Schemas()
	for _, e := range pokemontcg.Endpoints {
		if seen[e.Name] || seen[e.Path] {
			t.Errorf("%s %s twice", e.Name, e.Path)
		}
		seen[e.Name], seen[e.Path] = true, true
		b, _ := json.Marshal(e.Responses())
		for _, part := range strings.Split(string(b), `"#/components/schemas/`)[1:] {
			name, _, _ := strings.Cut(part, `"`)
			if schemas[name] == nil {
				t.Errorf("%s refers to %s, which Schemas lacks", e.Name, name)
			}
		}
	}
	for _, p := range []string{"/v2/cards", "/v2/cards/{id}", "/v2/sets", "/v2/sets/{id}", "/v2/types", "/v2/subtypes", "/v2/supertypes", "/v2/rarities"} {
		if !seen[p] {
			t.Errorf("no endpoint %s", p)
		}
	}
}
