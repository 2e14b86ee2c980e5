package s3

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/cardedge/cardedge/snapshots"
)

// Location is where a deployment's snapshots live: a bucket and a key
// prefix, written s3://BUCKET/PREFIX. The bucket mirrors a local snapshots
// root: PREFIX/CURRENT names the live snapshot, PREFIX/<id>/<file> are its
// files (PREFIX/<id>/manifest.json among them).
type Location struct {
	Bucket string
	Prefix string // without leading or trailing "/"; may be empty
}

// ParseURL parses s3://BUCKET[/PREFIX].
func ParseURL(raw string) (Location, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return Location{}, fmt.Errorf("snapshots/s3: %q is not s3://BUCKET/PREFIX", raw)
	}
	return Location{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}, nil
}

// IsURL reports whether s names a bucket (s3://...) rather than a directory.
func IsURL(s string) bool { return strings.HasPrefix(s, "s3://") }

func (l Location) String() string {
	if l.Prefix == "" {
		return "s3://" + l.Bucket
	}
	return "s3://" + l.Bucket + "/" + l.Prefix
}

// key returns the object key of the slash-joined parts below the prefix.
func (l Location) key(parts ...string) string {
	k := strings.Join(parts, "/")
	if l.Prefix == "" {
		return k
	}
	return l.Prefix + "/" + k
}

// ClientOptions configure NewClient.
type ClientOptions struct {
	// MaxAttempts is how many times the client tries a request that failed
	// in a retryable way (a 5xx, a throttle, a reset connection); 0 means 5.
	MaxAttempts int
	// Timeout bounds each attempt's connection and response headers; 0
	// means 10 s. A body still streaming is not bounded by it.
	Timeout time.Duration
}

