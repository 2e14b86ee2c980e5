package edge

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/bulk"
	"github.com/cardedge/cardedge/openapi"
	"github.com/cardedge/cardedge/snapshots"
	"github.com/valyala/fasthttp"
)

// Bulk data: the snapshot's bulk files (package bulk) listed at
// /api/v3/bulk and streamed from the snapshot's files at
// /api/v3/bulk/{name}, with their schemas at /api/v3/bulk/{name}/schema.
//
// The listing and the schemas are free (uncharged: small, and read before
// every download). A download is a raw route that charges itself: the file's
// tier (access.CheckTier: price-history needs Elite), then If-None-Match
// (304, free) and Range (206; 416 for a range no byte satisfies); a HEAD
// gets the headers and is free; a GET then takes the download limit
// (access.Downloads, not the Playground's per-second rule) and, with a key,
// one unit of its quota. The bytes go from the file to the
// socket (fasthttp's sendfile path: bulkStream) and never through the
// response cache or the front-door memo. The stream holds a reference on
// its snapshot, so a download that started before a swap finishes from the
// old snapshot's file.

// bulkFile is one bulk file of an open snapshot (bulk.Load: with its
// validators) and the tier a download needs.
type bulkFile struct {
	*bulk.LoadedFile
	tier access.Tier
}

// snapshotBulk is the bulk files of an open snapshot (none for a snapshot
// built before bulk files).
type snapshotBulk struct {
	loaded *bulk.Loaded
	files  map[string]*bulkFile
}

// loadBulk loads the snapshot's bulk files (bulk.Load: a bulk index that
// does not agree with the manifest refuses the snapshot, as does a kind
// whose tier is none of access's).
func loadBulk(dir string, m *snapshots.Manifest) (*snapshotBulk, error) {
	l, err := bulk.Load(dir, m)
	if err != nil {
		return nil, err
	}
	sb := &snapshotBulk{loaded: l, files: map[string]*bulkFile{}}
	for name, f := range l.Files {
		tier, err := access.ParseTier(f.Kind.Tier)
		if err != nil {
			return nil, err
		}
		sb.files[name] = &bulkFile{LoadedFile: f, tier: tier}
	}
	return sb, nil
}

// bulkFiles returns the snapshot's bulk files (none when it was not
// warmed).
func (s *snapshot) bulkFiles() *snapshotBulk {
	if s.bulk == nil {
		return &snapshotBulk{}
	}
	return s.bulk
}

func (s *Server) registerBulkRoutes() {
	s.downloads = access.NewDownloads(access.DownloadsPerMinute, nil)
	s.router.add(&route{method: "GET", pattern: "/api/v3/bulk", name: "bulk_list", contract: "bulk-data.v1", keyless: true, cacheable: true, uncharged: true,
		summary: "The bulk files of the live snapshot: per game cards, sets, prices and price-history as gzip JSON Lines, " +
			"with size, SHA-256, rows, schema, the tier a download needs and the catalog sources' licenses",
		schema: "BulkList", handle: s.handleBulkList})
	s.router.add(&route{method: "GET", pattern: "/api/v3/bulk/{name}", name: "bulk_download", keyless: true, uncharged: true,
		summary: fmt.Sprintf("Download one bulk file (application/gzip): ETag (its SHA-256), If-None-Match (304), Range (206, one range) "+
			"to resume; %d downloads per minute per client address (per key with one); price-history needs an Elite key", access.DownloadsPerMinute),
		raw: s.handleBulkDownload, responses: bulkDownloadResponses})
	s.router.add(&route{method: "GET", pattern: "/api/v3/bulk/{name}/schema", name: "bulk_schema", keyless: true, uncharged: true,
		summary: "The JSON Schema (2020-12) of one line of a bulk file", raw: s.handleBulkSchema, responses: bulkSchemaResponses})
}

// bulkListPayload is bulk-data.v1.
type bulkListPayload struct {
	SnapshotID string `json:"snapshot_id"`
	AsOf       string `json:"as_of"`
	// UpdatedAt is when the snapshot (and so every file) was built, RFC 3339.
	UpdatedAt string `json:"updated_at"`
	// MarketSource is synthetic (generated market data: Synthetic), feed
	// or sources (the marketplaces' files).
	MarketSource  string            `json:"market_source" enum:"synthetic,feed,sources"`
	Synthetic     bool              `json:"synthetic"`
	DownloadLimit bulkDownloadLimit `json:"download_limit"`
	Notice        string            `json:"notice"`
	Items         []bulkItem        `json:"items"`
}

