package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Fetcher reads locations: local files and directories, and https URLs.
// The zero value is not usable; NewFetcher fills it.
type Fetcher struct {
	// Client makes the requests.
	Client *http.Client
	// UserAgent is sent with every request (UserAgent says what it holds).
	UserAgent string
	// CacheDir keeps each URL's last body with its ETag and Last-Modified,
	// so the next request is conditional and a 304 reads the cached body;
	// "" makes every request unconditional.
	CacheDir string
	// Retries is how many times a transient failure (a network error, 408,
	// 425, 429, 5xx) is retried; Backoff the first wait, doubled each time
	// up to MaxBackoff (a Retry-After of the server counts, up to
	// MaxBackoff).
	Retries    int
	Backoff    time.Duration
	MaxBackoff time.Duration
	// MaxBytes bounds one body: a larger one is an error, never truncated.
	MaxBytes int64
}

// NewFetcher returns a Fetcher with a 2-minute request timeout, 4 retries
// from 1 s doubling to 30 s, bodies up to 1 GiB, and the User-Agent of
// version and contact.
func NewFetcher(version, contact, cacheDir string) *Fetcher {
	return &Fetcher{
		Client:    &http.Client{Timeout: 2 * time.Minute},
		UserAgent: UserAgent(version, contact),
		CacheDir:  cacheDir, Retries: 4, Backoff: time.Second, MaxBackoff: 30 * time.Second, MaxBytes: 1 << 30,
	}
}

// UserAgent is the User-Agent cardedge sends: "cardedge/<version>
// (+<contact>)", the contact being the operator's URL or email so that a
// source knows whom to ask; without a contact it says so.
func UserAgent(version, contact string) string {
	if version == "" {
		version = "dev"
	}
	contact = strings.TrimSpace(contact)
	if contact == "" {
		contact = "no contact given"
	}
	return "cardedge/" + version + " (+" + contact + ")"
}

// File is one location's bytes.
type File struct {
	Location string
	Body     []byte
	// ModTime is the file's modification time or the response's
	// Last-Modified (zero when unknown).
	ModTime time.Time
	// Cached reports a 304: the body is the cached one.
	Cached bool
}

// ErrNotFound is a location that does not exist (no such file, 404, 410).
var ErrNotFound = errors.New("not found")

// IsURL reports whether loc is an http(s) URL rather than a path.
func IsURL(loc string) bool {
	return strings.HasPrefix(loc, "https://") || strings.HasPrefix(loc, "http://")
}

// Join appends path elements to a location, a path or a URL.
func Join(loc string, elem ...string) string {
	if IsURL(loc) {
		return strings.TrimRight(loc, "/") + "/" + path.Join(elem...)
	}
	return filepath.Join(append([]string{loc}, elem...)...)
}

// Get reads a location whole. A URL must be https, or http on a loopback
// address (tests).
// Every error wraps ErrUnavailable (and ErrNotFound for a location that
// does not exist).
func (f *Fetcher) Get(ctx context.Context, loc string) (*File, error) {
	var file *File
	var err error
	if IsURL(loc) {
		file, err = f.getURL(ctx, loc)
	} else {
		file, err = f.getFile(loc)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return file, nil
}

// ErrUnavailable is a location that could not be read (missing, a network
// failure, an HTTP error): the day of its source is missing, not refused.
var ErrUnavailable = errors.New("unavailable")

func (f *Fetcher) getFile(loc string) (*File, error) {
	fh, err := os.Open(loc)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", loc, ErrNotFound)
		}
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, want a file", loc)
	}
	body, err := readAllLimit(fh, f.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", loc, err)
	}
	return &File{Location: loc, Body: body, ModTime: st.ModTime().UTC()}, nil
}

func readAllLimit(r io.Reader, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = 1 << 30
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return b, nil
}

