package e2e_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/bulk/bulktest"
	cardedgeclient "github.com/cardedge/cardedge/clients/go"
	"github.com/cardedge/cardedge/e2e/e2etest"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/cardedge/cardedge/snapshots/snapshotstest"
)

// End-to-end tests of the bulk files: the listing against the OpenAPI
// document, every file's checksum, rows and schema, resuming with Range,
// 304, the download limit, price-history's tier, and a download across a
// snapshot swap.

// bulkItem is one file of bulk-data.v1.
type bulkItem struct {
	Name        string `json:"name"`
	Game        string `json:"game"`
	Kind        string `json:"kind"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	Rows        int64  `json:"rows"`
	DownloadURL string `json:"download_url"`
	SchemaURL   string `json:"schema_url"`
	Tier        string `json:"tier"`
	Sources     []struct {
		Name        string  `json:"name"`
		License     *string `json:"license"`
		LicenseNote string  `json:"license_note"`
	} `json:"sources"`
	SourcesLicensed bool `json:"sources_licensed"`
}

// bulkList reads the listing of the edge at base (do checks it against the
// OpenAPI document when base is the shared edge's).
func bulkList(t *testing.T, c *http.Client) (map[string]bulkItem, e2etest.Reply) {
	t.Helper()
	r := do(t, c, "GET", "/api/v3/bulk", "", nil)
	if r.Status != 200 || r.JSON["contract"] != "bulk-data.v1" {
		t.Fatalf("bulk listing: %d %s", r.Status, truncate(r.Body))
	}
	return decodeBulkList(t, r.Body), r
}

func decodeBulkList(t *testing.T, body []byte) map[string]bulkItem {
	t.Helper()
	var env struct {
		Data struct {
			Items []bulkItem `json:"items"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	items := map[string]bulkItem{}
	for _, it := range env.Data.Items {
		items[it.Name] = it
	}
	return items
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestBulk_List(t *testing.T) {
	items, r := bulkList(t, freshClient())
	d := data(t, r)
	if d["snapshot_id"] != "s0001" || d["as_of"] != snapshotstest.AsOf || d["market_source"] != "synthetic" {
		t.Errorf("listing: %s", truncate(r.Body))
	}
	if lim, _ := d["download_limit"].(map[string]any); lim["per_minute"] != float64(access.DownloadsPerMinute) {
		t.Errorf("download_limit: %v", d["download_limit"])
	}
	if len(items) != 8 {
		t.Fatalf("%d files listed, want 8 (4 per game)", len(items))
	}
	for _, game := range []string{"pokemon", "onepiece"} {
		for _, kind := range []string{"cards", "sets", "prices", "price-history"} {
			it, ok := items[game+"-"+kind]
			if !ok {
				t.Errorf("no %s-%s", game, kind)
				continue
			}
			wantTier := "playground"
			if kind == "price-history" {
				wantTier = "elite"
			}
			if it.Tier != wantTier || it.DownloadURL != "/api/v3/bulk/"+it.Name || it.SchemaURL != it.DownloadURL+"/schema" || it.Rows == 0 || len(it.SHA256) != 64 {
				t.Errorf("%s: %+v", it.Name, it)
			}
			// Both games draw on a source that declares no license, and
			// the listing says so.
			unlicensed := ""
			for _, s := range it.Sources {
				if s.License == nil {
					unlicensed = s.Name
					if s.LicenseNote == "" {
						t.Errorf("%s: %s has no license and no note", it.Name, s.Name)
					}
				}
			}
			if unlicensed == "" || it.SourcesLicensed {
				t.Errorf("%s: sources %+v, licensed %v; want one declaring no license", it.Name, it.Sources, it.SourcesLicensed)
			}
		}
	}
	if s := items["pokemon-cards"].Sources; len(s) != 2 || s[0].Name != "pokemon-tcg-data" || s[1].Name != "tcgdex" || s[1].License == nil || *s[1].License != "MIT" {
		t.Errorf("pokemon-cards sources: %+v", s)
	}
	// The OpenAPI document describes the routes.
	for _, p := range []string{"/api/v3/bulk", "/api/v3/bulk/{name}", "/api/v3/bulk/{name}/schema"} {
		if env.api.Spec.Paths.Find(p) == nil {
			t.Errorf("the OpenAPI document has no %s", p)
		}
	}
}

// download GETs a bulk file and returns the e2etest.Reply.
func download(t *testing.T, c *http.Client, name, key string, hdr ...string) e2etest.Reply {
	t.Helper()
	return do(t, c, "GET", "/api/v3/bulk/"+name, key, nil, hdr...)
}

// TestBulk_Files downloads every file: its size, SHA-256 and rows are the
// listing's, and every row validates against the schema the listing
// names.
func TestBulk_Files(t *testing.T) {
	c := freshClient() // six keyless files: this address's whole allowance
	items, _ := bulkList(t, c)
	for name, it := range items {
		t.Run(name, func(t *testing.T) {
			key := ""
			if it.Tier == "elite" {
				key = env.keys["elite"]
			}
			r := download(t, c, name, key)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, truncate(r.Body))
			}
			if got := r.Header.Get("Content-Type"); got != "application/gzip" {
				t.Errorf("Content-Type %q", got)
			}
			if got := r.Header.Get("Content-Length"); got != strconv.FormatInt(it.Size, 10) || int64(len(r.Body)) != it.Size {
				t.Errorf("Content-Length %s, %d bytes; listing says %d", got, len(r.Body), it.Size)
			}
			if got := sha(r.Body); got != it.SHA256 {
				t.Errorf("sha256 %s, listing says %s", got, it.SHA256)
			}
			if got := r.Header.Get("ETag"); got != `"`+it.SHA256+`"` {
				t.Errorf("ETag %s", got)
			}
			if r.Header.Get("Accept-Ranges") != "bytes" || r.Header.Get("Repr-Digest") == "" {
				t.Errorf("headers: %v", r.Header)
			}
			s := do(t, c, "GET", it.SchemaURL, "", nil)
			if s.Status != 200 || s.Header.Get("Content-Type") != "application/schema+json" {
				t.Fatalf("schema: %d %s", s.Status, truncate(s.Body))
			}
			rows, err := bulktest.Check(s.Body, bytes.NewReader(r.Body))
			if err != nil {
				t.Fatal(err)
			}
			if rows != it.Rows {
				t.Errorf("%d rows, listing says %d", rows, it.Rows)
			}
		})
	}
}

