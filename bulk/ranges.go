package bulk

import (
	"bytes"
	"strconv"

	"github.com/cardedge/cardedge/apperr"
)

// ParseRange reads a download's Range header (rng) and If-Range (ifRange;
// both empty when absent) for a file of size bytes whose strong ETag is
// etag: the first byte and the length to send, and whether it is a part
// (206). A Range of another unit, or an If-Range that does not match, is
// ignored (the whole file, 200); a bytes range no byte satisfies, several
// ranges, or a malformed one is apperr.ERANGE (416). A part is never empty
// and never runs past the end.
func ParseRange(rng, ifRange, etag []byte, size int64) (start, n int64, partial bool, err error) {
	if len(rng) == 0 {
		return 0, size, false, nil
	}
	if len(ifRange) > 0 && !bytes.Equal(bytes.TrimSpace(ifRange), etag) {
		return 0, size, false, nil // the file changed since the part the client has: all of it
	}
	spec, ok := bytes.CutPrefix(bytes.TrimSpace(rng), []byte("bytes="))
	if !ok {
		return 0, size, false, nil
	}
	bad := func(why string) (int64, int64, bool, error) {
		return 0, 0, false, apperr.Errorf(apperr.ERANGE, "Range %q: %s (the file has %d bytes; one range of bytes=FIRST-[LAST] or bytes=-SUFFIX)", rng, why, size)
	}
	if bytes.IndexByte(spec, ',') >= 0 {
		return bad("one range only")
	}
	first, last, ok := bytes.Cut(bytes.TrimSpace(spec), []byte("-"))
	if !ok {
		return bad("malformed")
	}
	if len(first) == 0 { // suffix: the last N bytes
		k, err := strconv.ParseInt(string(last), 10, 64)
		if err != nil || k <= 0 {
			return bad("malformed suffix")
		}
		k = min(k, size)
		if k == 0 {
			return bad("the file is empty")
		}
		return size - k, k, true, nil
	}
	a, err := strconv.ParseInt(string(first), 10, 64)
	if err != nil || a < 0 {
		return bad("malformed first byte")
	}
	b := size - 1
	if len(last) > 0 {
		if b, err = strconv.ParseInt(string(last), 10, 64); err != nil || b < a {
			return bad("malformed last byte")
		}
		b = min(b, size-1)
	}
	if a >= size {
		return bad("starts after the end")
	}
	return a, b - a + 1, true, nil
}
