package redistest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
)

// SentinelOptions tune a Sentinel deployment for tests.
type SentinelOptions struct {
	// MasterName is the monitored name; "m" when empty.
	MasterName string
	// Sentinels is how many sentinels to start; 3 when 0.
	Sentinels int
	// DownAfter and FailoverTimeout are the sentinels' down-after-
	// milliseconds and failover-timeout; 1 s and 3 s when 0, so a failover
	// in a test takes a few seconds.
	DownAfter, FailoverTimeout time.Duration
	// User and Password, when Password is set, protect the sentinels: an
	// ACL user (or the default user when User is empty) that the sentinels
	// also use among themselves.
	User, Password string
	// TLS makes every node (master, replica, sentinels) speak TLS only,
	// with certificates from one throw-away CA (SentinelSet.TLS).
	TLS bool
}

// SentinelSet is a master, one replica and the sentinels that monitor them,
// all on free loopback ports and stopped when the test ends.
type SentinelSet struct {
	Name      string
	Master    *Server
	Replica   *Server
	Sentinels []*SentinelServer
	// TLS holds the CA and the certificate every node uses when
	// SentinelOptions.TLS is set.
	TLS  TLSFiles
	opts SentinelOptions
}

// SentinelServer is one `redis-server --sentinel`.
type SentinelServer struct {
	t     testing.TB
	bin   string
	dir   string
	conf  string
	user  string
	pass  string
	tls   *tls.Config
	Port  int
	mu    sync.Mutex
	cmd   *exec.Cmd
	exitc chan struct{}
}

// Addr is host:port of the sentinel.
func (s *SentinelServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// Addrs are the sentinels' addresses.
func (set *SentinelSet) Addrs() []string {
	out := make([]string, len(set.Sentinels))
	for i, s := range set.Sentinels {
		out[i] = s.Addr()
	}
	return out
}

// StartSentinel starts a master, a replica of it and the sentinels, and
// waits until every sentinel knows the replica and the other sentinels, so
// that a SENTINEL FAILOVER can succeed. A missing redis-server fails the
// test with an install instruction.
//
// A deployment is five processes that take seconds to agree: the tests
// that start one are left out of go test -short (make test runs them).
func StartSentinel(t testing.TB, o SentinelOptions) *SentinelSet {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Sentinel deployment (several processes): left out of go test -short, run by make test")
	}
	if o.MasterName == "" {
		o.MasterName = "m"
	}
	if o.Sentinels == 0 {
		o.Sentinels = 3
	}
	if o.DownAfter == 0 {
		o.DownAfter = time.Second
	}
	if o.FailoverTimeout == 0 {
		o.FailoverTimeout = 3 * time.Second
	}
	set := &SentinelSet{Name: o.MasterName, opts: o}
	var tlsConf *tls.Config
	args := func(port int) []string { return nil }
	if o.TLS {
		set.TLS = WriteCA(t, t.TempDir(), "sentinel-ca", true)
		tlsConf = clientTLS(t, set.TLS)
		args = func(port int) []string {
			return []string{
				"--port", "0", "--tls-port", strconv.Itoa(port),
				"--tls-cert-file", set.TLS.CertFile, "--tls-key-file", set.TLS.KeyFile,
				"--tls-ca-cert-file", set.TLS.CAFile, "--tls-auth-clients", "no", "--tls-replication", "yes",
			}
		}
	}
	set.Master = StartFunc(t, args)
	set.Replica = StartFunc(t, func(port int) []string {
		return append(args(port), "--replicaof", "127.0.0.1", strconv.Itoa(set.Master.Port))
	})
	waitFor(t, 10*time.Second, "the replica to sync", func() bool {
		c, err := dialNode(set.Replica.Addr(), tlsConf, "", "")
		if err != nil {
			return false
		}
		defer c.Close()
		info, err := redis.String(c.Do("INFO", "replication"))
		return err == nil && strings.Contains(info, "master_link_status:up")
	})
	bin := Bin(t)
	for i := 0; i < o.Sentinels; i++ {
		set.Sentinels = append(set.Sentinels, startSentinel(t, bin, set))
	}
	waitFor(t, 30*time.Second, "the sentinels to find each other and the replica", func() bool {
		for _, s := range set.Sentinels {
			c, err := s.dial()
			if err != nil {
				return false
			}
			m, err := redis.StringMap(c.Do("SENTINEL", "master", o.MasterName))
			c.Close()
			if err != nil || m["num-other-sentinels"] != strconv.Itoa(o.Sentinels-1) || m["num-slaves"] != "1" {
				return false
			}
		}
		return true
	})
	return set
}

