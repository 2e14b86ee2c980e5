// Package redistest runs a real redis-server for tests, on a loopback port
// and over a directory of the test's own, stopped in the test's Cleanup.
// Tests that need it are skipped, with a message, when redis-server is not
// installed.
//
// It imports the standard library and go-redis.
package redistest

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server for one test.
type Server struct {
	tb      testing.TB
	port    int
	dir     string
	persist bool
	fsync   string // appendfsync with persist
	cmd     *exec.Cmd
}

// Start starts redis-server, or skips tb when it is not installed. With
// persist the server keeps an append-only file fsynced every second (what
// the operations guide asks of a production Redis), so that a server stopped
// with SIGTERM, or restarted, keeps its data.
func Start(tb testing.TB, persist bool) *Server {
	return start(tb, persist, "everysec")
}

// StartDurable starts a redis-server whose append-only file is fsynced at
// every write (appendfsync always): even a killed server (Kill) restarts
// with every write it acknowledged.
func StartDurable(tb testing.TB) *Server {
	return start(tb, true, "always")
}

func start(tb testing.TB, persist bool, fsync string) *Server {
	tb.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		tb.Skip("redis-server not installed (apt-get install -y redis-server; .ci/run does): skipping the Redis tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{tb: tb, port: port, dir: tb.TempDir(), persist: persist, fsync: fsync}
	s.Start()
	tb.Cleanup(s.Kill)
	return s
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Addr is the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Start starts the server (again) and waits until it answers.
func (s *Server) Start() {
	s.tb.Helper()
	args := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning"}
	if s.persist {
		args = append(args, "--appendonly", "yes", "--appendfsync", s.fsync)
	} else {
		args = append(args, "--appendonly", "no")
	}
	s.cmd = exec.Command("redis-server", args...)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		s.tb.Fatal(err)
	}
	c := s.Client()
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		if time.Now().After(deadline) {
			s.tb.Fatal("redis-server did not answer within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Stop stops the server with SIGTERM (it writes its append-only file) and
// waits for it to exit.
func (s *Server) Stop() { s.signal(syscall.SIGTERM) }

// Kill kills the server (SIGKILL) and waits for it to exit.
func (s *Server) Kill() { s.signal(syscall.SIGKILL) }

// Pause stops the server's process (SIGSTOP): it accepts connections and
// answers nothing, as a hung server does, until Resume.
func (s *Server) Pause() { s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() { s.cmd.Process.Signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(sig)
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Client returns a client of the server.
func (s *Server) Client() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: s.Addr(), DisableIdentity: true})
}