// NewClient returns an S3 client configured the standard AWS way: the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
// AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3, AWS_PROFILE) and the shared
// config and credentials files. With an endpoint set (an S3-compatible
// server) it addresses buckets path-style (http://host/bucket/key), which
// every such server understands; on AWS itself, virtual-hosted style. It
// sends checksums only when an operation requires them (AWS_REQUEST_CHECKSUM_CALCULATION
// overrides), since not every S3-compatible server takes the newer trailing
// checksums: integrity is the manifest's SHA-256, checked by every reader.
func NewClient(ctx context.Context, o ClientOptions) (*awss3.Client, error) {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(so *retry.StandardOptions) {
				so.MaxAttempts = o.MaxAttempts
				so.MaxBackoff = 5 * time.Second
			})
		}),
		config.WithHTTPClient(newHTTPClient(o.Timeout)),
	}
	if !envSet("AWS_REQUEST_CHECKSUM_CALCULATION") {
		opts = append(opts, config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired))
	}
	if !envSet("AWS_RESPONSE_CHECKSUM_VALIDATION") {
		opts = append(opts, config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("snapshots/s3: AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1" // S3-compatible servers ignore it; SigV4 needs one
	}
	return awss3.NewFromConfig(cfg, func(so *awss3.Options) {
		if so.BaseEndpoint != nil {
			so.UsePathStyle = true
		}
	}), nil
}

// Options configure a Bucket. Every zero value has a documented default.
type Options struct {
	// Concurrency is how many transfers (files, or parts of a large file)
	// run at once; 0 means 4.
	Concurrency int
	// PartSize is the size of a multipart upload's parts: files larger
	// than it are uploaded in parts; 0 means 16 MiB (S3's minimum is 5 MiB).
	PartSize int64
	// Attempts is how many times a transfer is tried before the whole
	// operation fails (beyond the client's own retries of a request); 0
	// means 3.
	Attempts int
	// Pacer paces downloading and hashing (nil: full speed). Uploads are not
	// paced: the builder publishes on its own machine.
	Pacer *snapshots.Pacer
	// Logger receives progress and retries; nil means discard.
	Logger *slog.Logger
}

// Bucket publishes snapshots to, and fetches them from, one Location.
// Its methods are safe for concurrent use.
type Bucket struct {
	c    *awss3.Client
	loc  Location
	opts Options
	log  *slog.Logger
}

// New returns the Bucket of loc reached through c.
func New(c *awss3.Client, loc Location, o Options) *Bucket {
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.PartSize <= 0 {
		o.PartSize = 16 << 20
	}
	if o.PartSize < 5<<20 {
		o.PartSize = 5 << 20
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Bucket{c: c, loc: loc, opts: o, log: o.Logger}
}

// Location returns the bucket's location.
func (b *Bucket) Location() Location { return b.loc }

// Current returns the id PREFIX/CURRENT names and the object's ETag.
// ErrNotPublished: there is no CURRENT.
func (b *Bucket) Current(ctx context.Context) (id, etag string, err error) {
	id, etag, _, err = b.current(ctx, "")
	return id, etag, err
}

// current reads CURRENT unless its ETag is still etag (a conditional GET):
// then changed is false and id empty.
func (b *Bucket) current(ctx context.Context, etag string) (id, newETag string, changed bool, err error) {
	in := &awss3.GetObjectInput{Bucket: &b.loc.Bucket, Key: aws.String(b.loc.key(snapshots.CurrentFile))}
	if etag != "" {
		in.IfNoneMatch = &etag
	}
	out, err := b.c.GetObject(ctx, in)
	if err != nil {
		if statusOf(err) == 304 {
			return "", etag, false, nil
		}
		if notFound(err) {
			return "", "", false, fmt.Errorf("%w: %s", ErrNotPublished, b.loc)
		}
		return "", "", false, b.unreachable("read CURRENT", err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(io.LimitReader(out.Body, 256))
	if err != nil {
		return "", "", false, b.unreachable("read CURRENT", err)
	}
	id = strings.TrimSpace(string(body))
	if !snapshots.ValidID(id) {
		return "", "", false, fmt.Errorf("%w: %s/%s names %q, not a snapshot id", snapshots.ErrVerify, b.loc, snapshots.CurrentFile, id)
	}
	return id, aws.ToString(out.ETag), true, nil
}

// Manifest reads the manifest of snapshot id from the bucket (not
// verifying any file). ENOTFOUND-like: ErrNotPublished when it is missing.
func (b *Bucket) Manifest(ctx context.Context, id string) (*snapshots.Manifest, []byte, error) {
	if !snapshots.ValidID(id) {
		return nil, nil, fmt.Errorf("snapshots/s3: invalid snapshot id %q", id)
	}
	out, err := b.c.GetObject(ctx, &awss3.GetObjectInput{Bucket: &b.loc.Bucket, Key: aws.String(b.loc.key(id, snapshots.ManifestFile))})
	if err != nil {
		if notFound(err) {
			return nil, nil, fmt.Errorf("%w: %s/%s has no manifest", ErrNotPublished, b.loc, id)
		}
		return nil, nil, b.unreachable("read the manifest of "+id, err)
	}
	defer out.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(out.Body, maxManifest+1))
	if err != nil {
		return nil, nil, b.unreachable("read the manifest of "+id, err)
	}
	if len(raw) > maxManifest {
		return nil, nil, fmt.Errorf("%w: %s/%s: manifest over %d bytes", snapshots.ErrVerify, b.loc, id, maxManifest)
	}
	var m snapshots.Manifest
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&m); err != nil {
		return nil, nil, fmt.Errorf("%w: %s/%s: manifest is not valid JSON: %v", snapshots.ErrVerify, b.loc, id, err)
	}
	return &m, raw, nil
}

// maxManifest bounds a manifest read from the bucket (the default
// snapshot's is about 20 KB: the index's files are listed one by one).
const maxManifest = 16 << 20

// object is a listed object.
type object struct {
	size int64
	etag string
}

// list returns the objects below PREFIX/<id>/, by path relative to it.
func (b *Bucket) list(ctx context.Context, id string) (map[string]object, error) {
	prefix := b.loc.key(id) + "/"
	out := map[string]object{}
	p := awss3.NewListObjectsV2Paginator(b.c, &awss3.ListObjectsV2Input{Bucket: &b.loc.Bucket, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, b.unreachable("list "+id, err)
		}
		for _, o := range page.Contents {
			out[strings.TrimPrefix(aws.ToString(o.Key), prefix)] = object{size: aws.ToInt64(o.Size), etag: aws.ToString(o.ETag)}
		}
	}
	return out, nil
}

// Snapshots lists the snapshot ids that have a manifest in the bucket, in
// id order.
func (b *Bucket) Snapshots(ctx context.Context) ([]string, error) {
	prefix := b.loc.key("")
	delim := "/"
	var ids []string
	p := awss3.NewListObjectsV2Paginator(b.c, &awss3.ListObjectsV2Input{Bucket: &b.loc.Bucket, Prefix: &prefix, Delimiter: &delim})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, b.unreachable("list snapshots", err)
		}
		for _, cp := range page.CommonPrefixes {
			id := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), prefix), "/")
			if snapshots.ValidID(id) {
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}

// Errors of a Bucket. Test with errors.Is; they are wrapped with the
// location and what failed. A file that does not match its manifest is
// snapshots.ErrVerify.
var (
	// ErrNotPublished means the bucket has no CURRENT (nothing published
	// yet), or no manifest for the snapshot asked for.
	ErrNotPublished = errors.New("snapshots/s3: not published")
	// ErrUnreachable means the store did not answer, or answered with an
	// error other than a missing object (after the client's retries):
	// nothing was changed locally; try again later.
	ErrUnreachable = errors.New("snapshots/s3: store unreachable")
	// ErrShrink means a validator refused to publish a snapshot whose
	// card, set or sales counts shrank by more than the allowed fraction
	// against the published one (PublishOptions.AllowShrink overrides).
	ErrShrink = errors.New("snapshots/s3: counts shrank")
)

func (b *Bucket) unreachable(what string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: %s: %w", b.loc, what, err)
	}
	return fmt.Errorf("%w: %s: %s: %v", ErrUnreachable, b.loc, what, err)
}

// statusOf returns the HTTP status of an S3 error, 0 when there is none.
func statusOf(err error) int {
	var s interface{ HTTPStatusCode() int }
	if errors.As(err, &s) {
		return s.HTTPStatusCode()
	}
	return 0
}

func notFound(err error) bool {
	var nk *types.NoSuchKey
	var nf *types.NotFound
	return errors.As(err, &nk) || errors.As(err, &nf) || statusOf(err) == 404
}
