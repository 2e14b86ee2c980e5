package edge

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
)

// TestServeRendered_Concurrent: without a response cache each response is
// rendered into a pooled buffer that becomes fasthttp's own body buffer (no
// copy). Over a real listener, under concurrent keep-alive requests, identity
// and gzip, every body must be byte for byte the one the same server gives a
// lone request (under -race this also checks that no buffer is reused while
// fasthttp still writes it).
func TestServeRendered_Concurrent(t *testing.T) {
	e := newMemoEnv(t, tinyRoot(t), 0)
	secret, _, err := e.store.Create(context.Background(), access.KeySpec{Tier: access.Elite, Name: "unmetered", Unmetered: true}) // no rate limit
	if err != nil {
		t.Fatal(err)
	}
	if err := e.acc.Sync(); err != nil {
		t.Fatal(err)
	}
	auth := "Bearer " + secret
	list := e.get(t, "/api/v3/cards?limit=12", "Authorization", auth)
	var cards struct {
		Data struct {
			Items []struct {
				CardID string `json:"card_id"`
			} `json:"items"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(list.Body), &cards); err != nil || list.Status != 200 || len(cards.Data.Items) == 0 {
		t.Fatalf("card list: %d %v %.200s", list.Status, err, list.Body)
	}
	paths := []string{"/api/v3/cards?limit=25", "/api/v3/cards?limit=5&sort=name", "/api/v3/sets", "/api/v3/market/volume"}
	for _, it := range cards.Data.Items {
		id := it.CardID
		paths = append(paths, "/api/v3/cards/"+id, "/api/v3/cards/"+id+"?include=market_summary,recent_sales", "/api/v3/cards/"+id+"/analytics")
	}
	want := map[string]memoReply{}
	for _, p := range paths {
		if want[p] = e.get(t, p, "Authorization", auth); want[p].Status != 200 {
			t.Fatalf("GET %s: %d %.200s", p, want[p].Status, want[p].Body)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go e.srv.Serve(ln)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := e.srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	}()
	base := "http://" + ln.Addr().String()
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 8}}
	defer c.CloseIdleConnections()
	get := func(path string, gz bool) (etag string, body []byte, err error) {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", auth)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		resp, err := c.Do(req)
		if err != nil {
			return "", nil, err
		}
		defer resp.Body.Close()
		if body, err = io.ReadAll(resp.Body); err != nil {
			return "", nil, err
		}
		if resp.StatusCode != 200 {
			return "", nil, fmt.Errorf("status %d: %.200s", resp.StatusCode, body)
		}
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				return "", nil, err
			}
			if body, err = io.ReadAll(zr); err != nil {
				return "", nil, err
			}
		}
		return resp.Header.Get("ETag"), body, nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				p := paths[(w*7+i*5)%len(paths)]
				etag, body, err := get(p, (w+i)%3 == 0)
				if err == nil && (etag != want[p].Headers["ETag"] || string(body) != want[p].Body) {
					err = fmt.Errorf("ETag %s, body %.120s; alone: ETag %s, body %.120s", etag, body, want[p].Headers["ETag"], want[p].Body)
				}
				if err != nil {
					errs <- fmt.Errorf("GET %s: %w", p, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
