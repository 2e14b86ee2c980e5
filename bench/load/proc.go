package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// Pinned returns argv prefixed with `taskset -c cpu` (unchanged when cpu < 0).
func Pinned(cpu int, argv ...string) []string {
	if cpu < 0 {
		return argv
	}
	return append([]string{"taskset", "-c", strconv.Itoa(cpu)}, argv...)
}

// Niced returns argv prefixed with `nice -n n` (unchanged when n is 0).
func Niced(n int, argv ...string) []string {
	if n == 0 {
		return argv
	}
	return append([]string{"nice", "-n", strconv.Itoa(n)}, argv...)
}

// NiceSelf sets the nice value of every thread of this process (threads
// created later inherit it from their creator).
func NiceSelf(n int) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil {
			return fmt.Errorf("setpriority %d: %w", n, err)
		}
	}
	return nil
}

// PinSelf pins every thread of this process to cpu (new threads inherit it).
func PinSelf(cpu int) error {
	out, err := exec.Command("taskset", "-a", "-p", "-c", strconv.Itoa(cpu), strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil {
		return fmt.Errorf("taskset -a -p -c %d self: %v: %s", cpu, err, bytes.TrimSpace(out))
	}
	return nil
}

// Proc is a child process (a server under test or a reference server).
type Proc struct {
	Name    string
	LogPath string
	cmd     *exec.Cmd
	log     *os.File
	done    chan struct{}
	err     error
}

// Start starts argv with stdout and stderr appended to logPath. The child
// gets SIGKILL if the harness dies (Pdeathsig).
func Start(name, logPath string, argv ...string) (*Proc, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, strings.Join(argv, " "), err)
	}
	p := &Proc{Name: name, LogPath: logPath, cmd: cmd, log: f, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid is the child's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the child has exited, and how.
func (p *Proc) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop sends SIGTERM, waits up to grace, then SIGKILL. It is safe to call
// twice.
func (p *Proc) Stop(grace time.Duration) {
	if p == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Tail returns the last n bytes of the child's log.
func (p *Proc) Tail(n int) string {
	b, err := os.ReadFile(p.LogPath)
	if err != nil {
		return ""
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// WaitHTTP polls http://addr+path until it answers 200, the child exits, or
// timeout passes.
func (p *Proc) WaitHTTP(ctx context.Context, addr, path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if exited, err := p.Exited(); exited {
			return fmt.Errorf("%s exited before answering (%v); log %s:\n%s", p.Name, err, p.LogPath, p.Tail(2000))
		}
		status, _, err := Get(addr, path, nil, 2*time.Second)
		if err == nil && status == 200 {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("status %d", status)
		}
		last = err
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not answer GET %s within %s (last: %v); log %s:\n%s", p.Name, path, timeout, last, p.LogPath, p.Tail(2000))
}

// FreePort returns a free TCP port on 127.0.0.1.
func FreePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Get does one GET on addr with extra headers (name, value pairs) and
// returns the status and a copy of the body.
func Get(addr, path string, headers []string, timeout time.Duration) (int, []byte, error) {
	return Do(addr, "GET", path, headers, nil, timeout)
}

// Do does one request with a fresh connection-less client call.
func Do(addr, method, path string, headers []string, body []byte, timeout time.Duration) (int, []byte, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + addr + path)
	req.Header.SetMethod(method)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if body != nil {
		req.SetBody(body)
	}
	if err := fasthttp.DoTimeout(req, resp, timeout); err != nil {
		return 0, nil, err
	}
	return resp.StatusCode(), append([]byte(nil), resp.Body()...), nil
}

// ErrNotFound is returned by probes for a route that is not mounted.
var ErrNotFound = errors.New("not mounted")
