package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Headers of a delivery (Standard Webhooks).
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every signing secret: "whsec_" and the key in base64.
const SecretPrefix = "whsec_"

// secretBytes is the length of a new secret's key (the spec asks 24 to 64).
const secretBytes = 32

// NewSecret returns a new signing secret: "whsec_" and 32 random bytes in
// base64.
func NewSecret() string {
	b := make([]byte, secretBytes)
	rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// DecodeSecret returns the key of a "whsec_" secret.
func DecodeSecret(secret string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || !strings.HasPrefix(secret, SecretPrefix) || len(k) < 24 || len(k) > 64 {
		return nil, fmt.Errorf("webhook: a secret is %q and 24 to 64 bytes in base64", SecretPrefix)
	}
	return k, nil
}

// Sign returns the webhook-signature header of a message: for each key,
// "v1," and the base64 HMAC-SHA256 of "<id>.<timestamp>.<body>", separated
// by spaces (several keys while a rolled secret overlaps the new one).
func Sign(keys [][]byte, id string, ts time.Time, body []byte) string {
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		h := hmac.New(sha256.New, k)
		h.Write([]byte(id))
		h.Write([]byte{'.'})
		h.Write([]byte(strconv.FormatInt(ts.Unix(), 10)))
		h.Write([]byte{'.'})
		h.Write(body)
		parts = append(parts, "v1,"+base64.StdEncoding.EncodeToString(h.Sum(nil)))
	}
	return strings.Join(parts, " ")
}
