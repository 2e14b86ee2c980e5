package s3test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	snaps3 "github.com/cardedge/cardedge/snapshots/s3"
)

// Version is the versitygw release the tests run (make fleet-test installs
// it into CacheDir).
const Version = "v1.8.0"

// Install is the command that installs the pinned versitygw.
const Install = "GOBIN=DIR go install github.com/versity/versitygw/cmd/versitygw@" + Version

// CacheDir is where make fleet-test installs versitygw:
// $CARDEDGE_CACHE, else $XDG_CACHE_HOME/cardedge, else ~/.cache/cardedge;
// the binary is CacheDir/bin/versitygw-<Version>.
func CacheDir() string {
	if d := os.Getenv("CARDEDGE_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "cardedge")
	}
	return filepath.Join(os.TempDir(), "cardedge-cache")
}

// Binary finds versitygw: $CARDEDGE_VERSITYGW, the pinned binary in
// CacheDir, or versitygw on the PATH.
func Binary() (string, error) {
	if p := os.Getenv("CARDEDGE_VERSITYGW"); p != "" {
		return p, nil
	}
	pinned := filepath.Join(CacheDir(), "bin", "versitygw-"+Version)
	if _, err := os.Stat(pinned); err == nil {
		return pinned, nil
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("versitygw not found (not at %s nor on the PATH): make fleet-test installs it (%s)", pinned, Install)
}

// Server is a running versitygw.
type Server struct {
	// Endpoint is its URL (http://127.0.0.1:PORT); Dir the directory whose
	// subdirectories are its buckets.
	Endpoint string
	Dir      string
	// AccessKey and SecretKey are its root credentials.
	AccessKey, SecretKey string

	bin  string
	addr string
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start starts a server over a new directory of tb.TempDir() (on a disk:
// versitygw keeps metadata in extended attributes, which tmpfs lacks) and
// stops it when the test ends. It skips tb when versitygw is missing.
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin, err := Binary()
	if err != nil {
		tb.Skip(err.Error())
	}
	s := &Server{Dir: filepath.Join(tb.TempDir(), "s3"), AccessKey: "cardedge-test", SecretKey: "cardedge-test-secret-0123456789", bin: bin}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	port, err := freePort()
	if err != nil {
		tb.Fatal(err)
	}
	s.addr = "127.0.0.1:" + strconv.Itoa(port)
	s.Endpoint = "http://" + s.addr
	if err := s.start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Stop)
	return s
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd := exec.Command(s.bin, "--port", s.addr, "posix", s.Dir)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.AccessKey, "ROOT_SECRET_KEY="+s.SecretKey)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log, err := os.OpenFile(filepath.Join(filepath.Dir(s.Dir), "versitygw.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start versitygw: %w", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(done) }()
	s.cmd, s.done = cmd, done
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(s.Dir), "versitygw.log"))
			return fmt.Errorf("versitygw exited at start: %s", b)
		default:
		}
		if c, err := net.DialTimeout("tcp", s.addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("versitygw did not listen within 15 s")
}

// Stop stops the server (the directory stays); stopping twice is fine.
func (s *Server) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// Restart starts a stopped server again, on the same address and
// directory.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	if err := s.start(); err != nil {
		tb.Fatal(err)
	}
}

// Env is the environment that points the AWS SDK (and so cardbuild and
// cardedge) at the server.
func (s *Server) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_REGION=us-east-1", "AWS_ENDPOINT_URL=" + s.Endpoint,
		"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null",
	}
}

// SetEnv sets Env in the test's environment (t.Setenv: not with t.Parallel).
func (s *Server) SetEnv(t *testing.T) {
	t.Helper()
	for _, kv := range s.Env() {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				t.Setenv(kv[:i], kv[i+1:])
				break
			}
		}
	}
	t.Setenv("AWS_PROFILE", "")
}

// Client returns a client of the server, configured from Env through
// snapshots/s3's NewClient (as the commands are); it sets the test's
// environment.
func (s *Server) Client(t *testing.T) *awss3.Client {
	t.Helper()
	s.SetEnv(t)
	c, err := snaps3.NewClient(context.Background(), snaps3.ClientOptions{MaxAttempts: 2, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// MakeBucket creates bucket name.
func (s *Server) MakeBucket(tb testing.TB, c *awss3.Client, name string) {
	tb.Helper()
	if _, err := c.CreateBucket(context.Background(), &awss3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		tb.Fatalf("create bucket %s: %v", name, err)
	}
}

// ObjectPath returns the file that holds object key of bucket (to damage
// it in a test).
func (s *Server) ObjectPath(bucket, key string) string {
	return filepath.Join(s.Dir, bucket, filepath.FromSlash(key))
}
