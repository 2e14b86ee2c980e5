package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/account"
	statebolt "github.com/cardedge/cardedge/state/bolt"
)

func main() {
	burst := flag.Int("burst", 50, "concurrent sign-ins of the burst")
	maxHashing := flag.Int("max-hashing", 0, "account.Options.MaxHashing (0: the number of CPUs)")
	rounds := flag.Int("rounds", 20, "sequential sign-ins measured before the burst")
	flag.Parse()
	if err := run(*burst, *maxHashing, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "signins:", err)
		os.Exit(1)
	}
}

func run(burst, maxHashing, rounds int) error {
	dir, err := os.MkdirTemp("", "signins-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st, err := statebolt.Open(filepath.Join(dir, "state.bolt"), statebolt.Options{})
	if err != nil {
		return err
	}
	svc, err := account.New(account.Options{State: st, MaxHashing: maxHashing, HashWait: time.Minute,
		// The burst comes from one address: lift the throttle, which would
		// refuse it before any hashing (what is measured here).
		Throttle: account.Throttle{AddrBurst: 1 << 20, AccountBurst: 1 << 20}})
	if err != nil {
		return err
	}
	defer svc.Close()
	ctx := context.Background()
	const password = "a long and unusual passphrase"
	start0 := vmHWM()
	// One account: the burst is many sign-ins to it at once (each gets its
	// own session), so that creating accounts adds no hashing of its own.
	if _, err := svc.Create(ctx, "user@example.com", password, access.Free, account.Client{}); err != nil {
		return err
	}
	slots := maxHashing
	if slots <= 0 {
		slots = runtime.NumCPU()
	}
	fmt.Printf("argon2id m=%d KiB t=%d p=%d; hashing slots: %d (CPUs: %d)\n", account.DefaultHashParams.Memory,
		account.DefaultHashParams.Time, account.DefaultHashParams.Threads, slots, runtime.NumCPU())

	var seq []time.Duration
	for range rounds {
		t0 := time.Now()
		if _, _, err := svc.SignIn(ctx, "user@example.com", password, account.Client{Addr: "192.0.2.1"}); err != nil {
			return err
		}
		seq = append(seq, time.Since(t0))
	}
	fmt.Printf("one at a time (%d): %s\n", rounds, summary(seq))
	seqPeak := vmHWM()

	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, burst)
	for i := range burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			t0 := time.Now()
			_, _, err := svc.SignIn(ctx, "user@example.com", password, account.Client{Addr: fmt.Sprintf("192.0.2.%d", 1+i%250)})
			d := time.Since(t0)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			lat = append(lat, d)
			mu.Unlock()
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(t0)
	close(errs)
	for err := range errs {
		return err
	}
	fmt.Printf("burst of %d at once: %s; all done in %v\n", burst, summary(lat), wall.Round(time.Millisecond))
	fmt.Printf("peak RSS (VmHWM): %d MiB at start, %d MiB after creating the account and %d sign-ins one at a time, %d MiB after the burst\n",
		start0>>10, seqPeak>>10, rounds, vmHWM()>>10)
	return nil
}

func summary(d []time.Duration) string {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	q := func(p float64) time.Duration { return s[int(p*float64(len(s)-1))].Round(100 * time.Microsecond) }
	return fmt.Sprintf("p50 %v, p90 %v, max %v", q(0.5), q(0.9), s[len(s)-1].Round(100*time.Microsecond))
}

// vmHWM returns the process's peak resident set size in KiB (Linux).
func vmHWM() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kb int
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb
		}
	}
	return 0
}
