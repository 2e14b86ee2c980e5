package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	snaps3 "github.com/cardedge/cardedge/snapshots/s3"
)

// dirStore keeps the files in a directory.
type dirStore struct{ dir string }

func openDir(dir string) (*dirStore, error) {
	if dir == "" {
		return nil, errors.New("history: no directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &dirStore{dir: dir}, nil
}

func (s *dirStore) String() string { return s.dir }

func (s *dirStore) list(_ context.Context, src string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.dir, src))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, src+"/"+e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func (s *dirStore) get(_ context.Context, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(name)))
}

func (s *dirStore) put(_ context.Context, name string, b []byte) error {
	path := filepath.Join(s.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".put-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Immutable: read-only once filed.
		err = os.Chmod(f.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func (s *dirStore) remove(_ context.Context, name string) error {
	return os.Remove(filepath.Join(s.dir, filepath.FromSlash(name)))
}

// bucketStore keeps the files in an S3-compatible bucket, below a prefix.
type bucketStore struct {
	c   *awss3.Client
	loc snaps3.Location
}

func openBucket(ctx context.Context, loc string) (*bucketStore, error) {
	l, err := snaps3.ParseURL(loc)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	c, err := snaps3.NewClient(ctx, snaps3.ClientOptions{})
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &bucketStore{c: c, loc: l}, nil
}

func (s *bucketStore) String() string { return s.loc.String() }

func (s *bucketStore) key(name string) string {
	if s.loc.Prefix == "" {
		return name
	}
	return s.loc.Prefix + "/" + name
}

func (s *bucketStore) list(ctx context.Context, src string) ([]string, error) {
	prefix := s.key(src + "/")
	p := awss3.NewListObjectsV2Paginator(s.c, &awss3.ListObjectsV2Input{Bucket: &s.loc.Bucket, Prefix: &prefix})
	var out []string
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			k := aws.ToString(o.Key)
			out = append(out, src+"/"+strings.TrimPrefix(k, prefix))
		}
	}
	sort.Strings(out)
	return out, nil
}

func (s *bucketStore) get(ctx context.Context, name string) ([]byte, error) {
	out, err := s.c.GetObject(ctx, &awss3.GetObjectInput{Bucket: &s.loc.Bucket, Key: aws.String(s.key(name))})
	if err != nil {
		return nil, err
	}
	defer out.Body.Close()
	return io.ReadAll(io.LimitReader(out.Body, 4<<30))
}

func (s *bucketStore) put(ctx context.Context, name string, b []byte) error {
	_, err := s.c.PutObject(ctx, &awss3.PutObjectInput{Bucket: &s.loc.Bucket, Key: aws.String(s.key(name)),
		Body: bytes.NewReader(b), ContentLength: aws.Int64(int64(len(b))), ContentType: aws.String("application/gzip")})
	return err
}

func (s *bucketStore) remove(ctx context.Context, name string) error {
	_, err := s.c.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: &s.loc.Bucket, Key: aws.String(s.key(name))})
	return err
}
