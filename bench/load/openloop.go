package load

import (
	"context"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// Shot is one request of an open-loop run, sent At after the run starts
// whatever happened to the previous ones.
type Shot struct {
	At      time.Duration
	Path    string
	Headers []string // name, value pairs
	Tag     int      // caller's grouping (e.g. the keystroke number)
}

// Sample is the outcome of one shot. Lat counts from the scheduled time.
type Sample struct {
	At     time.Duration
	Lat    time.Duration
	Status int
	Bytes  int
	Tag    int
	Err    string // transport error, or "not_sent" when the run's bound ended first
}

// OK reports a 200 answer.
func (s Sample) OK() bool { return s.Err == "" && s.Status == 200 }

// OpenLoop sends shots on their schedule over at most MaxConns connections.
type OpenLoop struct {
	Addr     string
	MaxConns int           // connections and requests in flight (default 256)
	Timeout  time.Duration // per request (default 5 s)
	// Grace bounds the run: it ends at the last shot's time plus Grace
	// (default 10 s); shots not sent by then are samples with Err
	// "not_sent".
	Grace time.Duration
}

// Run sends the shots (sorted by At) and returns one sample per shot, in
// shot order. Latency is measured from each shot's scheduled time, so
// requests queued behind a slow server count their wait. When ctx ends, the
// shots not yet sent are left out (the caller stopped the run); when the
// run's own bound ends first they are samples with Err "not_sent".
func (o OpenLoop) Run(ctx context.Context, shots []Shot) []Sample {
	if o.MaxConns == 0 {
		o.MaxConns = 256
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Grace == 0 {
		o.Grace = 10 * time.Second
	}
	sort.SliceStable(shots, func(i, j int) bool { return shots[i].At < shots[j].At })
	client := &fasthttp.HostClient{
		Addr: o.Addr, MaxConns: o.MaxConns, ReadTimeout: o.Timeout, WriteTimeout: o.Timeout,
		MaxConnWaitTimeout: o.Timeout, MaxIdleConnDuration: time.Minute,
	}
	defer client.CloseIdleConnections()
	samples := make([]Sample, len(shots))
	sem := make(chan struct{}, o.MaxConns)
	var wg sync.WaitGroup
	start := time.Now()
	var end time.Duration
	if len(shots) > 0 {
		end = shots[len(shots)-1].At + o.Grace
	}
	i := 0
	for i < len(shots) {
		if ctx.Err() != nil || time.Since(start) > end {
			break
		}
		if wait := shots[i].At - time.Since(start); wait > 0 {
			time.Sleep(wait)
		}
		// Fire every shot that is due (the sleep may have overshot).
		for i < len(shots) && shots[i].At <= time.Since(start) {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				defer func() { <-sem }()
				samples[i] = o.send(client, start, shots[i])
			}(i)
			i++
		}
	}
	sent := i
	if ctx.Err() == nil {
		for ; i < len(shots); i++ {
			samples[i] = Sample{At: shots[i].At, Tag: shots[i].Tag, Err: "not_sent", Lat: time.Since(start) - shots[i].At}
		}
		sent = len(shots)
	}
	wg.Wait()
	return samples[:sent]
}

func (o OpenLoop) send(client *fasthttp.HostClient, start time.Time, sh Shot) Sample {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + o.Addr + sh.Path)
	for i := 0; i+1 < len(sh.Headers); i += 2 {
		req.Header.Set(sh.Headers[i], sh.Headers[i+1])
	}
	err := client.DoTimeout(req, resp, o.Timeout)
	s := Sample{At: sh.At, Tag: sh.Tag, Lat: time.Since(start) - sh.At}
	if err != nil {
		s.Err = err.Error()
		return s
	}
	s.Status = resp.StatusCode()
	s.Bytes = len(resp.Body())
	return s
}

// Summarize turns samples into figures over [from, to) of scheduled time
// (to <= 0: no upper bound). Errors are transport errors, unsent shots and
// non-200 answers; seconds is the scheduled span.
func Summarize(samples []Sample, from, to time.Duration) Figures {
	var f Figures
	var lat Latencies
	var bytes int64
	first, last := time.Duration(-1), time.Duration(0)
	f.ErrorKinds = map[string]int64{}
	for _, s := range samples {
		if s.At < from || (to > 0 && s.At >= to) {
			continue
		}
		if first < 0 {
			first = s.At
		}
		last = max(last, s.At)
		f.Requests++
		lat.Add(s.Lat)
		switch {
		case s.Err == "not_sent":
			f.ErrorKinds["not_sent"]++
		case s.Err != "":
			f.ErrorKinds["transport"]++
		case s.Status != 200:
			f.ErrorKinds["status_"+strconv.Itoa(s.Status)]++
		default:
			bytes += int64(s.Bytes)
			continue
		}
		f.Errors++
	}
	if len(f.ErrorKinds) == 0 {
		f.ErrorKinds = nil
	}
	if f.Requests == 0 {
		return f
	}
	lat.Fill(&f)
	if ok := f.Requests - f.Errors; ok > 0 {
		f.BytesPerResponse = float64(bytes) / float64(ok)
	}
	span := last - first
	if to > 0 && from >= 0 {
		span = to - from
	}
	f.Seconds = span.Seconds()
	if f.Seconds > 0 {
		f.RPS = float64(f.Requests) / f.Seconds
	}
	return f
}
