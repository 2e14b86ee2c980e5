package connguard

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// pair accepts one guarded connection from a loopback listener and returns
// it with the client's end.
func pair(t *testing.T, to Timeouts) (*Listener, net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := Listen(ln, to)
	t.Cleanup(func() { l.Close() })
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	return l, server, client
}

// blockedFor runs op and returns how long it took and its error; op must
// fail within 5 s.
func blockedFor(t *testing.T, op func() error) (time.Duration, error) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- op() }()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(5 * time.Second):
		t.Fatal("not expired within 5 s")
		return 0, nil
	}
}

func TestListener_ExpiresEachPhase(t *testing.T) {
	to := Timeouts{Read: 200 * time.Millisecond, Write: 300 * time.Millisecond, Idle: 400 * time.Millisecond}
	t.Run("no first request", func(t *testing.T) {
		_, server, _ := pair(t, to)
		took, err := blockedFor(t, func() error { _, err := server.Read(make([]byte, 16)); return err })
		if !errors.Is(err, os.ErrDeadlineExceeded) || took < to.Read || took > to.Read+300*time.Millisecond {
			t.Fatalf("read failed after %s with %v, want a timeout near %s", took, err, to.Read)
		}
	})
	t.Run("request trickled", func(t *testing.T) {
		_, server, client := pair(t, to)
		go func() {
			for range 20 {
				if _, err := client.Write([]byte("x")); err != nil {
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
		start := time.Now()
		var err error
		for err == nil {
			_, err = server.Read(make([]byte, 16))
		}
		// Bytes kept arriving; the request as a whole is bounded.
		if took := time.Since(start); !errors.Is(err, os.ErrDeadlineExceeded) || took > to.Read+300*time.Millisecond {
			t.Fatalf("trickled request failed after %s with %v, want a timeout near %s", took, err, to.Read)
		}
	})
	t.Run("idle after a response", func(t *testing.T) {
		_, server, client := pair(t, to)
		roundTrip(t, server, client)
		took, err := blockedFor(t, func() error { _, err := server.Read(make([]byte, 16)); return err })
		if !errors.Is(err, os.ErrDeadlineExceeded) || took < to.Idle-100*time.Millisecond || took > to.Idle+300*time.Millisecond {
			t.Fatalf("idle read failed after %s with %v, want a timeout near %s", took, err, to.Idle)
		}
	})
	t.Run("response trickled", func(t *testing.T) {
		_, server, client := pair(t, to)
		go io.Copy(io.Discard, client)
		if _, err := client.Write([]byte("ping")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(server, make([]byte, 4)); err != nil {
			t.Fatal(err)
		}
		// Each write returns at once; the response as a whole is bounded.
		took, err := blockedFor(t, func() error {
			for {
				if _, err := server.Write([]byte("x")); err != nil {
					return err
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
		if !errors.Is(err, os.ErrDeadlineExceeded) || took < to.Write-100*time.Millisecond || took > to.Write+300*time.Millisecond {
			t.Fatalf("trickled response failed after %s with %v, want a timeout near %s", took, err, to.Write)
		}
	})
	t.Run("client not reading", func(t *testing.T) {
		_, server, _ := pair(t, to)
		chunk := make([]byte, 1<<20)
		took, err := blockedFor(t, func() error {
			for {
				if _, err := server.Write(chunk); err != nil {
					return err
				}
			}
		})
		if !errors.Is(err, os.ErrDeadlineExceeded) || took > to.Write+2*time.Second {
			t.Fatalf("write failed after %s with %v, want a timeout near %s", took, err, to.Write)
		}
	})
}

// roundTrip is one request and response: the client writes, the server
// reads it and answers, the client reads the answer.
func roundTrip(t *testing.T, server, client net.Conn) {
	t.Helper()
	if _, err := client.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(server, buf); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(client, buf); err != nil || !bytes.Equal(buf, []byte("pong")) {
		t.Fatalf("client read %q, %v", buf, err)
	}
}

// A connection that keeps answering within its timeouts lives on, however
// long it lives in all.
func TestListener_KeepsBusyConnections(t *testing.T) {
	to := Timeouts{Read: 100 * time.Millisecond, Write: 100 * time.Millisecond, Idle: 150 * time.Millisecond}
	_, server, client := pair(t, to)
	deadline := time.Now().Add(time.Second)
	for n := 0; time.Now().Before(deadline); n++ {
		roundTrip(t, server, client)
		time.Sleep(60 * time.Millisecond) // idle, within Idle
	}
}

func TestListener_Unbounded(t *testing.T) {
	_, server, client := pair(t, Timeouts{})
	time.Sleep(50 * time.Millisecond)
	roundTrip(t, server, client)
}

func TestListener_ForgetsClosedConnections(t *testing.T) {
	l, server, _ := pair(t, Timeouts{Read: time.Second})
	if n := l.Conns(); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
	server.Close()
	server.Close()
	if n := l.Conns(); n != 0 {
		t.Fatalf("%d connections after close, want 0", n)
	}
}

func TestTickFor(t *testing.T) {
	for _, c := range []struct {
		t    Timeouts
		want time.Duration
	}{
		{Timeouts{}, 0},
		{Timeouts{Read: 10 * time.Second, Write: 30 * time.Second, Idle: 60 * time.Second}, 250 * time.Millisecond},
		{Timeouts{Read: 300 * time.Millisecond, Idle: 500 * time.Millisecond}, 37500 * time.Microsecond},
		{Timeouts{Idle: time.Millisecond}, 5 * time.Millisecond},
	} {
		if got := tickFor(c.t); got != c.want {
			t.Errorf("tickFor(%+v) = %s, want %s", c.t, got, c.want)
		}
	}
}

// A file sent through ReadFrom (fasthttp's sendfile path) to a client that
// reads slowly but steadily lives past the write timeout: each step of
// progress restarts it. A client that stops reading still fails it.
func TestConn_ReadFrom(t *testing.T) {
	// The kernel wakes a blocked sender once a third or so of the socket's
	// buffer (up to 4 MB) has drained, so progress is seen in steps of
	// about a megabyte: the client reads 3-6 MB/s, the write timeout is a
	// second, the file takes 3-5 s.
	to := Timeouts{Read: time.Second, Write: time.Second, Idle: time.Second}
	data := make([]byte, 16<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	path := t.TempDir() + "/file"
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	send := func(t *testing.T, server net.Conn, r func(*os.File) io.Reader) (int64, error) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return server.(io.ReaderFrom).ReadFrom(r(f))
	}
	t.Run("slow reader", func(t *testing.T) {
		_, server, client := pair(t, to)
		got := make(chan []byte, 1)
		go func() {
			var b bytes.Buffer
			buf := make([]byte, 64<<10)
			for {
				n, err := client.Read(buf)
				b.Write(buf[:n])
				if err != nil || b.Len() == len(data) {
					got <- b.Bytes()
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
		start := time.Now()
		n, err := send(t, server, func(f *os.File) io.Reader { return f })
		if err != nil || n != int64(len(data)) {
			t.Fatalf("ReadFrom sent %d bytes in %s: %v", n, time.Since(start), err)
		}
		if b := <-got; !bytes.Equal(b, data) {
			t.Fatalf("client got %d bytes, not the file", len(b))
		}
		if took := time.Since(start); took < 2*to.Write {
			t.Logf("sent in %s: the test did not outlast the write timeout", took)
		}
	})
	t.Run("range", func(t *testing.T) {
		_, server, client := pair(t, to)
		got := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(io.LimitReader(client, 700_000)); got <- b }()
		lr := &io.LimitedReader{N: 700_000}
		n, err := send(t, server, func(f *os.File) io.Reader { f.Seek(1000, io.SeekStart); lr.R = f; return lr })
		if err != nil || n != 700_000 || lr.N != 0 {
			t.Fatalf("ReadFrom sent %d bytes (%d left): %v", n, lr.N, err)
		}
		if b := <-got; !bytes.Equal(b, data[1000:701_000]) {
			t.Fatalf("client got %d bytes, not the range", len(b))
		}
	})
	t.Run("client not reading", func(t *testing.T) {
		_, server, _ := pair(t, to)
		took, err := blockedFor(t, func() error { _, err := send(t, server, func(f *os.File) io.Reader { return f }); return err })
		if !errors.Is(err, os.ErrDeadlineExceeded) || took > to.Write+2*time.Second {
			t.Fatalf("ReadFrom failed after %s with %v, want a timeout near %s", took, err, to.Write)
		}
	})
}