// TestBulk_Resume interrupts a download halfway and resumes it with Range
// (as curl -C - does): the parts make the listed file.
func TestBulk_Resume(t *testing.T) {
	c := freshClient()
	items, _ := bulkList(t, c)
	it := items["pokemon-prices"]
	half := it.Size / 2
	// The first attempt: the connection drops after half the file.
	req, _ := http.NewRequest("GET", env.base+it.DownloadURL, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, half)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // not read to the end: the connection is closed
	// The resume.
	r := download(t, c, it.Name, "", "Range", fmt.Sprintf("bytes=%d-", half))
	if r.Status != 206 {
		t.Fatalf("resume: %d %s", r.Status, truncate(r.Body))
	}
	if got, want := r.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-%d/%d", half, it.Size-1, it.Size); got != want {
		t.Errorf("Content-Range %q, want %q", got, want)
	}
	if got := sha(append(first, r.Body...)); got != it.SHA256 {
		t.Errorf("resumed file has sha256 %s, listing says %s", got, it.SHA256)
	}

	t.Run("Parts", func(t *testing.T) {
		c := freshClient()
		whole := download(t, c, it.Name, "").Body
		for _, tc := range []struct {
			rng        string
			start, end int64
		}{
			{"bytes=0-99", 0, 99},
			{"bytes=-100", it.Size - 100, it.Size - 1},
			{fmt.Sprintf("bytes=%d-%d", it.Size-10, it.Size+1000), it.Size - 10, it.Size - 1},
		} {
			r := download(t, c, it.Name, "", "Range", tc.rng)
			if r.Status != 206 || !bytes.Equal(r.Body, whole[tc.start:tc.end+1]) {
				t.Errorf("%s: %d, %d bytes", tc.rng, r.Status, len(r.Body))
			}
		}
	})
	t.Run("IfRange", func(t *testing.T) {
		c := freshClient()
		r := download(t, c, it.Name, "", "Range", "bytes=100-", "If-Range", `"`+it.SHA256+`"`)
		if r.Status != 206 {
			t.Errorf("If-Range matching: %d", r.Status)
		}
		r = download(t, c, it.Name, "", "Range", "bytes=100-", "If-Range", `"0123"`)
		if r.Status != 200 || sha(r.Body) != it.SHA256 {
			t.Errorf("If-Range of another file: %d, want the whole file", r.Status)
		}
	})
	t.Run("ErrRange", func(t *testing.T) {
		c := freshClient()
		for _, rng := range []string{fmt.Sprintf("bytes=%d-", it.Size), "bytes=0-1,5-6", "bytes=5-1", "bytes=x-"} {
			r := download(t, c, it.Name, "", "Range", rng)
			if r.Status != 416 || r.JSON["contract"] != "error.v1" || r.Header.Get("Content-Range") != fmt.Sprintf("bytes */%d", it.Size) {
				t.Errorf("%s: %d %s", rng, r.Status, truncate(r.Body))
			}
		}
	})
}

