package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/chromedp/chromedp"
)

// Connected apps end to end (issue 31): the official MCP TypeScript SDK's
// client with its OAuth support (mcp/testdata/tsclient/oauth.mjs: an
// OAuthClientProvider, StreamableHTTPClientTransport.finishAuth) connects
// to the cardedge binary as Claude, ChatGPT or VS Code do, and a person
// signs in and allows it in headless Chromium (browser_test.go's helper):
// discovery from the 401, dynamic registration or a Client ID Metadata
// Document, the authorization request, sign-in and consent, the redirect
// to the client's loopback callback, the code exchange, tools/list and
// get_prices; then a refresh, Revoke on the Connected apps page and the
// next call a 401. The tools a token lists follow its scopes and the
// account's tier. Screenshots in var/screenshots/oauth/.
//
// The server runs with the test-only flags that let it fetch a metadata
// document from this test's https server on loopback (its certificate is
// the test's own): --oauth-cimd-allow-private --oauth-cimd-ca FILE.

func TestOAuth_Browser(t *testing.T) {
	start := time.Now()
	docs := startDocServer(t)
	edge := startEdgeProcess(t, filepath.Join(t.TempDir(), "state.bolt"), "",
		"--oauth-cimd-allow-private", "--oauth-cimd-ca", docs.caFile)
	dir := npmWorkdir(t, "mcp/testdata/tsclient", "oauth.mjs") // skips without Node.js
	b := startBrowser(t, "oauth", edge.Base)
	const password = "a long and unusual passphrase"
	const sdkName = "cardedge e2e (MCP SDK)"

	// A Pro account, signed out: the app's request brings the sign-in first.
	pro := "pro.collector@example.com"
	b.open("/dashboard/signup")
	b.fill("Email", pro)
	b.fill("Password", password)
	b.click("button", "Sign up")
	b.see("heading", "API keys")
	if out, err := runBin(t, "accounts", "set-tier", "--state", edge.state, pro, "pro"); err != nil {
		t.Fatalf("set-tier: %v %s", err, out)
	}
	b.click("button", "Sign out")
	b.seeText("You are signed out.")

	// 1. Dynamic registration, both scopes allowed: the chat tools are
	// listed (Pro); a refresh; Revoke; the next call is a 401.
	t.Run("DynamicRegistration", func(t *testing.T) {
		defer b.use(t)()
		flow := time.Now()
		n := startOAuthClient(t, dir, oauthClientConfig{URL: edge.Base + mcpPath, Port: e2etest.FreePort(t), Expect: "apps", Full: true})
		b.navigate(n.next("authorize")["url"].(string))
		b.see("heading", "Sign in")
		b.fill("Email", pro)
		b.fill("Password", password)
		b.click("button", "Sign in")
		b.see("heading", "Connect "+sdkName+"?")
		body := b.innerText()
		for _, want := range []string{sdkName + " wants to use cardedge as " + pro + " (tier pro)", "as the app calls itself: cardedge cannot check it",
			"Sends you back to\n127.0.0.1:" + strconv.Itoa(n.cfg.Port), "Read market data", "Read and change your collection"} {
			if !strings.Contains(body, want) {
				t.Errorf("the consent page does not say %q:\n%s", want, body)
			}
		}
		if strings.Contains(body, "does not include the collection tools") {
			t.Errorf("the consent page warns a Pro account about its tier:\n%s", body)
		}
		b.shoot("consent")
		b.click("button", "Allow")
		b.see("heading", "cardedge e2e: back in the app")
		got := n.next("connected")
		if got["scope"] != "market:read collection:write" {
			t.Errorf("granted scope %v", got["scope"])
		}
		t.Logf("connected: %v tools, exchanges %v", len(got["tools"].([]any)), got["exchanges"])
		n.next("refreshed")
		n.next("revoke")

		b.open("/dashboard/apps")
		b.see("heading", "Connected apps")
		body = b.innerText()
		for _, want := range []string{sdkName, "127.0.0.1:" + strconv.Itoa(n.cfg.Port), "Read market data; Read and change your collection", "within the hour"} {
			if !strings.Contains(body, want) {
				t.Errorf("the Connected apps page does not say %q:\n%s", want, body)
			}
		}
		b.shoot("apps")
		b.click("button", "Revoke "+sdkName)
		b.seeText("App disconnected.")
		n.send("revoked")
		done := n.next("done")
		t.Logf("revoked: refused after %v ms; the SDK's next call: %v", done["refused_after_ms"], done["exchanges"])
		n.wait()
		t.Logf("dynamic registration flow: %s", time.Since(flow).Round(time.Millisecond))
	})

	// 2. A Client ID Metadata Document (served over https from loopback):
	// the collection left out on the consent page, so a Pro account's token
	// lists the public tools only; a refresh; Revoke; a 401.
	t.Run("MetadataDocument", func(t *testing.T) {
		defer b.use(t)()
		flow := time.Now()
		port := e2etest.FreePort(t)
		id := docs.publish("Loopback Desktop", "http://127.0.0.1:"+strconv.Itoa(port)+"/callback")
		n := startOAuthClient(t, dir, oauthClientConfig{URL: edge.Base + mcpPath, Port: port, Expect: "public", CIMD: id, Full: true})
		b.navigate(n.next("authorize")["url"].(string))
		b.see("heading", "Connect Loopback Desktop?")
		body := b.innerText()
		if want := "Published by\n" + strings.TrimPrefix(docs.srv.URL, "https://"); !strings.Contains(body, want) {
			t.Errorf("the consent page does not say %q:\n%s", want, body)
		}
		b.click("checkbox", "Read and change your collection")
		b.shoot("consent-document")
		b.click("button", "Allow")
		b.see("heading", "cardedge e2e: back in the app")
		if got := n.next("connected"); got["scope"] != "market:read" || got["client_id"] != id {
			t.Errorf("connected: scope %v, client %v", got["scope"], got["client_id"])
		}
		n.next("refreshed")
		n.next("revoke")
		b.open("/dashboard/apps")
		b.see("heading", "Connected apps")
		b.click("button", "Revoke Loopback Desktop")
		b.seeText("App disconnected.")
		b.shoot("apps-revoked")
		n.send("revoked")
		n.next("done")
		n.wait()
		if got := docs.fetches(); got != 1 {
			t.Errorf("the metadata document was fetched %d times, want 1 (cached)", got)
		}
		t.Logf("metadata document flow: %s", time.Since(flow).Round(time.Millisecond))
	})

	// 3. A Free account allows both scopes: the consent page says its tier
	// lacks the collection tools, and its token lists the public ones only.
	t.Run("FreeTier", func(t *testing.T) {
		defer b.use(t)()
		b.click("button", "Sign out")
		b.seeText("You are signed out.")
		b.open("/dashboard/signup")
		b.fill("Email", "free.collector@example.com")
		b.fill("Password", password)
		b.click("button", "Sign up")
		b.see("heading", "API keys")
		n := startOAuthClient(t, dir, oauthClientConfig{URL: edge.Base + mcpPath, Port: e2etest.FreePort(t), Expect: "public"})
		b.navigate(n.next("authorize")["url"].(string))
		b.see("heading", "Connect "+sdkName+"?")
		if body := b.innerText(); !strings.Contains(body, "Your tier (free) does not include the collection tools") {
			t.Errorf("the consent page does not tell a Free account:\n%s", body)
		}
		b.shoot("consent-free")
		b.click("button", "Allow")
		if got := n.next("connected"); got["scope"] != "market:read collection:write" {
			t.Errorf("granted scope %v", got["scope"])
		}
		n.next("done")
		n.wait()
	})

	// The audit log of the Pro account says what its apps did.
	b.open("/dashboard/keys")
	b.click("button", "Sign out")
	b.seeText("You are signed out.")
	b.open("/dashboard/signin")
	b.fill("Email", pro)
	b.fill("Password", password)
	b.click("button", "Sign in")
	b.see("heading", "API keys")
	b.click("link", "Account")
	b.see("heading", "Account")
	body := b.innerText()
	for _, want := range []string{"App connected", "App refreshed", "App disconnected"} {
		if !strings.Contains(body, want) {
			t.Errorf("the audit log does not say %q:\n%s", want, body)
		}
	}
	if p := b.problems(true); len(p) != 0 {
		t.Errorf("dialogs, CSP violations, script errors or console errors: %v", p)
	}
	t.Logf("OAuth browser test took %s; screenshots in %s", time.Since(start).Round(100*time.Millisecond), b.shots)
}

