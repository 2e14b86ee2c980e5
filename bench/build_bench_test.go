package bench

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// presetsEnv names the build presets to benchmark besides tiny.
const presetsEnv = "CARDEDGE_BENCH_PRESETS"

// catalogDir is the shipped catalog, relative to this package.
var catalogDir = filepath.Join("..", "builder", "catalog")

// BenchmarkBuild runs `cardbuild build` as a child process for each preset
// (tiny always; default and large when CARDEDGE_BENCH_PRESETS names them,
// e.g. "tiny,default") and reports per build: wall_s, peak_rss_MiB (the
// child's maximum resident set), size_MiB (the snapshot's allocated blocks)
// and sales. Run it once per preset: -benchtime 1x.
func BenchmarkBuild(b *testing.B) {
	enabled := map[string]bool{"tiny": true}
	for _, p := range strings.Split(os.Getenv(presetsEnv), ",") {
		enabled[strings.TrimSpace(p)] = true
	}
	binDir := b.TempDir()
	bin := ""
	for _, preset := range []string{"tiny", "default", "large"} {
		b.Run(preset, func(b *testing.B) {
			if !enabled[preset] {
				b.Skipf("%s=%s to run it", presetsEnv, preset)
			}
			if bin == "" {
				bin = buildCardbuild(b, binDir)
			}
			var wall time.Duration
			var peakKiB int64
			var size, apparent, sales int64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out := filepath.Join(binDir, "out")
				var stderr bytes.Buffer
				cmd := exec.Command(bin, "build", "--out", out, "--preset", preset, "--seed", "1",
					"--as-of", "2026-11-20", "--catalog", catalogDir, "--id", "bench", "--quiet")
				cmd.Stderr = &stderr
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("cardbuild build --preset %s: %v\n%s", preset, err, stderr.String())
				}
				wall += time.Since(start)
				b.StopTimer()
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					peakKiB = max(peakKiB, ru.Maxrss) // KiB on Linux
				}
				dir := filepath.Join(out, "bench")
				size, apparent = diskUsage(b, dir)
				sales = manifestSales(b, dir)
				if err := os.RemoveAll(out); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall_s")
			b.ReportMetric(float64(peakKiB)/1024, "peak_rss_MiB")
			b.ReportMetric(float64(size)/(1<<20), "size_MiB")
			b.ReportMetric(float64(sales), "sales")
			b.Logf("%s: apparent size %.1f MiB", preset, float64(apparent)/(1<<20))
		})
	}
}

// buildCardbuild compiles the cardbuild command into dir.
func buildCardbuild(tb testing.TB, dir string) string {
	tb.Helper()
	bin := filepath.Join(dir, "cardbuild")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/cardedge/cardedge/cmd/cardbuild")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build cardbuild: %v\n%s", err, out)
	}
	return bin
}

// diskUsage returns the bytes allocated to the files below dir and the sum
// of their sizes.
func diskUsage(tb testing.TB, dir string) (allocated, apparent int64) {
	tb.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		apparent += info.Size()
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			allocated += st.Blocks * 512
		} else {
			allocated += info.Size()
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return allocated, apparent
}

// manifestSales returns the sales count of the snapshot's manifest.
func manifestSales(tb testing.TB, dir string) int64 {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var m struct {
		Counts map[string]int64 `json:"counts"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	return m.Counts["sales"]
}
