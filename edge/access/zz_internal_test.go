package access

import (
	"crypto/sha256"
	"testing"
	"time"
)

var sink [32]byte
var sinkB []byte

func BenchmarkZSha(b *testing.B) {
	tok := []byte("ce_p_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	for b.Loop() {
		sink = sha256.Sum256(tok)
	}
}
func BenchmarkZParse(b *testing.B) {
	h := []byte("Bearer ce_p_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	for b.Loop() {
		sinkB, _ = parseBearer(h)
	}
}
func BenchmarkZMap(b *testing.B) {
	m := map[[32]byte]*keyEntry{}
	for i := 0; i < 10; i++ {
		m[[32]byte{byte(i)}] = &keyEntry{}
	}
	k := [32]byte{3}
	var e *keyEntry
	for b.Loop() {
		e = m[k]
	}
	_ = e
}
func BenchmarkZNow(b *testing.B) {
	var t time.Time
	for b.Loop() {
		t = time.Now()
	}
	_ = t
}
