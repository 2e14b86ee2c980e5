package main_test

import (
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	main "github.com/cardedge/cardedge/cmd/cardedge"
)

// The test-only flags of connected apps (--oauth-cimd-allow-private,
// --oauth-cimd-ca): refused unless the server is reachable from this
// machine only; with them, a Client ID Metadata Document served over https
// from loopback with a certificate of its own is fetched, and without them
// it is refused (a private address).

func TestServe_AppsTestFlags_Refused(t *testing.T) {
	ca := writeFile(t, "ca.pem", "")
	notPEM := writeFile(t, "not.pem", "no certificate here")
	for _, c := range []struct {
		name string
		cfg  main.AppsTestConfig
		pub  string
		want string
	}{
		{"allow-private with a public https URL", main.AppsTestConfig{CIMDAllowPrivate: true}, "https://api.example.com",
			"--public-url https://api.example.com names api.example.com, not a loopback host"},
		{"ca with a public https URL", main.AppsTestConfig{CIMDCAFile: ca}, "https://api.example.com", "for tests only"},
		{"a name that is not loopback", main.AppsTestConfig{CIMDAllowPrivate: true}, "http://127.0.0.1.nip.io:8080", "not a loopback host"},
		{"a missing CA file", main.AppsTestConfig{CIMDCAFile: filepath.Join(t.TempDir(), "none.pem")}, "", "--oauth-cimd-ca: open"},
		{"a CA file without a certificate", main.AppsTestConfig{CIMDCAFile: notPEM}, "", "holds no PEM certificate"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := startServe(main.ServeConfig{Snapshots: env.root, State: filepath.Join(t.TempDir(), "state.bolt"), PublicURL: c.pub, AppsTest: c.cfg})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("serve: %v, want an error saying %q", err, c.want)
			}
		})
	}
}

// A server listening beyond loopback refuses them too (the rule itself:
// the tests bind loopback only).
func TestServe_AppsTestFlags_ListenAddress(t *testing.T) {
	on := main.AppsTestConfig{CIMDAllowPrivate: true}
	for _, c := range []struct {
		addr net.Addr
		pub  string
		want string // "" for accepted
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "", ""},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "http://localhost:8080", ""},
		{&net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 8080}, "", "--addr 10.0.0.5:8080 is not a loopback address"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://127.0.0.1:8080", "--addr 0.0.0.0:8080 is not a loopback address"},
	} {
		o, err := main.CIMDOptions(on, c.pub, c.addr)
		switch {
		case c.want == "" && (err != nil || !o.AllowPrivate):
			t.Errorf("%s %q: %+v %v, want accepted", c.addr, c.pub, o, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %q: %v, want an error saying %q", c.addr, c.pub, err, c.want)
		}
	}
	if o, err := main.CIMDOptions(main.AppsTestConfig{}, "https://api.example.com", &net.TCPAddr{IP: net.IPv4zero}); err != nil || o.AllowPrivate || o.RootCAs != nil {
		t.Errorf("without the flags: %+v %v", o, err)
	}
}

func TestServe_AppsTestFlags_MetadataDocument(t *testing.T) {
	docSrv := httptest.NewTLSServer(nil) // 127.0.0.1, a certificate of its own
	t.Cleanup(docSrv.Close)
	id := docSrv.URL + "/client.json"
	const redirect = "http://127.0.0.1:1/callback"
	docSrv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"client_id":"`+id+`","client_name":"Loopback app","redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`)
	})
	ca := writeFile(t, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: docSrv.Certificate().Raw})))

	authorize := func(base string) (int, string, string) {
		q := url.Values{"client_id": {id}, "redirect_uri": {redirect}, "response_type": {"code"}, "state": {"s"},
			"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Get(base + "/oauth/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Location"), string(b)
	}

	// Without the flags (the shared server): a private address is refused.
	if status, _, body := authorize(env.base); status != 400 || !strings.Contains(body, "is not a public address") {
		t.Errorf("without the flags: %d %.300s", status, body)
	}
	e := startEdge(t, main.ServeConfig{Snapshots: env.root, State: filepath.Join(t.TempDir(), "state.bolt"),
		AppsTest: main.AppsTestConfig{CIMDAllowPrivate: true, CIMDCAFile: ca}})
	if status, loc, body := authorize(e.base); status != 303 || !strings.HasPrefix(loc, "/dashboard/connect?request=") {
		t.Errorf("with the flags: %d %q %.300s", status, loc, body)
	}
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
