package pricing_test

import (
	"strings"
	"testing"

	"github.com/cardedge/cardedge/pricing"
	"github.com/cardedge/cardedge/snapshots"
)

var cursorSecret = []byte("0123456789abcdef0123456789abcdef")

// FuzzCursor checks the sales cursor codec (Cursor, ParseCursor). Properties: no panic; an issued
// cursor decodes to its position under its own binding and is refused under
// any other binding (another card or filters) or secret; a fuzzed string is
// accepted only if it is exactly the cursor the API would issue for what it
// decodes to (no forgery, no malleable variants).
func FuzzCursor(f *testing.F) {
	b := "pokemon|en:base1-4|2026-11-18|false|false|false|"
	issued := pricing.SalePosition{Day: 20500, ID: 12345}.Cursor(cursorSecret, b)
	f.Add(issued, b, uint32(20500), uint64(12345))
	f.Add(issued+"\n", b, uint32(1), uint64(0))
	f.Add(strings.Replace(issued, ".", "\n.", 1), b, uint32(0), uint64(1<<63))
	f.Add(issued[:len(issued)-1]+"B", b, uint32(0), uint64(0))
	f.Add("", "", uint32(0), uint64(0))
	f.Add(".", "x", uint32(1), uint64(1))
	f.Add("AQ.AQ", "x", uint32(1), uint64(1))
	f.Add("forged.cursor", b, uint32(7), uint64(7))
	f.Add(strings.Repeat("A", 28)+"."+strings.Repeat("A", 22), b, ^uint32(0), ^uint64(0))
	f.Fuzz(func(t *testing.T, s, binding string, day uint32, id uint64) {
		pos := pricing.SalePosition{Day: snapshots.Day(day), ID: id}
		c := pos.Cursor(cursorSecret, binding)
		if got, err := pricing.ParseCursor(cursorSecret, c, binding); err != nil || got != pos {
			t.Fatalf("issued cursor %q: %+v %v, want %+v", c, got, err, pos)
		}
		if _, err := pricing.ParseCursor(cursorSecret, c, binding+"|"); err == nil {
			t.Fatalf("cursor accepted under another binding")
		}
		if _, err := pricing.ParseCursor([]byte("another secret, 32 bytes long..."), c, binding); err == nil {
			t.Fatalf("cursor accepted under another secret")
		}
		got, err := pricing.ParseCursor(cursorSecret, s, binding)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if want := got.Cursor(cursorSecret, binding); s != want {
			t.Fatalf("accepted %q, which is not the issued %q", s, want)
		}
	})
}