// use makes the browser's failures t's (a subtest's) until the returned
// function restores the test it had.
func (b *browser) use(t *testing.T) (restore func()) {
	old := b.t
	b.t = t
	return func() { b.t = old }
}

// navigate opens an absolute URL (the app's authorization URL).
func (b *browser) navigate(url string) {
	b.t.Helper()
	b.run("navigate to "+url, chromedp.Navigate(url))
}

// innerText is what the page says.
func (b *browser) innerText() string {
	b.t.Helper()
	return b.eval(`document.body.innerText`).(string)
}

// docServer serves Client ID Metadata Documents over https on loopback,
// with a certificate of its own (caFile: its PEM, for --oauth-cimd-ca).
type docServer struct {
	srv    *httptest.Server
	caFile string
	mu     sync.Mutex
	docs   map[string][]byte // path -> document
	n      int               // documents served
}

func startDocServer(t *testing.T) *docServer {
	t.Helper()
	d := &docServer{docs: map[string][]byte{}}
	d.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		doc, ok := d.docs[r.URL.Path]
		if ok {
			d.n++
		}
		d.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Write(doc)
	}))
	t.Cleanup(d.srv.Close)
	d.caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(d.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: d.srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// publish serves the document of a public client named name with one
// redirect URI and returns its URL, the client id.
func (d *docServer) publish(name, redirect string) string {
	path := "/apps/" + strings.ToLower(strings.ReplaceAll(name, " ", "-")) + "/client.json"
	id := d.srv.URL + path
	doc, _ := json.Marshal(map[string]any{"client_id": id, "client_name": name, "redirect_uris": []string{redirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "token_endpoint_auth_method": "none"})
	d.mu.Lock()
	d.docs[path] = doc
	d.mu.Unlock()
	return id
}

func (d *docServer) fetches() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

// oauthClientConfig is oauth.mjs's argument.
type oauthClientConfig struct {
	URL    string `json:"url"`
	Port   int    `json:"port"`
	Expect string `json:"expect"` // apps: the chat tools too; public: the public tools only
	CIMD   string `json:"cimd,omitempty"`
	Full   bool   `json:"full,omitempty"`
}

// oauthClient is a running oauth.mjs: its JSON lines, and its stdin for
// the test's answers.
type oauthClient struct {
	t      *testing.T
	cfg    oauthClientConfig
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan map[string]any
	stderr *bytes.Buffer
	exited chan struct{}
	err    error
}

func startOAuthClient(t *testing.T, dir string, cfg oauthClientConfig) *oauthClient {
	t.Helper()
	arg, _ := json.Marshal(cfg)
	n := &oauthClient{t: t, cfg: cfg, lines: make(chan map[string]any, 16), stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	n.cmd = exec.Command("node", "oauth.mjs", string(arg))
	n.cmd.Dir = dir
	n.cmd.Stderr = &lockedWriter{w: n.stderr}
	var err error
	if n.stdin, err = n.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := n.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"step": "unreadable", "line": sc.Text()}
			}
			n.lines <- m
		}
		n.err = n.cmd.Wait()
		close(n.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-n.exited:
		default:
			n.cmd.Process.Kill()
			<-n.exited
		}
	})
	return n
}

