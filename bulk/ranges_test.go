package bulk_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/apperr"
	"github.com/cardedge/cardedge/bulk"
)

func TestParseRange(t *testing.T) {
	const size = 1000
	etag := `"abc"`
	for _, tc := range []struct {
		rng, ifRange     string
		start, n         int64
		partial, refused bool
	}{
		{rng: "", start: 0, n: size},
		{rng: "bytes=100-199", start: 100, n: 100, partial: true},
		{rng: " bytes=100-199 ", start: 100, n: 100, partial: true},
		{rng: "bytes=100-", start: 100, n: 900, partial: true},
		{rng: "bytes=0-0", start: 0, n: 1, partial: true},
		{rng: "bytes=990-5000", start: 990, n: 10, partial: true}, // clamped to the end
		{rng: "bytes=999-999", start: 999, n: 1, partial: true},
		{rng: "bytes=-10", start: 990, n: 10, partial: true},
		{rng: "bytes=-5000", start: 0, n: size, partial: true}, // the whole file as a part
		{rng: "bytes=100-199", ifRange: etag, start: 100, n: 100, partial: true},
		{rng: "bytes=100-199", ifRange: ` "abc" `, start: 100, n: 100, partial: true},
		{rng: "bytes=100-199", ifRange: `"old"`, start: 0, n: size},               // changed: all of it
		{rng: "bytes=100-199", ifRange: "Wed, 21 Oct 2015 07:28:00 GMT", n: size}, // a date is never our strong validator
		{rng: "items=0-9", start: 0, n: size},                                     // another unit: ignored
		{rng: "bytes=1000-", refused: true},
		{rng: "bytes=5000-6000", refused: true},
		{rng: "bytes=0-1,5-9", refused: true},
		{rng: "bytes=5", refused: true},
		{rng: "bytes=-0", refused: true},
		{rng: "bytes=-", refused: true},
		{rng: "bytes=x-9", refused: true},
		{rng: "bytes=-1-9", refused: true},
		{rng: "bytes=9-5", refused: true},
		{rng: "bytes=5-x", refused: true},
	} {
		start, n, partial, err := bulk.ParseRange([]byte(tc.rng), []byte(tc.ifRange), []byte(etag), size)
		if tc.refused {
			if apperr.ErrorCode(err) != apperr.ERANGE || !strings.Contains(err.Error(), "1000 bytes") {
				t.Errorf("Range %q: %v, want ERANGE naming the size", tc.rng, err)
			}
			continue
		}
		if err != nil || start != tc.start || n != tc.n || partial != tc.partial {
			t.Errorf("Range %q If-Range %q: got %d+%d partial %t (%v), want %d+%d partial %t", tc.rng, tc.ifRange, start, n, partial, err, tc.start, tc.n, tc.partial)
		}
	}
	if _, _, _, err := bulk.ParseRange([]byte("bytes=-1"), nil, nil, 0); apperr.ErrorCode(err) != apperr.ERANGE {
		t.Errorf("a suffix of an empty file: %v, want ERANGE", err)
	}
}

// FuzzParseRange: any header gives the whole file, a part inside it, or
// ERANGE; never a panic, an empty part or bytes past the end.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"", "bytes=0-0", "bytes=-1", "bytes=1-", "bytes=0-1,2-3", "bytes=-9223372036854775808", "bytes=9223372036854775807-",
		"bytes= 1 - 2 ", "bytes=+1-+2", "bytes=0x1-2", "BYTES=1-2"} {
		f.Add(s, "", int64(1000))
		f.Add(s, `"e"`, int64(0))
	}
	f.Fuzz(func(t *testing.T, rng, ifRange string, size int64) {
		if size < 0 {
			return // sizes come from the index: never negative
		}
		start, n, partial, err := bulk.ParseRange([]byte(rng), []byte(ifRange), []byte(`"e"`), size)
		switch {
		case err != nil:
			if apperr.ErrorCode(err) != apperr.ERANGE {
				t.Fatalf("%q: %v, want ERANGE", rng, err)
			}
		case !partial:
			if start != 0 || n != size {
				t.Fatalf("%q: the whole file is %d+%d, want 0+%d", rng, start, n, size)
			}
		default:
			if start < 0 || n <= 0 || start+n > size {
				t.Fatalf("%q of %d bytes: %d+%d", rng, size, start, n)
			}
		}
	})
}