type bulkDownloadLimit struct {
	PerMinute int    `json:"per_minute"`
	Per       string `json:"per"`
}

// bulkItem is one file of the listing.
type bulkItem struct {
	Name        string `json:"name"`
	Game        string `json:"game"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	Rows        int64  `json:"rows"`
	UpdatedAt   string `json:"updated_at"`
	DownloadURL string `json:"download_url"`
	SchemaURL   string `json:"schema_url"`
	// Tier is the tier a download needs: playground (no key) or elite.
	Tier string `json:"tier"`
	// Sources are the catalog sources the rows draw on, with their
	// licenses; SourcesLicensed is false when one of them declares none.
	Sources         []bulk.Source `json:"sources"`
	SourcesLicensed bool          `json:"sources_licensed"`
}

func (s *Server) handleBulkList(r *request) (any, error) {
	m := r.snap.Manifest()
	p := bulkListPayload{SnapshotID: m.SnapshotID, AsOf: m.AsOf, UpdatedAt: m.BuiltAt, MarketSource: m.MarketSource, Synthetic: m.Synthetic(),
		DownloadLimit: bulkDownloadLimit{PerMinute: s.downloads.PerMinute(), Per: "client address without a key, key with one"},
		Notice:        bulk.TrademarkNotice, Items: []bulkItem{}}
	sb := r.snap.bulkFiles()
	if sb.loaded == nil || sb.loaded.Index == nil {
		return p, nil
	}
	for _, f := range sb.loaded.Index.Files {
		bf := sb.files[f.Name]
		it := bulkItem{Name: f.Name, Game: f.Game, Kind: f.Kind, Description: bf.Kind.Description, ContentType: "application/gzip",
			Size: f.Size, SHA256: f.SHA256, Rows: f.Rows, UpdatedAt: m.BuiltAt,
			DownloadURL: "/api/v3/bulk/" + f.Name, SchemaURL: "/api/v3/bulk/" + f.Name + "/schema", Tier: bf.Kind.Tier}
		it.Sources, it.SourcesLicensed = bulk.SourcesOf(f.Sources)
		p.Items = append(p.Items, it)
	}
	return p, nil
}

// bulkFileOf returns the file a request names, or answers 404.
func (s *Server) bulkFileOf(r *request) *bulkFile {
	sb := r.snap.bulkFiles()
	f, err := sb.loaded.Lookup(r.vars.list()[0])
	if err != nil {
		s.writeError(r.ctx, err)
		return nil
	}
	return sb.files[f.Name]
}

func (s *Server) handleBulkSchema(r *request) {
	f := s.bulkFileOf(r)
	if f == nil {
		return
	}
	ctx := r.ctx
	h := &ctx.Response.Header
	h.SetCanonical(hdrETag, f.SchemaETag)
	h.SetCanonical(hdrCacheControl, bulkCacheControl)
	if inm := r.hdr.ifNoneMatch; len(inm) > 0 && etagMatch(inm, f.SchemaETag) {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		ctx.Response.SkipBody = true
		return
	}
	h.SetContentType("application/schema+json")
	ctx.Response.SetBodyRaw(f.Schema)
}

var (
	bulkCacheControl        = []byte("public, max-age=300")
	bulkCacheControlPrivate = []byte("private, max-age=300")
	mimeGzip                = []byte("application/gzip")
	hdrAcceptRanges         = []byte("Accept-Ranges")
	bytesUnit               = []byte("bytes")
)

func (s *Server) handleBulkDownload(r *request) {
	ctx := r.ctx
	f := s.bulkFileOf(r)
	if f == nil {
		return
	}
	if err := access.CheckTier(r.caller, f.tier, f.Name); err != nil {
		s.metrics.limited.Add("unauthorized", 1)
		s.writeAccessHeaders(ctx, r.caller, nil)
		s.writeError(ctx, err)
		return
	}
	h := &ctx.Response.Header
	h.SetCanonical(hdrETag, f.ETag)
	h.SetCanonical(hdrAcceptRanges, bytesUnit)
	if f.tier == access.Playground {
		h.SetCanonical(hdrCacheControl, bulkCacheControl)
	} else {
		h.SetCanonical(hdrCacheControl, bulkCacheControlPrivate)
		h.SetCanonical(hdrVary, []byte("Authorization"))
	}
	if inm := r.hdr.ifNoneMatch; len(inm) > 0 && etagMatch(inm, f.ETag) {
		s.writeAccessHeaders(ctx, r.caller, nil)
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		ctx.Response.SkipBody = true
		return
	}
	start, n, partial, err := bulk.ParseRange(ctx.Request.Header.Peek("Range"), ctx.Request.Header.Peek("If-Range"), f.ETag, f.Size)
	if err != nil {
		h.Set("Content-Range", "bytes */"+strconv.FormatInt(f.Size, 10))
		s.writeAccessHeaders(ctx, r.caller, nil)
		s.writeError(ctx, err)
		return
	}
	if ctx.IsHead() { // the headers a GET would have; not a download
		s.writeAccessHeaders(ctx, r.caller, nil)
		s.writeBulkHeaders(r, f, start, n, partial)
		h.SetContentLength(int(n))
		return
	}
	if wait, err := s.downloads.Take(r.caller); err != nil {
		s.metrics.limited.Add(apperr.EQUOTA, 1)
		s.writeAccessHeaders(ctx, r.caller, nil)
		h.Set("Retry-After", strconv.Itoa(wait))
		s.writeError(ctx, err)
		return
	}
	if r.caller.KeyID != "" {
		dec, ok := s.charge(ctx, r.caller, 1)
		if !ok {
			return
		}
		s.writeAccessHeaders(ctx, r.caller, &dec)
	} else {
		s.writeAccessHeaders(ctx, r.caller, nil)
	}
	file, err := os.Open(f.Path)
	if err == nil {
		var fi os.FileInfo
		if fi, err = file.Stat(); err == nil && fi.Size() != f.Size {
			err = fmt.Errorf("%s: %d bytes, the index says %d", f.Path, fi.Size(), f.Size)
		}
		if err == nil && start > 0 {
			_, err = file.Seek(start, io.SeekStart)
		}
		if err != nil {
			file.Close()
		}
	}
	if err != nil {
		s.writeError(ctx, fmt.Errorf("bulk download: %w", err))
		return
	}
	s.writeBulkHeaders(r, f, start, n, partial)
	r.snap.Retain() // the stream's: released when fasthttp closes it
	ctx.Response.SetBodyStream(&bulkStream{file: file, lr: io.LimitedReader{R: file, N: n}, release: r.snap.release}, int(n))
}

// writeBulkHeaders writes the status and headers of a file's (part's) body.
func (s *Server) writeBulkHeaders(r *request, f *bulkFile, start, n int64, partial bool) {
	h := &r.ctx.Response.Header
	h.SetContentTypeBytes(mimeGzip)
	h.Set("Content-Disposition", `attachment; filename="`+f.File.Path+`"`)
	h.SetCanonical([]byte("Repr-Digest"), f.Digest)
	h.Set("Last-Modified", bulkLastModified(r.snap.Manifest().BuiltAt))
	if partial {
		r.ctx.SetStatusCode(fasthttp.StatusPartialContent)
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, start+n-1, f.Size))
	}
}

// bulkLastModified formats the snapshot's build time as an HTTP date.
func bulkLastModified(builtAt string) string {
	t, err := time.Parse(time.RFC3339, builtAt)
	if err != nil {
		return ""
	}
	return t.UTC().Format(http.TimeFormat)
}

// bulkStream is a download's body: a range of the file. fasthttp copies
// it with WriteTo (BodyWriterTo), which empties the response's write buffer
// and hands the file to the connection's ReadFrom, so the bytes go from the
// file to the socket with sendfile (through connguard's ReadFrom, which
// keeps the write timeout per step of progress). Close, which fasthttp
// calls once the response is written or dropped, closes the file and
// releases the snapshot.
type bulkStream struct {
	file    *os.File
	lr      io.LimitedReader
	release func()
	once    sync.Once
}

func (b *bulkStream) Read(p []byte) (int, error) { return b.lr.Read(p) }

// SupportsBodyWriteTo lets fasthttp call WriteTo.
func (b *bulkStream) SupportsBodyWriteTo() bool { return true }

// WriteTo sends the range to w: fasthttp's *bufio.Writer over the
// connection.
func (b *bulkStream) WriteTo(w io.Writer) (int64, error) {
	if f, ok := w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil { // an empty buffer: bufio.Writer.ReadFrom hands the file to the connection
			return 0, err
		}
	}
	if rf, ok := w.(io.ReaderFrom); ok {
		return rf.ReadFrom(&b.lr)
	}
	return io.Copy(w, &b.lr)
}

func (b *bulkStream) Close() error {
	b.once.Do(func() {
		b.file.Close()
		b.release()
	})
	return nil
}

// OpenAPI responses of the download and schema routes (not JSON
// envelopes). Each call makes new maps: the document adds the recorded
// examples to them.

const (
	docETag         = "The file's SHA-256 in quotes: a strong validator for If-None-Match and If-Range."
	docCacheControl = "public, max-age=300 (price-history: private, as it needs a key)."
)

func bulkDownloadResponses() map[string]any {
	fileHeaders := func(extra ...string) map[string]any {
		return openapi.Headers(append([]string{
			"Content-Length", "The bytes of the body.",
			"ETag", docETag,
			"Accept-Ranges", "bytes: a download resumes with Range.",
			"Cache-Control", docCacheControl,
			"Content-Disposition", "attachment; filename=\"<name>.jsonl.gz\".",
			"Repr-Digest", "The SHA-256 of the whole file (RFC 9530), base64: sha-256=:<base64>:.",
			"Last-Modified", "When the snapshot (and so the file) was built.",
		}, extra...)...)
	}
	gzip := func() map[string]any { return map[string]any{"application/gzip": map[string]any{}} }
	return map[string]any{
		"200": map[string]any{"description": "The whole file: gzip JSON Lines, one row per line, each valid against the schema at schema_url.",
			"headers": fileHeaders(), "content": gzip()},
		"206": map[string]any{"description": "One range of the file (Range: bytes=FIRST-[LAST] or bytes=-SUFFIX; If-Range with the ETag): how a download resumes.",
			"headers": fileHeaders("Content-Range", "bytes FIRST-LAST/SIZE."), "content": gzip()},
		"304": map[string]any{"description": "Not modified: If-None-Match matched the ETag. Not counted as a download.",
			"headers": openapi.Headers("ETag", docETag, "Accept-Ranges", "bytes.", "Cache-Control", docCacheControl)},
		"401": map[string]any{"description": "Missing or invalid key (price-history needs an Elite key)", "content": openapi.ErrorContent()},
		"403": map[string]any{"description": "The key's tier may not download this file (price-history: Elite)", "content": openapi.ErrorContent()},
		"404": map[string]any{"description": "No such bulk file", "content": openapi.ErrorContent()},
		"416": map[string]any{"description": "Range not satisfiable: no byte of the range exists, or several ranges, or a malformed one.",
			"headers": openapi.Headers("Content-Range", "bytes */SIZE: the file's size.", "ETag", docETag, "Accept-Ranges", "bytes.",
				"Cache-Control", docCacheControl),
			"content": openapi.ErrorContent()},
		"429": map[string]any{"description": fmt.Sprintf("The download limit (%d a minute per client address, per key with one) or the key's quota; see Retry-After", access.DownloadsPerMinute),
			"headers": openapi.Headers("Retry-After", "Seconds until a download is allowed."), "content": openapi.ErrorContent()},
	}
}

func bulkSchemaResponses() map[string]any {
	schemaHeaders := func() map[string]any {
		return openapi.Headers("ETag", "The schema's SHA-256 in quotes.", "Cache-Control", "public, max-age=300.")
	}
	return map[string]any{
		"200": map[string]any{"description": "The JSON Schema (2020-12) of one line of the file", "headers": schemaHeaders(), "content": map[string]any{
			"application/schema+json": map[string]any{"schema": map[string]any{"type": "object"}}}},
		"304": map[string]any{"description": "Not modified: If-None-Match matched the ETag.", "headers": schemaHeaders()},
		"404": map[string]any{"description": "No such bulk file", "content": openapi.ErrorContent()},
	}
}
