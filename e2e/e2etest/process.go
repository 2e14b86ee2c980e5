package e2etest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// RepoRoot is the module's root directory.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// BuildBinary builds the cardedge binary (go build ./cmd/cardedge) into a
// temporary directory once per test binary and returns its path;
// RemoveBinary removes it.
func BuildBinary() (string, error) {
	binary.once.Do(func() {
		if binary.dir, binary.err = os.MkdirTemp("", "cardedge-bin-"); binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "cardedge")
		cmd := exec.Command("go", "build", "-o", binary.path, "./cmd/cardedge")
		cmd.Dir = RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build ./cmd/cardedge: %v\n%s", err, out)
		}
	})
	return binary.path, binary.err
}

// Binary is BuildBinary for a test: a failed build fails tb.
func Binary(tb testing.TB) string {
	tb.Helper()
	path, err := BuildBinary()
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// RemoveBinary removes the directory BuildBinary built into (a TestMain
// calls it after the tests).
func RemoveBinary() {
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
}

// Process is a cardedge serve running as a child process.
type Process struct {
	Base   string // http://127.0.0.1:PORT
	cmd    *exec.Cmd
	stderr syncBuffer
	done   chan struct{}
}

// Start runs bin with args, a serve command line without --addr, on a free
// loopback port, and waits (up to a minute) until it answers /health.
func Start(bin string, args ...string) (*Process, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p := &Process{Base: fmt.Sprintf("http://127.0.0.1:%d", port), done: make(chan struct{})}
	p.cmd = exec.Command(bin, append(args, "--addr", fmt.Sprintf("127.0.0.1:%d", port))...)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	deadline := time.Now().Add(time.Minute)
	for {
		if resp, err := http.Get(p.Base + "/health"); err == nil {
			resp.Body.Close()
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("cardedge %v exited: %s", args, p.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			p.Kill()
			return nil, fmt.Errorf("cardedge %v did not start within a minute: %s", args, p.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Serve is Start for a test: a process that does not start fails tb, and
// tb's Cleanup stops it.
func Serve(tb testing.TB, bin string, args ...string) *Process {
	tb.Helper()
	p, err := Start(bin, args...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Stop)
	return p
}

// Stop interrupts the process (SIGINT: it drains and flushes what it
// counted, as on SIGTERM) and waits for it; after 20 s it kills it.
func (p *Process) Stop() {
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.Kill()
	}
}

// Kill kills the process (SIGKILL: nothing is flushed) and waits for it.
func (p *Process) Kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Stderr is what the process wrote to its standard error so far.
func (p *Process) Stderr() string { return p.stderr.String() }

// syncBuffer is a bytes.Buffer the process writes while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(tb testing.TB) int {
	tb.Helper()
	port, err := freePort()
	if err != nil {
		tb.Fatal(err)
	}
	return port
}

// WaitPort waits (up to 10 s) until something listens on the loopback port.
func WaitPort(tb testing.TB, port int) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.Fatalf("port %d never opened", port)
}
