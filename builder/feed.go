package builder

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// FeedError is a bad row of an input feed: the file, the 1-based line and the
// field at fault.
type FeedError struct {
	File  string
	Line  int
	Field string
	Err   error
}

func (e *FeedError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: %s: %v", e.File, e.Line, e.Field, e.Err)
}

func (e *FeedError) Unwrap() error { return e.Err }

// maxFeedLine bounds one JSON Lines row.
const maxFeedLine = 1 << 20

// readJSONLines calls row for each non-blank line of a JSON Lines file (gzip
// when the name ends in .gz) and returns the SHA-256 of the file's bytes.
// row returns a *FeedError without File and Line; they are filled in here.
func readJSONLines(path string, row func(line []byte) error) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open feed: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	var r io.Reader = io.TeeReader(f, h)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return "", &FeedError{File: path, Line: 1, Err: fmt.Errorf("not gzip: %w", err)}
		}
		defer gz.Close()
		r = gz
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxFeedLine)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		if err := row(b); err != nil {
			var fe *FeedError
			if errors.As(err, &fe) {
				fe.File, fe.Line = path, line
				return "", fe
			}
			return "", &FeedError{File: path, Line: line, Err: err}
		}
	}
	if err := sc.Err(); err != nil {
		return "", &FeedError{File: path, Line: line + 1, Err: fmt.Errorf("read: %w", err)}
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// decodeRow decodes one JSON object strictly: unknown fields and trailing data
// are errors naming the field.
func decodeRow(line []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &FeedError{Field: te.Field, Err: fmt.Errorf("want %s, got JSON %s", te.Type, te.Value)}
		}
		if msg := err.Error(); strings.HasPrefix(msg, "json: unknown field ") {
			return &FeedError{Field: strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`), Err: errors.New("unknown field")}
		}
		return &FeedError{Err: fmt.Errorf("not a JSON object: %w", err)}
	}
	// More reports false before a stray ] or }, so read the next token: only
	// the end of the line is acceptable.
	if _, err := dec.Token(); err != io.EOF {
		return &FeedError{Err: errors.New("data after the JSON object")}
	}
	return nil
}

func feedPath(dir, name string) (string, bool) {
	for _, n := range []string{name, name + ".gz"} {
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}
