package webhook_test

import (
	"testing"
	"time"

	"github.com/cardedge/cardedge/webhook"
)

func TestNewSecretRolled(t *testing.T) {
	until := time.Date(2030, 1, 2, 4, 4, 5, 999, time.FixedZone("CET", 3600))
	for _, c := range []struct {
		name string
		e    webhook.Endpoint
		want webhook.SecretRolled
	}{
		{"OK", webhook.Endpoint{ID: "ep1", SecretOverlapUntil: &until}, webhook.SecretRolled{EndpointID: "ep1", Secret: "whsec_x", OldSecretUntil: "2030-01-02T03:04:05Z"}},
		{"NoOverlap", webhook.Endpoint{ID: "ep1"}, webhook.SecretRolled{EndpointID: "ep1", Secret: "whsec_x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := webhook.NewSecretRolled(c.e, "whsec_x"); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