// cacheMeta is what the cache keeps beside a URL's body.
type cacheMeta struct {
	URL          string `json:"url"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Digest       string `json:"sha256"`
}

func (f *Fetcher) cachePaths(u string) (body, meta string) {
	sum := sha256.Sum256([]byte(u))
	name := hex.EncodeToString(sum[:12])
	return filepath.Join(f.CacheDir, name+".body"), filepath.Join(f.CacheDir, name+".json")
}

// cached returns the cached body and meta of u when both are there and the
// body matches its digest.
func (f *Fetcher) cached(u string) ([]byte, *cacheMeta) {
	if f.CacheDir == "" {
		return nil, nil
	}
	bp, mp := f.cachePaths(u)
	mb, err := os.ReadFile(mp)
	if err != nil {
		return nil, nil
	}
	var m cacheMeta
	if json.Unmarshal(mb, &m) != nil || m.URL != u {
		return nil, nil
	}
	body, err := os.ReadFile(bp)
	if err != nil {
		return nil, nil
	}
	sum := sha256.Sum256(body)
	if hex.EncodeToString(sum[:]) != m.Digest {
		return nil, nil
	}
	return body, &m
}

func (f *Fetcher) store(u string, body []byte, resp *http.Response) error {
	if f.CacheDir == "" {
		return nil
	}
	if err := os.MkdirAll(f.CacheDir, 0o755); err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	m := cacheMeta{URL: u, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"), Digest: hex.EncodeToString(sum[:])}
	mb, err := json.Marshal(m)
	if err != nil {
		return err
	}
	bp, mp := f.cachePaths(u)
	for _, x := range []struct {
		path string
		b    []byte
	}{{bp, body}, {mp, mb}} {
		tmp := x.path + ".tmp"
		if err := os.WriteFile(tmp, x.b, 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, x.path); err != nil {
			return err
		}
	}
	return nil
}

func checkURL(loc string) error {
	u, err := url.Parse(loc)
	if err != nil {
		return fmt.Errorf("bad URL %q: %w", loc, err)
	}
	if u.Scheme == "https" {
		return nil
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
		return nil
	}
	return fmt.Errorf("URL %s: use https (plain http only on a loopback address)", loc)
}

func (f *Fetcher) getURL(ctx context.Context, loc string) (*File, error) {
	if err := checkURL(loc); err != nil {
		return nil, err
	}
	cachedBody, meta := f.cached(loc)
	wait := f.Backoff
	for attempt := 0; ; attempt++ {
		file, retryAfter, err := f.try(ctx, loc, cachedBody, meta)
		if err == nil {
			return file, nil
		}
		var te *transientError
		if !errors.As(err, &te) || attempt >= f.Retries || ctx.Err() != nil {
			if te != nil {
				err = te.err
			}
			return nil, fmt.Errorf("get %s: %w", loc, err)
		}
		d := wait
		if retryAfter > d {
			d = retryAfter
		}
		if f.MaxBackoff > 0 && d > f.MaxBackoff {
			d = f.MaxBackoff
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("get %s: %w (after %v)", loc, ctx.Err(), te.err)
		case <-t.C:
		}
		wait *= 2
	}
}

// transientError is a failure worth retrying.
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }

func (f *Fetcher) try(ctx context.Context, loc string, cachedBody []byte, meta *cacheMeta) (*File, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("User-Agent", f.UserAgent)
	if meta != nil {
		if meta.ETag != "" {
			req.Header.Set("If-None-Match", meta.ETag)
		}
		if meta.LastModified != "" {
			req.Header.Set("If-Modified-Since", meta.LastModified)
		}
	}
	resp, err := f.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return nil, 0, &transientError{err}
	}
	defer resp.Body.Close()
	modTime := func(h string) time.Time {
		t, err := http.ParseTime(h)
		if err != nil {
			return time.Time{}
		}
		return t.UTC()
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && meta != nil:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return &File{Location: loc, Body: cachedBody, ModTime: modTime(meta.LastModified), Cached: true}, 0, nil
	case resp.StatusCode == http.StatusOK:
		body, err := readAllLimit(resp.Body, f.MaxBytes)
		if err != nil {
			// A connection cut mid-body is worth another try; a body too
			// large is not.
			if strings.Contains(err.Error(), "larger than") {
				return nil, 0, err
			}
			return nil, 0, &transientError{fmt.Errorf("read body: %w", err)}
		}
		if err := f.store(loc, body, resp); err != nil {
			return nil, 0, fmt.Errorf("cache: %w", err)
		}
		return &File{Location: loc, Body: body, ModTime: modTime(resp.Header.Get("Last-Modified"))}, 0, nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, 0, fmt.Errorf("HTTP %s: %w", resp.Status, ErrNotFound)
	}
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	err = fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(snippet)))
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusTooEarly, http.StatusTooManyRequests,
		http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		var after time.Duration
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			after = time.Duration(s) * time.Second
		}
		return nil, after, &transientError{err}
	}
	return nil, 0, err
}

// ReadDir lists the entries of a local directory, sorted (a URL has no
// listing: the sources that take directories name their paths).
func ReadDir(loc string) ([]string, error) {
	if IsURL(loc) {
		return nil, fmt.Errorf("%s: a URL cannot be listed; give a directory", loc)
	}
	entries, err := os.ReadDir(loc)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// IsDir reports whether loc is a local directory.
func IsDir(loc string) bool {
	if IsURL(loc) {
		return false
	}
	st, err := os.Stat(loc)
	return err == nil && st.IsDir()
}

// Digest is the hex SHA-256 of bodies, in order (with their lengths, so
// that two splits of the same bytes differ).
func Digest(bodies ...[]byte) string {
	h := sha256.New()
	for _, b := range bodies {
		fmt.Fprintf(h, "%d:", len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TrimBOM drops a UTF-8 byte order mark at the start of b.
func TrimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}