// next waits (up to a minute) for the client's line of step and returns
// it; the client ending first, or another step, fails the test.
func (n *oauthClient) next(step string) map[string]any {
	n.t.Helper()
	select {
	case m := <-n.lines:
		if m["step"] != step {
			n.t.Fatalf("oauth.mjs said %v, want step %q; stderr:\n%s", m, step, n.stderrText())
		}
		return m
	case <-n.exited:
		select {
		case m := <-n.lines:
			if m["step"] == step {
				return m
			}
		default:
		}
		n.t.Fatalf("oauth.mjs ended (%v) before step %q; stderr:\n%s", n.err, step, n.stderrText())
	case <-time.After(time.Minute):
		n.t.Fatalf("oauth.mjs said nothing of step %q in a minute; stderr:\n%s", step, n.stderrText())
	}
	return nil
}

func (n *oauthClient) send(line string) {
	n.t.Helper()
	if _, err := io.WriteString(n.stdin, line+"\n"); err != nil {
		n.t.Fatal(err)
	}
}

// wait waits for the client to exit and fails the test unless it succeeded.
func (n *oauthClient) wait() {
	n.t.Helper()
	select {
	case <-n.exited:
	case <-time.After(30 * time.Second):
		n.t.Fatal("oauth.mjs did not exit")
	}
	if n.err != nil {
		n.t.Fatalf("oauth.mjs: %v; stderr:\n%s", n.err, n.stderrText())
	}
}

func (n *oauthClient) stderrText() string {
	w := n.cmd.Stderr.(*lockedWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	return n.stderr.String()
}

// lockedWriter is a writer the process writes while the test reads it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