func startSentinel(t testing.TB, bin string, set *SentinelSet) *SentinelServer {
	t.Helper()
	s := &SentinelServer{t: t, bin: bin, dir: t.TempDir(), user: set.opts.User, pass: set.opts.Password}
	if set.opts.TLS {
		s.tls = clientTLS(t, set.TLS)
	}
	s.conf = filepath.Join(s.dir, "sentinel.conf")
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		s.Port = FreePort(t)
		if lastErr = s.writeConf(set); lastErr != nil {
			break
		}
		if lastErr = s.start(); lastErr == nil {
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("start redis-server --sentinel: %v", lastErr)
	return nil
}

func (s *SentinelServer) writeConf(set *SentinelSet) error {
	o, name := set.opts, set.Name
	port := []string{"port " + strconv.Itoa(s.Port)}
	if o.TLS {
		port = []string{
			"port 0", "tls-port " + strconv.Itoa(s.Port),
			"tls-cert-file " + strconv.Quote(set.TLS.CertFile), "tls-key-file " + strconv.Quote(set.TLS.KeyFile),
			"tls-ca-cert-file " + strconv.Quote(set.TLS.CAFile), "tls-auth-clients no", "tls-replication yes",
		}
	}
	lines := append(append([]string{}, port...),
		"bind 127.0.0.1",
		"daemonize no",
		"dir "+strconv.Quote(s.dir),
		"logfile "+strconv.Quote(filepath.Join(s.dir, "sentinel.log")),
		fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d 2", name, set.Master.Port),
		fmt.Sprintf("sentinel down-after-milliseconds %s %d", name, o.DownAfter.Milliseconds()),
		fmt.Sprintf("sentinel failover-timeout %s %d", name, o.FailoverTimeout.Milliseconds()),
		fmt.Sprintf("sentinel parallel-syncs %s 1", name),
	)
	if o.Password != "" {
		if o.User != "" {
			lines = append(lines,
				fmt.Sprintf("user %s on >%s ~* &* +@all", o.User, o.Password),
				"user default off",
				"sentinel sentinel-user "+o.User)
		} else {
			lines = append(lines, "requirepass "+o.Password)
		}
		lines = append(lines, "sentinel sentinel-pass "+o.Password)
	}
	return os.WriteFile(s.conf, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}

func (s *SentinelServer) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = os.Remove(filepath.Join(s.dir, "sentinel.log"))
	cmd := exec.Command(s.bin, s.conf, "--sentinel")
	// Errors in the configuration go to stderr before the log is open.
	out, err := os.Create(filepath.Join(s.dir, "sentinel.out"))
	if err != nil {
		return err
	}
	defer func() { _ = out.Close() }() // the child holds its own descriptor
	cmd.Stdout, cmd.Stderr = out, out
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
			return fmt.Errorf("sentinel exited at start: %s %s", tail(filepath.Join(s.dir, "sentinel.out")), tail(filepath.Join(s.dir, "sentinel.log")))
		default:
		}
		if b, err := os.ReadFile(filepath.Join(s.dir, "sentinel.log")); err == nil && strings.Contains(string(b), "+monitor master") {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-exitc
	return fmt.Errorf("sentinel did not start in 10s: %s", tail(filepath.Join(s.dir, "sentinel.log")))
}

func (s *SentinelServer) dial() (redis.Conn, error) { return dialNode(s.Addr(), s.tls, s.user, s.pass) }

// dialNode connects to a test node, with TLS when conf is set.
func dialNode(addr string, conf *tls.Config, user, pass string) (redis.Conn, error) {
	opts := []redis.DialOption{redis.DialConnectTimeout(2 * time.Second), redis.DialReadTimeout(2 * time.Second)}
	if pass != "" {
		opts = append(opts, redis.DialPassword(pass), redis.DialUsername(user))
	}
	if conf != nil {
		opts = append(opts, redis.DialUseTLS(true), redis.DialTLSConfig(conf))
	}
	return redis.Dial("tcp", addr, opts...)
}

// clientTLS is a client configuration that trusts the set's CA.
func clientTLS(t testing.TB, files TLSFiles) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(files.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", files.CAFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// ClientTLS is a client TLS configuration that trusts the set's CA; nil
// when the set does not use TLS.
func (set *SentinelSet) ClientTLS(t testing.TB) *tls.Config {
	if !set.opts.TLS {
		return nil
	}
	return clientTLS(t, set.TLS)
}

// Do runs one command on the sentinel, with its password if it has one, and
// fails the test on error.
func (s *SentinelServer) Do(cmd string, args ...interface{}) interface{} {
	s.t.Helper()
	c, err := s.dial()
	if err != nil {
		s.t.Fatalf("dial sentinel: %v", err)
	}
	defer c.Close()
	v, err := c.Do(cmd, args...)
	if err != nil {
		s.t.Fatalf("sentinel %s: %v", cmd, err)
	}
	return v
}

// Stop kills the sentinel.
func (s *SentinelServer) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exitc
	s.cmd = nil
}

// Restart starts a stopped sentinel again on the same port, from the
// configuration it rewrote while it ran.
func (s *SentinelServer) Restart() {
	s.t.Helper()
	s.Stop()
	if err := startAgain(s.start); err != nil {
		s.t.Fatalf("restart sentinel: %v", err)
	}
}

// Role is the first element of ROLE on a node of the set: "master" or
// "slave"; "" when it does not answer.
func (set *SentinelSet) Role(t testing.TB, s *Server) string {
	c, err := dialNode(s.Addr(), set.ClientTLS(t), "", "")
	if err != nil {
		return ""
	}
	defer c.Close()
	v, err := redis.Values(c.Do("ROLE"))
	if err != nil || len(v) == 0 {
		return ""
	}
	r, _ := redis.String(v[0], nil)
	return r
}

func waitFor(t testing.TB, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}
