package s3

import (
	"net"
	"net/http"
	"os"
	"time"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// newHTTPClient returns the HTTP client of S3 requests: connections and
// response headers bounded by timeout (an unreachable store fails fast, so
// that a poller backs off instead of hanging), bodies not bounded (a large
// part streams as long as it streams). It is the SDK's buildable client, so
// that AWS_CA_BUNDLE still adds its certificates.
func newHTTPClient(timeout time.Duration) *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = timeout; d.KeepAlive = 30 * time.Second }).
		WithTransportOptions(func(t *http.Transport) {
			t.TLSHandshakeTimeout = timeout
			t.ResponseHeaderTimeout = timeout
			t.MaxIdleConnsPerHost = 16
			t.IdleConnTimeout = 90 * time.Second
		})
}

// envSet reports whether the environment sets name (to anything but empty).
func envSet(name string) bool { return os.Getenv(name) != "" }
