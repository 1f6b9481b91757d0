// Package redistest starts a real redis-server on a free loopback port for
// tests. When redis-server is not installed the test fails with an
// instruction; it never skips.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Server is a running redis-server owned by one test.
type Server struct {
	t     testing.TB
	bin   string
	dir   string
	Port  int
	args  []string
	mu    sync.Mutex
	cmd   *exec.Cmd
	exitc chan struct{}
}

// Addr is host:port of the server.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// Dir is the server's working directory (for TLS files, ACL files, ...).
func (s *Server) Dir() string { return s.dir }

// Bin finds redis-server or fails the test with an instruction.
func Bin(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("REDIS_SERVER"); p != "" {
		return p
	}
	p, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is not installed; install it with `apt-get install -y redis-server` (or run `make test`, which does), or set REDIS_SERVER to its path")
	}
	return p
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start starts redis-server with the given extra arguments (such as
// "--requirepass", "x") on a free port and stops it when the test ends.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	return StartFunc(t, func(int) []string { return extra })
}

// StartFunc is Start with arguments that depend on the chosen port and the
// server's directory, for a TLS-only server (--port 0 --tls-port PORT ...).
func StartFunc(t testing.TB, args func(port int) []string) *Server {
	t.Helper()
	s := &Server{t: t, bin: Bin(t), dir: t.TempDir()}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		s.Port = FreePort(t)
		s.args = args(s.Port)
		if lastErr = s.start(); lastErr == nil {
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("start redis-server: %v", lastErr)
	return nil
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	args := []string{
		"--port", strconv.Itoa(s.Port),
		"--bind", "127.0.0.1",
		"--dir", s.dir,
		// No RDB snapshots; an AOF that is never fsynced: the server is
		// as safe for a queue as workq-tui's health checks want it (no
		// "changes not on disk" finding) at almost no cost.
		"--save", "",
		"--appendonly", "yes",
		"--appendfsync", "no",
		"--daemonize", "no",
		"--logfile", filepath.Join(s.dir, "redis.log"),
	}
	args = append(args, s.args...)
	cmd := exec.Command(s.bin, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	exitc := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exitc) }()
	s.cmd, s.exitc = cmd, exitc
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exitc:
			return fmt.Errorf("redis-server exited at start: %s", s.logTail())
		default:
		}
		if s.ready() {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-exitc
	return fmt.Errorf("redis-server did not get ready in 10s: %s", s.logTail())
}

// ready reports whether the log says the server accepts connections. The log
// is used, not a PING, so that servers started with TLS only or with a
// password are handled the same way.
func (s *Server) ready() bool {
	b, err := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	if err != nil {
		return false
	}
	return strings.Contains(string(b), "eady to accept connections")
}

func (s *Server) logTail() string {
	f, err := os.Open(filepath.Join(s.dir, "redis.log"))
	if err != nil {
		return err.Error()
	}
	defer func() { _ = f.Close() }() // opened for reading
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}

// Stop stops the server (SIGKILL; it keeps no data on disk).
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exitc
	s.cmd = nil
	_ = os.Remove(filepath.Join(s.dir, "redis.log"))
}

// Restart starts the server again on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	// Empty: the AOF the server wrote would load its data back.
	_ = os.RemoveAll(filepath.Join(s.dir, "appendonlydir"))
	_ = os.Remove(filepath.Join(s.dir, "appendonly.aof"))
	if err := startAgain(s.start); err != nil {
		s.t.Fatalf("restart redis-server: %v", err)
	}
}

// startAgain calls start until it succeeds, for up to 5 s: a port just
// given up by a killed server can take a moment to be free again.
func startAgain(start func() error) error {
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		if err = start(); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// Dial opens a plain connection to a server started without password or TLS.
func (s *Server) Dial() redis.Conn {
	s.t.Helper()
	c, err := redis.Dial("tcp", s.Addr())
	if err != nil {
		s.t.Fatalf("dial test redis-server: %v", err)
	}
	s.t.Cleanup(func() { c.Close() })
	return c
}

// Pool is a redigo pool for a plain test server.
func (s *Server) Pool() *redis.Pool {
	p := &redis.Pool{
		MaxIdle:     16,
		IdleTimeout: time.Minute,
		Dial:        func() (redis.Conn, error) { return redis.Dial("tcp", s.Addr()) },
	}
	s.t.Cleanup(func() { p.Close() })
	return p
}

// Do runs one command on a fresh connection and fails the test on error.
func (s *Server) Do(cmd string, args ...interface{}) interface{} {
	s.t.Helper()
	c := s.Dial()
	v, err := c.Do(cmd, args...)
	if err != nil {
		s.t.Fatalf("%s: %v", cmd, err)
	}
	return v
}

// Dump returns every key with its type and contents, for comparing end
// states: strings as "string:<value>", lists in order, sets and hashes as
// sorted "k=v" items, zsets as "member@score" in order.
func Dump(t testing.TB, c redis.Conn, match string) map[string]string {
	t.Helper()
	keys, err := redis.Strings(c.Do("KEYS", match))
	if err != nil {
		t.Fatalf("KEYS: %v", err)
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		typ, err := redis.String(c.Do("TYPE", k))
		if err != nil {
			t.Fatalf("TYPE %s: %v", k, err)
		}
		var val string
		switch typ {
		case "string":
			v, err := redis.String(c.Do("GET", k))
			if err != nil {
				t.Fatalf("GET %s: %v", k, err)
			}
			val = v
		case "list":
			v, err := redis.Strings(c.Do("LRANGE", k, 0, -1))
			if err != nil {
				t.Fatalf("LRANGE %s: %v", k, err)
			}
			val = strings.Join(v, "\n")
		case "set":
			v, err := redis.Strings(c.Do("SMEMBERS", k))
			if err != nil {
				t.Fatalf("SMEMBERS %s: %v", k, err)
			}
			val = strings.Join(sorted(v), "\n")
		case "hash":
			v, err := redis.StringMap(c.Do("HGETALL", k))
			if err != nil {
				t.Fatalf("HGETALL %s: %v", k, err)
			}
			var items []string
			for f, x := range v {
				items = append(items, f+"="+x)
			}
			val = strings.Join(sorted(items), "\n")
		case "zset":
			v, err := redis.Strings(c.Do("ZRANGE", k, 0, -1, "WITHSCORES"))
			if err != nil {
				t.Fatalf("ZRANGE %s: %v", k, err)
			}
			var items []string
			for i := 0; i+1 < len(v); i += 2 {
				items = append(items, v[i]+"@"+v[i+1])
			}
			val = strings.Join(items, "\n")
		}
		out[k] = typ + ":" + val
	}
	return out
}

func sorted(v []string) []string {
	out := append([]string(nil), v...)
	sort.Strings(out)
	return out
}
