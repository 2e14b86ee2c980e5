package main_test

// The hostile-input suite: requests an attacker or a broken client sends,
// over real TCP. The bar for every one: a 4xx with an error.v1 or 422 body
// (or a connection the server closes), never a 5xx, and the server still
// answers /health afterwards. Framing and slow-client attacks run against an
// in-process edge with short timeouts; the rest against the real program of
// main_test.go.

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/edge"
)

// envDial dials the real program's listener.
var envDial = func() (net.Conn, error) {
	return net.DialTimeout("tcp", strings.TrimPrefix(env.base, "http://"), 5*time.Second)
}

// newEnvKey creates a key in the shared state file and waits until the
// running program has loaded it (keys reload every second).
func newEnvKey(t *testing.T, tier access.Tier, sql, unmetered bool) string {
	t.Helper()
	secret, _, err := createKey(t, env.state, tier, "hostile-"+t.Name(), sql, unmetered)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := exchange(t, envDial, request("GET", "/keys/usage", nil, "Authorization: Bearer "+secret))
		if r.status == 200 {
			return secret
		}
		if time.Now().After(deadline) {
			t.Fatalf("new key not loaded after 10 s: %d %s", r.status, r.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mustHealthy fails unless /health answers 200 on dial.
func mustHealthy(t *testing.T, dial func() (net.Conn, error), after string) {
	t.Helper()
	if r := exchange(t, dial, request("GET", "/health", nil)); r.status != 200 {
		t.Fatalf("after %s: /health answers %d %s", after, r.status, r.body)
	}
}

// loc422 returns the last element of every loc of a 422 body.
func loc422(t *testing.T, r rawResponse) []string {
	t.Helper()
	var b struct {
		Detail []struct {
			Loc []any `json:"loc"`
		} `json:"detail"`
	}
	if err := json.Unmarshal(r.body, &b); err != nil || len(b.Detail) == 0 {
		t.Fatalf("not a 422 detail body: %s", truncate(r.body))
	}
	var out []string
	for _, d := range b.Detail {
		out = append(out, fmt.Sprint(d.Loc[len(d.Loc)-1]))
	}
	return out
}

// TestHostile_Framing sends malformed and ambiguous HTTP: oversized request
// lines, headers and bodies, every Content-Length / Transfer-Encoding
// conflict of request smuggling, and broken request lines. fasthttp refuses
// them before the handler (the edge answers error.v1 and closes), except a
// chunked body beside a Content-Length, which is read as chunked and then
// the connection is closed (RFC 9112 6.1), so a smuggled request behind it
// is never answered.
func TestHostile_Framing(t *testing.T) {
	e := mustTestEdge(t, copyRoot(t, "s0001"), edge.Options{ReadTimeout: 300 * time.Millisecond, IdleTimeout: time.Second}, nil)
	dial := tcpDial(e.addr)
	post := "POST /api/v3/cards/batch HTTP/1.1\r\nHost: x\r\n"
	cases := []struct {
		name   string
		raw    string
		status int
	}{
		{"header of 20 KiB", "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 20<<10) + "\r\n\r\n", 431},
		{"3,000 headers", "GET /health HTTP/1.1\r\nHost: x\r\n" + strings.Repeat("X-A: b\r\n", 3000) + "\r\n", 431},
		{"query string of 20 KiB", "GET /api/v3/cards?q=" + strings.Repeat("a", 20<<10) + " HTTP/1.1\r\nHost: x\r\n\r\n", 431},
		{"Authorization of 20 KiB", "GET /api/v3/cards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + strings.Repeat("k", 20<<10) + "\r\n\r\n", 431},
		{"Content-Length over 4 MiB", post + "Content-Length: 5000000\r\n\r\n{", 413},
		{"Expect 100-continue over 4 MiB", post + "Expect: 100-continue\r\nContent-Length: 999999999\r\n\r\n", 413},
		{"chunk size over 4 MiB", post + "Transfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n{}\r\n0\r\n\r\n", 413},
		{"duplicate Content-Length", post + "Content-Length: 2\r\nContent-Length: 10\r\n\r\n{}", 400},
		{"duplicate equal Content-Length", post + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 400},
		{"Content-Length list", post + "Content-Length: 2, 10\r\n\r\n{}", 400},
		{"negative Content-Length", post + "Content-Length: -1\r\n\r\n{}", 400},
		{"signed Content-Length", post + "Content-Length: +2\r\n\r\n{}", 400},
		{"Content-Length hex", post + "Content-Length: 0x2\r\n\r\n{}", 400},
		{"Transfer-Encoding xchunked", post + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 400},
		{"Transfer-Encoding space before colon", post + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400},
		{"Transfer-Encoding chunked, identity", post + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n", 400},
		{"Transfer-Encoding gzip, chunked", post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 400},
		{"two Transfer-Encoding headers", post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
		{"Transfer-Encoding in HTTP/1.0", "POST /api/v3/cards/batch HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n{}", 400},
		{"Transfer-Encoding folded", post + "Transfer-Encoding:\r\n chunked\r\nContent-Length: 2\r\n\r\n{}", 400},
		{"bad chunk size", post + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", 400},
		{"two Host headers", "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
		{"no Host in HTTP/1.1", "GET /health HTTP/1.1\r\n\r\n", 400},
		{"HTTP/0.9 request line", "GET /health\r\n\r\n", 400},
		{"NUL in the path", "GET /api/v3/cards/a\x00b HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"NUL in a header", "GET /api/v3/cards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\x00b\r\n\r\n", 400},
		{"NUL in the method", "G\x00T /health HTTP/1.1\r\nHost: x\r\n\r\n", 400},
		{"bare LF line ends", "GET /health HTTP/1.1\nHost: x\n\n", 408}, // never a complete request: read timeout
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := exchange(t, dial, []byte(tc.raw))
			if r.status != tc.status || !r.closed {
				t.Fatalf("status %d (closed %v), want %d and a closed connection: %s", r.status, r.closed, tc.status, truncate(r.body))
			}
			var b struct {
				Contract string `json:"contract"`
				Error    struct{ Code, Message string }
			}
			if err := json.Unmarshal(r.body, &b); err != nil || b.Contract != "error.v1" || b.Error.Code == "" || b.Error.Message == "" {
				t.Fatalf("%d body is not error.v1: %s", r.status, truncate(r.body))
			}
			mustHealthy(t, dial, tc.name)
		})
	}

	// CL.TE and TE.CL: the body is read as chunked, the response says
	// Connection: close, and the request smuggled after the chunked body
	// never gets an answer.
	for _, order := range []string{"Content-Length: 40\r\nTransfer-Encoding: chunked\r\n", "Transfer-Encoding: chunked\r\nContent-Length: 40\r\n"} {
		t.Run("smuggled request behind "+strings.ReplaceAll(order, "\r\n", " "), func(t *testing.T) {
			c, err := dial()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			smuggled := "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
			fmt.Fprintf(c, "%s%s\r\n0\r\n\r\n%s", post, order, smuggled)
			br := bufio.NewReader(c)
			first := readResponse(t, br)
			if first.status != 401 || !first.closed {
				t.Fatalf("first response %d (closed %v), want 401 and Connection: close: %s", first.status, first.closed, first.body)
			}
			if second := readResponse(t, br); second.status != 0 {
				t.Fatalf("the smuggled request was answered: %d %s", second.status, truncate(second.body))
			}
		})
	}
	// A keep-alive connection without chunks stays open for the next request.
	t.Run("keep-alive after a plain request", func(t *testing.T) {
		c, err := dial()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprint(c, "GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		if a, b := readResponse(t, br), readResponse(t, br); a.status != 200 || b.status != 200 {
			t.Fatalf("pipelined requests: %d, %d", a.status, b.status)
		}
	})
}

// TestHostile_SlowClients: slowloris (a request line written a byte at a
// time, a body trickled) is cut at ReadTimeout with a 408, an idle
// keep-alive connection is closed at IdleTimeout, and many slow connections
// at once do not keep others from being served.
func TestHostile_SlowClients(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	e := mustTestEdge(t, copyRoot(t, "s0001"), edge.Options{ReadTimeout: readTimeout, IdleTimeout: 500 * time.Millisecond}, nil)
	dial := tcpDial(e.addr)

	// trickle writes raw one byte per interval until the server answers or
	// closes; it returns what the server sent and how long that took.
	trickle := func(t *testing.T, head, raw string, interval time.Duration) (rawResponse, time.Duration, int) {
		c, err := dial()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		start := time.Now()
		fmt.Fprint(c, head)
		got := make(chan rawResponse, 1)
		go func() { got <- readResponse(t, bufio.NewReader(c)) }()
		for i := 0; i < len(raw); i++ {
			select {
			case r := <-got:
				return r, time.Since(start), i
			case <-time.After(interval):
			}
			if _, err := c.Write([]byte{raw[i]}); err != nil {
				return <-got, time.Since(start), i
			}
		}
		return <-got, time.Since(start), len(raw)
	}
	req := "GET /api/v3/cards/en:base1-4 HTTP/1.1\r\nHost: x\r\nUser-Agent: slowloris\r\n\r\n"
	t.Run("request line a byte at a time", func(t *testing.T) {
		r, took, sent := trickle(t, "", req, 50*time.Millisecond) // the whole request would take 3.5 s
		if r.status != 408 || !r.closed || took > 2*time.Second || sent == len(req) {
			t.Fatalf("status %d (closed %v) after %s and %d of %d bytes, want 408 near %s", r.status, r.closed, took, sent, len(req), readTimeout)
		}
	})
	t.Run("body a byte at a time", func(t *testing.T) {
		body := `{"ids":["en:base1-4","en:base1-2","en:base1-3","en:base1-5"]}`
		head := fmt.Sprintf("POST /api/v3/cards/batch HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", len(body))
		r, took, sent := trickle(t, head, body, 50*time.Millisecond)
		if r.status != 408 || took > 2*time.Second || sent == len(body) {
			t.Fatalf("status %d after %s and %d of %d bytes, want 408 near %s", r.status, took, sent, len(body), readTimeout)
		}
	})
	t.Run("idle keep-alive connection", func(t *testing.T) {
		c, err := dial()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprint(c, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		if r := readResponse(t, br); r.status != 200 {
			t.Fatalf("health: %d", r.status)
		}
		start := time.Now()
		if _, err := br.ReadByte(); err == nil || time.Since(start) > 3*time.Second {
			t.Fatalf("idle connection: read %v after %s, want it closed at the idle timeout", err, time.Since(start))
		}
	})
	t.Run("64 slow connections at once", func(t *testing.T) {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i := 0; i < 64; i++ {
			c, err := dial()
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				for j := 0; j < len(req); j++ {
					select {
					case <-stop:
						return
					case <-time.After(40 * time.Millisecond):
					}
					if _, err := c.Write([]byte{req[j]}); err != nil {
						return
					}
				}
			}()
		}
		time.Sleep(100 * time.Millisecond)
		for i := 0; i < 5; i++ {
			start := time.Now()
			mustHealthy(t, dial, "64 slow connections")
			if took := time.Since(start); took > time.Second {
				t.Errorf("/health took %s beside the slow connections", took)
			}
		}
		close(stop)
		wg.Wait()
	})
	mustHealthy(t, dial, "slow clients")
}

// TestHostile_Inputs sends hostile values through the real program:
// invalid UTF-8, NUL bytes, path traversal in ids (raw, percent-encoded,
// double-encoded, encoded slashes), percent-encoding tricks, huge
// limit/offset, deeply nested and oversized JSON bodies.
func TestHostile_Inputs(t *testing.T) {
	key := newEnvKey(t, access.Elite, false, true)
	auth := "Authorization: Bearer " + key
	cases := []struct {
		name, method, target, body string
		status                     int
		names                      []string // 422: parameters named
	}{
		{"invalid UTF-8 in q", "GET", "/api/v3/cards?q=%ff%fe", "", 422, []string{"q"}},
		{"NUL in q", "GET", "/api/v3/cards?q=char%00izard", "", 422, []string{"q"}},
		{"invalid UTF-8 in a card id", "GET", "/api/v3/cards/%ff%fe", "", 404, nil},
		{"NUL in a card id", "GET", "/api/v3/cards/en:base1-4%00", "", 404, nil},
		{"raw path traversal", "GET", "/api/v3/cards/../../../etc/passwd", "", 404, nil},
		{"encoded dots", "GET", "/api/v3/cards/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "", 404, nil},
		{"encoded slashes in an id", "GET", "/api/v3/cards/..%2f..%2f..%2fetc%2fpasswd", "", 404, nil},
		{"double-encoded traversal", "GET", "/api/v3/sets/..%252f..%252fetc%252fpasswd", "", 404, nil},
		{"backslashes", "GET", "/api/v3/cards/..\\..\\etc\\passwd", "", 404, nil},
		{"traversal in set_id filter", "GET", "/api/v3/cards?set_id=../../etc/passwd", "", 200, nil},
		{"traversal onto another route", "GET", "/api/v3/cards/x/..%2f..%2f..%2fkeys%2fusage", "", 404, nil},
		{"percent-encoded colon", "GET", "/api/v3/cards/en%3Abase1-4", "", 200, nil},
		{"overlong UTF-8 slash", "GET", "/api/v3/cards/%c0%af%c0%afetc", "", 404, nil},
		{"upper-case route", "GET", "/API/V3/CARDS", "", 404, nil},
		{"plus in limit", "GET", "/api/v3/cards?limit=%2B5", "", 200, nil},
		{"limit repeated", "GET", "/api/v3/cards?limit=5&limit=500", "", 200, nil},
		{"huge offset", "GET", "/api/v3/cards?limit=5&offset=99999999999", "", 200, nil},
		{"offset of 18 digits", "GET", "/api/v3/cards/en:base1-4/price-history?offset=999999999999999999", "", 200, nil},
		{"offset beyond int64", "GET", "/api/v3/cards?offset=99999999999999999999999", "", 422, []string{"offset"}},
		{"huge limit", "GET", "/api/v3/sets?limit=99999999999", "", 422, []string{"limit"}},
		{"negative zero offset", "GET", "/api/v3/sets?offset=-0", "", 200, nil},
		{"limit in exponent form", "GET", "/api/v3/sets?limit=1e3", "", 422, []string{"limit"}},
		{"NaN grade_num", "GET", "/api/v3/cards/en:base1-4/vwap?grade_num=NaN", "", 422, []string{"grade_num"}},
		{"window_days of 18 digits", "GET", "/api/v3/trending?window_days=999999999999999999", "", 422, []string{"window_days"}},
		{"q of 1,000 accented letters", "GET", "/api/v3/search?q=" + strings.Repeat("%C3%A9", 1000), "", 422, []string{"q"}},
		{"cursor of 4 KiB", "GET", "/api/v3/cards/en:base1-4/sales?cursor=" + strings.Repeat("A", 4096), "", 422, []string{"cursor"}},
		{"deeply nested batch body", "POST", "/api/v3/cards/batch", `{"ids":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`, 422, []string{"body"}},
		{"deeply nested object beside ids", "POST", "/api/v3/cards/batch", `{"x":` + strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000) + `,"ids":["en:base1-4"]}`, 422, []string{"body"}},
		{"data after the batch body", "POST", "/api/v3/cards/batch", `{"ids":["en:base1-4"]}{"ids":["en:base1-2"]}`, 422, []string{"body"}},
		{"200,000 batch ids", "POST", "/api/v3/cards/batch", manyIDs(200000), 422, []string{"ids"}},
		{"invalid UTF-8 in batch ids", "POST", "/api/v3/cards/batch", "{\"ids\":[\"en:base1-4\xff\"]}", 200, nil},
		{"deeply nested prices body", "POST", "/prices", `{"ids":` + strings.Repeat("[", 100000) + `}`, 422, []string{"body"}},
		{"nested SQL body", "POST", "/api/v3/sql", `{"sql":` + strings.Repeat("[", 100000) + `}`, 403, nil}, // this key has no SQL
		{"deeply nested import", "POST", "/api/v3/me/imports/preview", `[` + strings.Repeat(`{"a":`, 100000) + `]`, 422, nil},
		{"deeply nested chat", "POST", "/api/v3/agent/chat", `{"messages":` + strings.Repeat("[", 100000) + `}`, 422, []string{"body"}},
		{"X-Request-Id injection", "GET", "/health", "", 200, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body []byte
			hdrs := []string{auth, "X-Request-Id: <script>alert(1)</script>"}
			if tc.method == "POST" {
				body = []byte(tc.body)
				hdrs = append(hdrs, "Content-Type: application/json")
			}
			r := exchange(t, envDial, request(tc.method, tc.target, body, hdrs...))
			checkResponse(t, tc.method+" "+tc.target, r)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, truncate(r.body))
			}
			if tc.status == 422 {
				got := loc422(t, r)
				for _, n := range tc.names {
					if !slices.Contains(got, n) {
						t.Errorf("422 names %v, want %q", got, n)
					}
				}
			}
			if tc.status == 200 && strings.Contains(tc.target, "offset=9") {
				var b struct {
					Data struct{ Items []any } `json:"data"`
				}
				if json.Unmarshal(r.body, &b); len(b.Data.Items) != 0 {
					t.Errorf("offset past the end returned %d items", len(b.Data.Items))
				}
			}
		})
	}
	mustHealthy(t, envDial, "hostile inputs")
}

// manyIDs is a batch body of n distinct ids.
func manyIDs(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("en:x-%d", i)
	}
	b, _ := json.Marshal(map[string]any{"ids": ids})
	return string(b)
}

// TestHostile_Keys: malformed Authorization values, other schemes, a key
// whose tier letter was edited, the stored hash instead of the secret, keys
// in the query string. Each is a 401 error.v1 and never reaches a tier.
func TestHostile_Keys(t *testing.T) {
	pro := newEnvKey(t, access.Pro, false, true)
	sum := sha256.Sum256([]byte(pro))
	path := "/api/v3/sets?limit=1"
	cases := []struct {
		name, header string
		status       int
	}{
		{"valid", "Bearer " + pro, 200},
		{"scheme in lower case", "bearer " + pro, 200},
		{"trailing space (trimmed as optional whitespace)", "Bearer " + pro + " ", 200},
		{"two spaces", "Bearer  " + pro, 401},
		{"tab", "Bearer\t" + pro, 401},
		{"space inside the key", "Bearer " + pro[:20] + " " + pro[20:], 401},
		{"vertical tab after the key", "Bearer " + pro + "\x0b", 400}, // a control byte: fasthttp refuses the header
		{"no scheme", pro, 401},
		{"Basic scheme", "Basic " + base64.StdEncoding.EncodeToString([]byte(pro+":")), 401},
		{"Token scheme", "Token " + pro, 401},
		{"Bearerx scheme", "Bearerx " + pro, 401},
		{"scheme only", "Bearer", 401},
		{"empty key", "Bearer ", 401},
		{"tier letter edited to elite", "Bearer ce_e_" + pro[5:], 401},
		{"tier letter edited to free", "Bearer ce_f_" + pro[5:], 401},
		{"stored hash as hex", "Bearer " + hex.EncodeToString(sum[:]), 401},
		{"stored hash in key shape", "Bearer ce_p_" + base64.RawURLEncoding.EncodeToString(sum[:]), 401},
		{"key truncated", "Bearer " + pro[:len(pro)-1], 401},
		{"key with a suffix", "Bearer " + pro + "A", 401},
		{"invalid UTF-8", "Bearer ce_p_\xff\xfe" + pro[7:], 401},
		{"8 KiB key", "Bearer " + strings.Repeat("k", 8<<10), 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := exchange(t, envDial, request("GET", path, nil, "Authorization: "+tc.header))
			checkResponse(t, tc.name, r)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, truncate(r.body))
			}
		})
	}
	for _, p := range []string{"?api_key=", "?key=", "?access_token="} {
		r := exchange(t, envDial, request("GET", "/api/v3/sets"+p+url.QueryEscape(pro), nil))
		if r.status != 401 {
			t.Errorf("key in the query string %s: %d, want 401", p, r.status)
		}
	}
	// Two Authorization headers: the first one is the one read.
	r := exchange(t, envDial, request("GET", path, nil, "Authorization: Bearer nope", "Authorization: Bearer "+pro))
	if r.status != 401 {
		t.Errorf("a bad Authorization before a good one: %d, want 401", r.status)
	}
	mustHealthy(t, envDial, "hostile keys")
}

// TestHostile_Cursors: a sales cursor is bound to the card, every filter
// and the caller's history window, and signed. Forged, tampered and
// transplanted cursors are 422s naming cursor; a cursor never widens what
// the caller may see.
func TestHostile_Cursors(t *testing.T) {
	elite := newEnvKey(t, access.Elite, false, true)
	elite2 := newEnvKey(t, access.Elite, false, true)
	pro := newEnvKey(t, access.Pro, false, true)
	base := "/api/v3/cards/en:base1-4/sales?limit=5"
	page := func(key, target string) (rawResponse, string) {
		var hdrs []string
		if key != "" {
			hdrs = append(hdrs, "Authorization: Bearer "+key)
		}
		r := exchange(t, envDial, request("GET", target, nil, hdrs...))
		var b struct {
			Data struct {
				NextCursor string `json:"next_cursor"`
			} `json:"data"`
		}
		json.Unmarshal(r.body, &b)
		return r, b.Data.NextCursor
	}
	r, cur := page(elite, base)
	if r.status != 200 || cur == "" {
		t.Fatalf("first page: %d, cursor %q", r.status, cur)
	}
	payload, sig, _ := strings.Cut(cur, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(payload)
	later := append([]byte(nil), raw...)
	later[4]++ // another day
	refused := []struct{ name, key, target string }{
		{"another card", elite, "/api/v3/cards/en:base1-2/sales?limit=5&cursor=" + cur},
		{"other filters", elite, base + "&include_filtered=true&cursor=" + cur},
		{"another tier's window", pro, base + "&cursor=" + cur},
		{"Playground", "", base + "&cursor=" + cur},
		{"payload edited, signature kept", elite, base + "&cursor=" + base64.RawURLEncoding.EncodeToString(later) + "." + sig},
		{"signature cut", elite, base + "&cursor=" + cur[:len(cur)-2]},
		{"signature dropped", elite, base + "&cursor=" + payload},
		{"newline inside", elite, base + "&cursor=" + url.QueryEscape(payload[:4]+"\n"+payload[4:]+"."+sig)},
		{"padding added", elite, base + "&cursor=" + payload + "%3D." + sig},
		{"two cursors joined", elite, base + "&cursor=" + cur + "." + cur},
		{"encoded traversal", elite, base + "&cursor=..%2f..%2f"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := page(tc.key, tc.target)
			if r.status != 422 || !slices.Contains(loc422(t, r), "cursor") {
				t.Fatalf("status %d, want a 422 naming cursor: %s", r.status, truncate(r.body))
			}
		})
	}
	// The same cursor from another key of the same tier and filters is a
	// position, not a capability: it pages the same public rows.
	a, _ := page(elite, base+"&cursor="+cur)
	b, _ := page(elite2, base+"&cursor="+cur)
	if a.status != 200 || b.status != 200 || string(a.body) != string(b.body) {
		t.Errorf("same-tier replay: %d and %d, bodies equal %v", a.status, b.status, string(a.body) == string(b.body))
	}
	// A Pro caller paging with its own cursors never gets a row before its
	// window, whatever since it asks for.
	next := ""
	for i := 0; i < 50; i++ {
		target := "/api/v3/cards/en:base1-4/sales?limit=20&since=2000-01-01"
		if next != "" {
			target += "&cursor=" + next
		}
		r, c := page(pro, target)
		var b struct {
			Data struct {
				WindowStart string `json:"window_start"`
				Items       []struct {
					SaleDate string `json:"sale_date"`
				} `json:"items"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.body, &b); err != nil || r.status != 200 {
			t.Fatalf("pro page %d: %d %s", i, r.status, truncate(r.body))
		}
		for _, it := range b.Data.Items {
			if it.SaleDate < b.Data.WindowStart {
				t.Fatalf("pro page %d: a sale of %s before the window start %s", i, it.SaleDate, b.Data.WindowStart)
			}
		}
		if next = c; next == "" {
			break
		}
	}
	mustHealthy(t, envDial, "hostile cursors")
}

// TestHostile_SQL: guard bypass attempts on POST /api/v3/sql with a key on
// the SQL allowlist: statement chains hidden by comments and strings,
// ATTACH, PRAGMA, extension loading, file functions, writes through WITH,
// bound parameters, NUL bytes, and resource bombs (recursive CTEs, cross
// joins, huge blobs) stopped by the time and size limits. Every one is a 422
// located at body.sql (or body); the data is unchanged and the server
// answers afterwards.
func TestHostile_SQL(t *testing.T) {
	key := newEnvKey(t, access.Elite, true, true)
	query := func(sql string) rawResponse {
		b, _ := json.Marshal(map[string]string{"sql": sql})
		return exchange(t, envDial, request("POST", "/api/v3/sql", b, "Authorization: Bearer "+key, "Content-Type: application/json"))
	}
	count := func() string {
		r := query("SELECT count(*) AS n, sum(price_cents) AS s FROM sales")
		if r.status != 200 {
			t.Fatalf("count: %d %s", r.status, truncate(r.body))
		}
		var b struct {
			Data struct{ Rows [][]any } `json:"data"`
		}
		json.Unmarshal(r.body, &b)
		return fmt.Sprint(b.Data.Rows)
	}
	before := count()
	refused := []string{
		"SELECT 1; DROP TABLE sales",
		"SELECT 1;SELECT 2",
		"SELECT 1 -- comment\n; DELETE FROM sales",
		"SELECT 1 /* ; */ ; DELETE FROM sales",
		"SELECT ';' ; DELETE FROM sales",
		"SELECT \"a;\" FROM sales; DELETE FROM sales",
		"/* */ ATTACH DATABASE '/etc/passwd' AS p",
		"ATTACH 'file:/tmp/cardedge-x?mode=rwc' AS x",
		"SELECT 1; ATTACH ':memory:' AS m",
		"SELECT load_extension('/tmp/evil.so')",
		"SELECT \"load_extension\"('/tmp/evil.so')",
		"SELECT LoAd_ExTeNsIoN('x')",
		"SELECT readfile('/etc/passwd')",
		"SELECT writefile('/tmp/x', 'y')",
		"SELECT * FROM fsdir('/')",
		"SELECT * FROM 'sqlite_dbpage'",
		"SELECT * FROM pragma_database_list",
		"PRAGMA writable_schema = 1",
		"PRAGMA query_only = 0",
		"VACUUM INTO '/tmp/cardedge-copy.sqlite'",
		"WITH x AS (SELECT 1) DELETE FROM sales",
		"WITH x AS (SELECT 1) INSERT INTO sales SELECT * FROM sales",
		"UPDATE sales SET price_cents = 0",
		"INSERT INTO sales DEFAULT VALUES",
		"CREATE TEMP TABLE t AS SELECT 1",
		"BEGIN; DELETE FROM sales; COMMIT",
		"EXPLAIN SELECT 1",
		"SELECT ?",
		"SELECT :name",
		"SELECT 1\x00; DELETE FROM sales",
		"SELECT '" + strings.Repeat("x", 17<<10) + "'",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r",
		"SELECT count(*) FROM sales a, sales b, sales c",
		"SELECT length(randomblob(2000000000))",
		"SELECT group_concat(hex(randomblob(1000))) FROM sales",
	}
	for _, sql := range refused {
		name := sql
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			r := query(sql)
			checkResponse(t, sql, r)
			if r.status != 422 {
				t.Fatalf("status %d, want 422: %s", r.status, truncate(r.body))
			}
			if locs := loc422(t, r); !slices.Contains(locs, "sql") && !slices.Contains(locs, "body") {
				t.Fatalf("422 at %v, want body.sql", locs)
			}
		})
	}
	// A recursive CTE without a stop is cut at max_rows, not refused.
	r := query("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT n FROM r")
	var b struct {
		Data struct {
			Rows      [][]any `json:"rows"`
			Truncated bool    `json:"truncated"`
		} `json:"data"`
	}
	if json.Unmarshal(r.body, &b); r.status != 200 || !b.Data.Truncated || len(b.Data.Rows) != 1000 {
		t.Errorf("endless recursive CTE: %d, %d rows, truncated %v", r.status, len(b.Data.Rows), b.Data.Truncated)
	}
	if after := count(); after != before {
		t.Errorf("sales changed: %s, then %s", before, after)
	}
	// Off the allowlist and without a key.
	noSQL := newEnvKey(t, access.Elite, false, true)
	for k, want := range map[string]int{noSQL: 403, "": 401} {
		var hdrs []string
		if k != "" {
			hdrs = append(hdrs, "Authorization: Bearer "+k)
		}
		if r := exchange(t, envDial, request("POST", "/api/v3/sql", []byte(`{"sql":"SELECT 1"}`), hdrs...)); r.status != want {
			t.Errorf("SQL with key %q: %d, want %d", k, r.status, want)
		}
	}
	mustHealthy(t, envDial, "SQL bypass attempts")
}
