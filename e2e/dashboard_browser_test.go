package e2e_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The dashboard in a real browser: the cardedge binary serving a fresh state
// file, driven by headless Chromium (browser_test.go). Screenshots of every
// page at 1280x800 and 390x844 go to var/screenshots/dashboard/
// (git-ignored); at 390 px no page may scroll sideways.

func statusOf(t *testing.T, base, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/v3/cards?limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Service-Tier")
}

// eventually waits until key's call answers want (key changes reach the key
// table within a second), and returns the X-Service-Tier of that answer.
func eventually(t *testing.T, base, key string, want int) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, tier := statusOf(t, base, key)
		if got == want {
			return tier
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /api/v3/cards?limit=1: %d, want %d", got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestDashboard_Browser(t *testing.T) {
	start := time.Now()
	edge := startEdgeProcess(t, filepath.Join(t.TempDir(), "state.bolt"), "")
	b := startBrowser(t, "dashboard", edge.Base)
	const email, password = "ada@example.com", "a long and unusual passphrase"

	// Sign up.
	b.open("/dashboard/signup")
	b.see("heading", "Sign up")
	b.shoot("signup")
	b.fill("Email", email)
	b.fill("Password", password)
	b.click("button", "Sign up")
	b.see("heading", "API keys")
	b.shoot("keys-empty")

	// Sign out and sign in.
	b.click("button", "Sign out")
	b.see("heading", "Sign in")
	b.fill("Email", email)
	b.fill("Password", password)
	b.shoot("signin")
	b.click("button", "Sign in")
	b.see("heading", "API keys")

	// Create a key: its secret is shown once, with a copy button (app.js
	// ran under the CSP), and is gone after a reload.
	b.fill("Name", "price-bot")
	b.choose("Expires after", "90")
	b.click("button", "Create key")
	secret1 := b.secret("Key “price-bot” created")
	b.see("button", "Copy")
	b.shoot("keys-new-secret")
	b.run("reload", chromedp.Reload())
	b.see("heading", "Your keys")
	if html := b.eval(`document.body.innerText`).(string); strings.Contains(html, secret1) || strings.Contains(html, "is shown only once") {
		t.Fatal("the secret is still shown after a reload")
	}

	// Call the API with it (once it is loaded: an unknown key's 401s are
	// counted nowhere).
	if tier := eventually(t, edge.Base, secret1, 200); tier != "free" {
		t.Fatalf("GET /api/v3/cards?limit=1: X-Service-Tier %q", tier)
	}

	// See the call on the usage page.
	b.click("link", "Usage")
	b.see("heading", "Usage")
	if got := b.text("heading", "Calls per day"); got == "" {
		t.Fatal("no chart heading")
	}
	body := b.eval(`document.body.innerText`).(string)
	if !strings.Contains(body, "1 call and 0 refused") || !strings.Contains(body, "99 of 100 left (1 used)") {
		t.Fatalf("the usage page does not show the call:\n%s", body)
	}
	if n := b.eval(`document.querySelectorAll("svg.chart-svg rect.bar-calls").length`).(float64); n != 1 {
		t.Fatalf("the chart has %v bars of calls, want 1", n)
	}
	b.shoot("usage")

	// Roll with a grace of one hour: old and new keys both work.
	b.click("link", "Keys")
	b.see("heading", "API keys")
	b.click("link", "Roll price-bot")
	b.see("heading", "Roll key “price-bot”")
	b.click("radio", "1 hour")
	b.shoot("roll")
	b.click("button", "Roll")
	secret2 := b.secret("Key “price-bot” rolled")
	b.shoot("keys-rolled")
	eventually(t, edge.Base, secret2, 200)
	if status, _ := statusOf(t, edge.Base, secret1); status != 200 {
		t.Fatalf("the old key within its grace: %d", status)
	}

	// Roll at once: the old key is refused.
	b.run("reload", chromedp.Navigate(edge.Base+"/dashboard/keys"))
	b.click("link", "Roll price-bot")
	b.see("heading", "Roll key “price-bot”")
	b.click("radio", "No time: the old key stops working now")
	b.click("button", "Roll")
	secret3 := b.secret("Key “price-bot” rolled")
	eventually(t, edge.Base, secret3, 200)
	eventually(t, edge.Base, secret2, 401)

	// Revoke (after a confirmation page): refused.
	b.run("reload", chromedp.Navigate(edge.Base+"/dashboard/keys"))
	b.click("link", "Revoke price-bot") // the newest key comes first
	b.see("heading", "Revoke key “price-bot”?")
	b.shoot("revoke")
	b.click("button", "Revoke")
	b.seeText("Key revoked. Calls with it are refused within a second.")
	eventually(t, edge.Base, secret3, 401)

	// A key whose name is markup shows it as text, and no script runs.
	const evil = `<img src=x onerror=alert(1)>`
	b.fill("Name", evil)
	b.click("button", "Create key")
	b.see("region", "Key “"+evil+"” created")
	b.run("settle", chromedp.Sleep(300*time.Millisecond))
	if n := b.eval(`document.querySelectorAll("img").length`).(float64); n != 0 {
		t.Fatalf("the page has %v img elements", n)
	}
	if got := b.eval(`document.querySelector("tbody th").firstChild.textContent`).(string); got != evil {
		t.Fatalf("the newest key's name reads %q, want %q", got, evil)
	}
	if p := b.problems(false); len(p) != 0 {
		t.Fatalf("a script ran or failed: %v", p)
	}
	b.shoot("keys-after-revoke")

	// The account page: the audit log.
	b.click("link", "Account")
	b.see("heading", "Account")
	body = b.eval(`document.body.innerText`).(string)
	for _, want := range []string{"Account created", "Signed in", "Key created", "Key rolled", "Key revoked", "127.0.0.1"} {
		if !strings.Contains(body, want) {
			t.Errorf("the account page lacks %q", want)
		}
	}
	b.shoot("account")

	// Sign out: the dashboard asks to sign in again.
	b.click("button", "Sign out")
	b.seeText("You are signed out.")
	b.shoot("signed-out")
	b.open("/dashboard/keys")
	b.see("heading", "Sign in")
	if p := b.problems(false); len(p) != 0 {
		t.Fatalf("dialogs, CSP violations or script errors: %v", p)
	}
	t.Logf("browser test took %v; screenshots in %s", time.Since(start).Round(100*time.Millisecond), b.shots)
}