// TestBulk_GoClient lists and downloads a file through the Go client
// generated from the OpenAPI document (clients/go): the binary body is the
// listed file, a range no byte satisfies is its JSON416 error.v1.
func TestBulk_GoClient(t *testing.T) {
	c, err := cardedgeclient.NewClientWithResponses(env.base, cardedgeclient.WithHTTPClient(freshClient()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := c.BulkListWithResponse(ctx)
	if err != nil || list.JSON200 == nil {
		t.Fatalf("BulkList: %v %s", err, truncate(list.Body))
	}
	var it *cardedgeclient.BulkItem
	for i := range list.JSON200.Data.Items {
		if list.JSON200.Data.Items[i].Name == "onepiece-cards" {
			it = &list.JSON200.Data.Items[i]
		}
	}
	if it == nil {
		t.Fatalf("no onepiece-cards in %s", truncate(list.Body))
	}
	dl, err := c.BulkDownloadWithResponse(ctx, it.Name)
	if err != nil || dl.StatusCode() != 200 || sha(dl.Body) != it.Sha256 || len(dl.Body) != it.Size {
		t.Fatalf("BulkDownload: %v %d, %d bytes sha256 %s; listed %d bytes %s", err, dl.StatusCode(), len(dl.Body), sha(dl.Body), it.Size, it.Sha256)
	}
	past := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Range", fmt.Sprintf("bytes=%d-", it.Size))
		return nil
	}
	bad, err := c.BulkDownloadWithResponse(ctx, it.Name, past)
	if err != nil || bad.JSON416 == nil || bad.JSON416.Error.Code != "range_not_satisfiable" {
		t.Errorf("BulkDownload past the end: %v %d %s", err, bad.StatusCode(), truncate(bad.Body))
	}
}

// TestBulk_NotModified: If-None-Match with the ETag is a 304, again and
// again, and does not count as a download.
func TestBulk_NotModified(t *testing.T) {
	c := freshClient()
	items, _ := bulkList(t, c)
	it := items["onepiece-sets"]
	etag := download(t, c, it.Name, "").Header.Get("ETag")
	for i := 0; i < access.DownloadsPerMinute+2; i++ {
		r := download(t, c, it.Name, "", "If-None-Match", etag)
		if r.Status != 304 || len(r.Body) != 0 || r.Header.Get("ETag") != etag {
			t.Fatalf("If-None-Match #%d: %d %q", i+1, r.Status, r.Body)
		}
	}
	if r := download(t, c, it.Name, "", "If-None-Match", `"another"`); r.Status != 200 {
		t.Errorf("another ETag: %d", r.Status)
	}
	s := do(t, c, "GET", it.SchemaURL, "", nil)
	if r := do(t, freshClient(), "GET", it.SchemaURL, "", nil, "If-None-Match", s.Header.Get("ETag")); r.Status != 304 {
		t.Errorf("schema If-None-Match: %d", r.Status)
	}
}

// TestBulk_ErrLimit: a client address starts DownloadsPerMinute downloads,
// then gets 429 with Retry-After; another address is not affected.
func TestBulk_ErrLimit(t *testing.T) {
	c := freshClient()
	for i := 0; i < access.DownloadsPerMinute; i++ {
		if r := download(t, c, "pokemon-sets", ""); r.Status != 200 {
			t.Fatalf("download %d: %d %s", i+1, r.Status, truncate(r.Body))
		}
	}
	r := download(t, c, "pokemon-sets", "")
	if r.Status != 429 || r.JSON["contract"] != "error.v1" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("download %d: %d %s (Retry-After %q)", access.DownloadsPerMinute+1, r.Status, truncate(r.Body), r.Header.Get("Retry-After"))
	}
	// The listing is not a download, nor is a HEAD (the headers a GET
	// would get).
	l := do(t, c, "GET", "/api/v3/bulk", "", nil)
	if l.Status != 200 {
		t.Errorf("listing after the limit: %d", l.Status)
	}
	it := decodeBulkList(t, l.Body)["pokemon-sets"]
	req, _ := http.NewRequest("HEAD", env.base+it.DownloadURL, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != it.Size || resp.Header.Get("ETag") != `"`+it.SHA256+`"` || resp.Header.Get("Content-Type") != "application/gzip" {
		t.Errorf("HEAD after the limit: %d, Content-Length %d, headers %v", resp.StatusCode, resp.ContentLength, resp.Header)
	}
	if r := download(t, freshClient(), "pokemon-sets", ""); r.Status != 200 {
		t.Errorf("another address: %d", r.Status)
	}
}

// TestBulk_ErrTier: price-history without an Elite key is a 401 (no key)
// or 403 (another tier) with error.v1.
func TestBulk_ErrTier(t *testing.T) {
	c := freshClient()
	for _, tc := range []struct {
		key    string
		status int
		code   string
	}{
		{"", 401, "unauthorized"},
		{env.keys["free"], 403, "forbidden"},
		{env.keys["pro"], 403, "forbidden"},
		{"ce_e_notakey", 401, "unauthorized"},
	} {
		r := download(t, c, "pokemon-price-history", tc.key)
		e, _ := r.JSON["error"].(map[string]any)
		if r.Status != tc.status || r.JSON["contract"] != "error.v1" || e["code"] != tc.code {
			t.Errorf("key %.8q: %d %s, want %d %s", tc.key, r.Status, truncate(r.Body), tc.status, tc.code)
		}
	}
	if r := download(t, c, "nope", ""); r.Status != 404 || r.JSON["contract"] != "error.v1" {
		t.Errorf("unknown file: %d %s", r.Status, truncate(r.Body))
	}
}

// TestBulk_Swap starts a download, publishes a new snapshot (other files),
// removes the old one from disk as the builder's pruning would, and only
// then reads the rest: the download ends with the old file's checksum,
// and the listing names the new files.
func TestBulk_Swap(t *testing.T) {
	root := e2etest.CopyRoot(t, env.root, "s0001")
	// The tiny snapshot's files fit in a connection's buffers (up to 4 MiB
	// on each side): the download would be written before the swap. A
	// 24 MiB file stays mostly on the server's side until it is read.
	growBulkFile(t, filepath.Join(root, "s0001"), "pokemon-price-history", 24<<20)
	e := serveRoot(t, root) // serve watches CURRENT every second
	base := e.Base
	key := e.key(t, access.Elite, false, false)
	list := func() map[string]bulkItem {
		t.Helper()
		return decodeBulkList(t, e2etest.Body(t, base+"/api/v3/bulk"))
	}
	old := list()["pokemon-price-history"]

	// A client with a small receive buffer, reading 4 KiB and stopping:
	// most of the file stays on the server's side of the connection.
	d := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableCompression: true}}
	req, _ := http.NewRequest("GET", base+old.DownloadURL, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("download: %d", resp.StatusCode)
	}
	h := sha256.New()
	if _, err := io.CopyN(h, resp.Body, 4096); err != nil {
		t.Fatal(err)
	}

	if _, err := snapshotstest.Build(root, 7, "2026-11-21", "s0002"); err != nil {
		t.Fatal(err)
	}
	e2etest.WaitAsOf(t, base, "2026-11-21")
	if err := os.RemoveAll(filepath.Join(root, "s0001")); err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(h, resp.Body)
	if err != nil {
		t.Fatalf("the rest of the download: %v", err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != old.SHA256 || n+4096 != old.Size {
		t.Errorf("download across the swap: %d bytes sha256 %s, want the old file's %d bytes %s", n+4096, got, old.Size, old.SHA256)
	}
	if now := list()["pokemon-price-history"]; now.SHA256 == old.SHA256 {
		t.Errorf("the new snapshot lists the old file")
	}
	// The new file downloads whole.
	req, _ = http.NewRequest("GET", base+old.DownloadURL, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp2.Body)
	resp2.Body.Close()
	if resp2.StatusCode != 200 || sha(b) != list()["pokemon-price-history"].SHA256 {
		t.Errorf("the new file: %d, sha256 %s", resp2.StatusCode, sha(b))
	}
}

// growBulkFile replaces a bulk file of the snapshot in dir with size bytes
// of other content, and its size and SHA-256 in the bulk index and the
// manifest, so that the snapshot still verifies.
func growBulkFile(t *testing.T, dir, name string, size int) {
	t.Helper()
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i*131 + i>>11)
	}
	rel := "bulk/" + name + ".jsonl.gz"
	if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha(b)
	ixPath := filepath.Join(dir, "bulk", "index.json")
	var ix map[string]any
	ib, _ := os.ReadFile(ixPath)
	if err := json.Unmarshal(ib, &ix); err != nil {
		t.Fatal(err)
	}
	for _, f := range ix["files"].([]any) {
		if f := f.(map[string]any); f["name"] == name {
			f["size"], f["sha256"] = size, sum
		}
	}
	ib, _ = json.Marshal(ix)
	if err := os.WriteFile(ixPath, ib, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := snapshots.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Files[rel] = sum
	m.Files["bulk/index.json"] = sha(ib)
	if err := snapshots.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}
