package webhook

// The payloads of the endpoints' routes as an account reads them (REST; MCP
// and the dashboard may show them too).

// EndpointList is webhook-endpoints.v1.
type EndpointList struct {
	Items []Endpoint `json:"items"`
	Total int        `json:"total"`
	Limit int        `json:"limit"` // the most endpoints the tier allows
}

// EndpointCreated is webhook-endpoint-created.v1: the endpoint and its
// signing secret, shown this once.
type EndpointCreated struct {
	Endpoint Endpoint `json:"endpoint"`
	// Secret signs every delivery (Standard Webhooks, "whsec_" + base64):
	// keep it; it is not shown again (roll it for a new one).
	Secret string `json:"secret"`
}

// EndpointDeleted is webhook-endpoint-deleted.v1.
type EndpointDeleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// SecretRolled is webhook-secret.v1.
type SecretRolled struct {
	EndpointID string `json:"endpoint_id"`
	Secret     string `json:"secret"`
	// OldSecretUntil says until when the previous secret keeps signing
	// beside the new one.
	OldSecretUntil string `json:"old_secret_until"`
}

// NewSecretRolled is the new secret of e (RollSecret), with the end of its
// old secret's overlap in UTC ("" when none).
func NewSecretRolled(e Endpoint, secret string) SecretRolled {
	out := SecretRolled{EndpointID: e.ID, Secret: secret}
	if e.SecretOverlapUntil != nil {
		out.OldSecretUntil = e.SecretOverlapUntil.UTC().Format("2006-01-02T15:04:05Z")
	}
	return out
}

// TestQueued is webhook-test.v1.
type TestQueued struct {
	EndpointID string `json:"endpoint_id"`
	MessageID  string `json:"message_id"` // the webhook-id of the test delivery
	Queued     bool   `json:"queued"`
}

// DeliveryLog is webhook-log.v1: attempts newest first.
type DeliveryLog struct {
	Items      []Attempt `json:"items"`
	NextCursor string    `json:"next_cursor"`
}

// NoticeList is webhook-notices.v1.
type NoticeList struct {
	Items []Notice `json:"items"`
}
