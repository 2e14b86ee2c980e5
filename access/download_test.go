package access_test

import (
	"testing"
	"time"

	"github.com/cardedge/cardedge/access"
	"github.com/cardedge/cardedge/apperr"
)

func TestDownloads_Take(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	d := access.NewDownloads(6, func() time.Time { return now })
	a := access.Caller{ClientAddr: "10.0.0.1"}
	for i := 0; i < 6; i++ {
		if _, err := d.Take(a); err != nil {
			t.Fatalf("download %d: %v", i+1, err)
		}
	}
	t.Run("ErrQuota", func(t *testing.T) {
		wait, err := d.Take(a)
		if apperr.ErrorCode(err) != apperr.EQUOTA || wait != 10 {
			t.Fatalf("7th download: %v, retry after %d; want EQUOTA after 10 s", err, wait)
		}
	})
	t.Run("OtherClients", func(t *testing.T) {
		if _, err := d.Take(access.Caller{ClientAddr: "10.0.0.2"}); err != nil {
			t.Error(err)
		}
		// A key is its own client, whatever its address.
		if _, err := d.Take(access.Caller{KeyID: "k_1", Tier: access.Elite, ClientAddr: "10.0.0.1"}); err != nil {
			t.Error(err)
		}
	})
	t.Run("Unmetered", func(t *testing.T) {
		u := access.Caller{KeyID: "k_u", Tier: access.Elite, Unmetered: true}
		for i := 0; i < 20; i++ {
			if _, err := d.Take(u); err != nil {
				t.Fatalf("unmetered download %d: %v", i+1, err)
			}
		}
	})
	t.Run("Refill", func(t *testing.T) {
		now = now.Add(10 * time.Second)
		if _, err := d.Take(a); err != nil {
			t.Errorf("after 10 s: %v", err)
		}
		if _, err := d.Take(a); err == nil {
			t.Error("two downloads 10 s apart after the burst")
		}
	})
}

func TestCheckTier(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    access.Caller
		want string
	}{
		{"OK", access.Caller{KeyID: "k", Tier: access.Elite}, ""},
		{"ErrPlayground", access.Caller{}, apperr.EUNAUTHORIZED},
		{"ErrPro", access.Caller{KeyID: "k", Tier: access.Pro}, apperr.EFORBIDDEN},
		{"ErrInvalidTier", access.Caller{KeyID: "k", Tier: access.Tier(9)}, apperr.EFORBIDDEN},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := access.CheckTier(tc.c, access.Elite, "price-history")
			if got := apperr.ErrorCode(err); (err == nil) != (tc.want == "") || (err != nil && got != tc.want) {
				t.Errorf("CheckTier = %v, want %q", err, tc.want)
			}
		})
	}
}
