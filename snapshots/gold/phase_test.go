package gold_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cardedge/cardedge/snapshots/gold"
)

func TestPhases(t *testing.T) {
	market := synthMarket(15000, 1)
	rows := 0
	for i := range market {
		rows += market[i].rows()
	}
	path := filepath.Join(t.TempDir(), "g.sqlite")
	w, _ := gold.Create(path)
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0 := cpu()
	start := time.Now()
	for i := range market {
		c := &market[i]
		if err := w.AddCard(c.card, c.sales, c.series, c.listings, c.analytics); err != nil {
			t.Fatal(err)
		}
	}
	t1 := time.Since(start)
	c1 := cpu()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c2 := cpu()
	t.Logf("cpu: insert %v close %v total %v => %.0f rows/cpu-s", c1-c0, c2-c1, c2-c0, float64(rows)/(c2-c0).Seconds())
	t.Logf("rows %d insert %v (%.0f rows/s) close %v total %.0f rows/s", rows, t1, float64(rows)/t1.Seconds(), time.Since(start)-t1, float64(rows)/time.Since(start).Seconds())
}
