package edge

import "testing"

// TestServer_RefusedTier: a call refused for its parameters (422, before it
// is authenticated and charged) says the tier of the key it carries in
// X-Service-Tier and charges nothing; without a key, or with one the
// service does not know, the Playground's.
func TestServer_RefusedTier(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	const bad = "/api/v3/cards?limit=1000"
	for _, tc := range []struct {
		name, auth, tier string
	}{
		{"elite", "Bearer " + e.elite, "elite"},
		{"free", "Bearer " + e.free, "free"},
		{"no key", "", "playground"},
		{"unknown key", "Bearer ce_p_notakey", "playground"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r memoReply
			if tc.auth == "" {
				r = e.get(t, bad)
			} else {
				r = e.get(t, bad, "Authorization", tc.auth)
			}
			if r.Status != 422 || r.Headers["X-Service-Tier"] != tc.tier {
				t.Errorf("%s: %d X-Service-Tier %q, want 422 %s", bad, r.Status, r.Headers["X-Service-Tier"], tc.tier)
			}
			if _, ok := r.Headers["RateLimit"]; ok {
				t.Errorf("a refused call says RateLimit %q: nothing was charged", r.Headers["RateLimit"])
			}
		})
	}
	// The free key's quota is whole: the refusals charged nothing.
	ok := e.get(t, "/api/v3/sets?limit=1", "Authorization", "Bearer "+e.free)
	if ok.Status != 200 || ok.Headers["X-Service-Tier"] != "free" {
		t.Fatalf("sets: %d %v", ok.Status, ok.Headers)
	}
	if got, want := ok.Headers["RateLimit"], `"daily";r=99;`; len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("RateLimit after 1 charged call and the refusals: %q, want it to start %q", got, want)
	}
}
