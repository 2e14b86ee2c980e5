package e2e_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/cardedge/cardedge/web/webtest"
)

// TestDashboard_UsageCountsRESTRefusals: the usage page of the real program
// counts a key's REST calls and the edge's refusals by reason (a 422, a
// 403); a dashboard page is not charged to the key. (The page itself: web's
// TestDashboard_UsageCountsRefusals.)
func TestDashboard_UsageCountsRESTRefusals(t *testing.T) {
	d := newDash(t)
	d.SignUp(webtest.UniqueEmail(t))
	secret, id := d.CreateKey("counted")
	waitStatus(t, "/api/v3/cards?limit=1", secret, 200)
	if status := apiGet(t, "/api/v3/cards?limit=abc", secret); status != 422 {
		t.Fatalf("bad limit: %d", status)
	}
	req, _ := http.NewRequest("POST", env.base+"/api/v3/cards/batch", strings.NewReader(`{"ids":["x"]}`))
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("free batch: %d", resp.StatusCode)
	}
	p := d.Get("/dashboard/usage?key=" + id)
	for _, want := range []string{"<strong>1</strong> call and <strong>2</strong> refused", "99 of 100 left (1 used)"} {
		if !strings.Contains(p.Body, want) {
			t.Errorf("the usage page lacks %q", want)
		}
	}
	if got := webtest.Refused(p); got["403"] != 1 || got["422"] != 1 || got["401"]+got["429"] != 0 {
		t.Errorf("the usage page counts refusals %v, want one 403 and one 422", got)
	}
}
