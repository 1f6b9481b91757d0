package cli

import (
	"bytes"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// resetProxy forwards connections to a Redis and resets (RST) the client's
// connection once the client sends a command containing trigger: the
// connection is lost in the middle of a command, as when Redis restarts.
func resetProxy(t *testing.T, target string, trigger []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			wg.Add(2)
			go func() { // Redis to the client
				defer wg.Done()
				_, _ = io.Copy(client, server)
				client.Close()
			}()
			go func() { // the client to Redis, until the trigger
				defer wg.Done()
				defer server.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := client.Read(buf)
					if n > 0 && bytes.Contains(bytes.ToUpper(buf[:n]), trigger) {
						_ = client.(*net.TCPConn).SetLinger(0)
						client.Close()
						return
					}
					if n > 0 {
						if _, werr := server.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// A connection reset in the middle of a write (the script call of a bulk
// requeue) gives an error line that starts with the Redis address, like
// every other error from Redis, although the network error itself names
// that address as its remote end.
func TestConnectionResetMidCommandNamesAddress(t *testing.T) {
	srv := redistest.Start(t)
	jobsState(t, srv.Dial())
	proxy := resetProxy(t, srv.Addr(), []byte("EVAL"))
	_, stderr, code := runCLI(t, input{}, "--redis="+proxy, "jobs", "dead", "requeue", "--all", "--job", "mail", "--yes")
	if code != ExitError {
		t.Fatalf("exit %d, want 1: %s", code, stderr)
	}
	if !strings.Contains(stderr, "connection reset") {
		t.Fatalf("the connection was not reset mid-command: %q", stderr)
	}
	if want := "workq-tui: redis at " + proxy + ": "; !strings.HasPrefix(stderr, want) {
		t.Errorf("error line does not start with %q: %q", want, stderr)
	}
	if n := errorLines(stderr); n != 1 {
		t.Errorf("%d error lines, want 1: %q", n, stderr)
	}
}
