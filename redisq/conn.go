// How a connection is made: Options, Endpoint, Dialer, the socket
// deadlines, and the operator's hint for an error reply.

package redisq

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/safefile"
)

// Options say how to reach Redis. Password is never printed.
type Options struct {
	// Address is host:port, or a redis:// or rediss:// URL.
	Address       string
	DB            int
	User          string
	Password      string
	TLS           bool
	TLSCAFile     string
	TLSSkipVerify bool
	// Timeout bounds every Redis call (connect, read, write).
	Timeout time.Duration
	// ReadOnly makes every connection refuse commands outside the read
	// allow-list before anything is sent.
	ReadOnly bool
}

// ErrReadOnly is returned for a command refused by a read-only connection.
var ErrReadOnly = errors.New("refused in read-only mode")

// Endpoint is a parsed address: what is dialled and what may be shown.
type Endpoint struct {
	HostPort string
	TLS      bool
	DB       int
	User     string
}

// String is the address as shown to the operator: never a password.
func (e Endpoint) String() string {
	s := e.HostPort
	if e.TLS {
		s = "rediss://" + s
	}
	if e.DB != 0 {
		s += "/" + strconv.Itoa(e.DB)
	}
	return s
}

// Endpoint reads Address: host:port or a redis:// or rediss:// URL. A URL that
// carries a password is refused: a password on the command line shows in ps.
// The error never repeats the address, so it cannot leak one.
func (o Options) Endpoint() (Endpoint, error) {
	ep := Endpoint{DB: o.DB, User: o.User, TLS: o.TLS}
	addr := strings.TrimSpace(o.Address)
	if addr == "" {
		addr = "localhost:6379"
	}
	if strings.Contains(addr, "://") {
		u, err := url.Parse(addr)
		if err != nil {
			return ep, errors.New("invalid --redis URL: expected redis://[user@]host[:port][/db] or rediss://")
		}
		switch u.Scheme {
		case "redis":
		case "rediss":
			ep.TLS = true
		default:
			return ep, fmt.Errorf("invalid --redis URL scheme %q: use redis:// or rediss://", u.Scheme)
		}
		if u.User != nil {
			if _, set := u.User.Password(); set {
				return ep, errors.New("the --redis URL holds a password, which would show in ps: put it in REDIS_PASSWORD or --password-file instead")
			}
			if name := u.User.Username(); name != "" && ep.User == "" {
				ep.User = name
			}
		}
		if err := checkURLQuery(u); err != nil {
			return ep, err
		}
		host, port := u.Hostname(), u.Port()
		if host == "" {
			host = "localhost"
		}
		if port == "" {
			port = "6379"
		}
		ep.HostPort = net.JoinHostPort(host, port)
		if p := strings.Trim(u.Path, "/"); p != "" {
			db, err := strconv.Atoi(p)
			if err != nil || db < 0 {
				return ep, fmt.Errorf("invalid database %q in --redis URL: want a number", p)
			}
			if o.DB == 0 {
				ep.DB = db
			}
		}
		return ep, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		// A bare host: default port.
		if strings.Contains(addr, ":") && !strings.HasPrefix(addr, "[") {
			return ep, fmt.Errorf("invalid --redis address %q: want host:port or a redis:// URL", addr)
		}
		host, port = strings.Trim(addr, "[]"), "6379"
	}
	if _, err := strconv.Atoi(port); err != nil {
		return ep, fmt.Errorf("invalid port %q in --redis: want a number", port)
	}
	if host == "" {
		host = "localhost"
	}
	ep.HostPort = net.JoinHostPort(host, port)
	return ep, nil
}

// Dialer opens connections with fixed options.
type Dialer struct {
	ep      Endpoint
	opts    Options
	tlsConf *tls.Config
	// router, when set, decides where Dial connects (see WithRouter).
	router Router
}

// NewDialer validates the options (address, CA file) without connecting.
func NewDialer(o Options) (*Dialer, error) {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	ep, err := o.Endpoint()
	if err != nil {
		return nil, err
	}
	d := &Dialer{ep: ep, opts: o}
	if ep.TLS || o.TLSCAFile != "" || o.TLSSkipVerify {
		d.ep.TLS = true
		host, _, _ := net.SplitHostPort(ep.HostPort)
		conf := &tls.Config{ServerName: host, InsecureSkipVerify: o.TLSSkipVerify, MinVersion: tls.VersionTLS12} //nolint:gosec // the operator asked for it
		if o.TLSCAFile != "" {
			pem, _, err := safefile.ReadFile(o.TLSCAFile, safefile.Rules{})
			if err != nil {
				return nil, fmt.Errorf("read --tls-ca: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("read --tls-ca %s: no PEM certificate in it", o.TLSCAFile)
			}
			conf.RootCAs = pool
		}
		d.tlsConf = conf
	}
	return d, nil
}

// Endpoint is where the dialer connects, fit to show.
func (d *Dialer) Endpoint() Endpoint { return d.ep }

// TLSConfig is a copy of the TLS settings connections use (CA, verification),
// nil without TLS.
func (d *Dialer) TLSConfig() *tls.Config {
	if d.tlsConf == nil {
		return nil
	}
	return d.tlsConf.Clone()
}

// ReadOnly reports whether connections refuse writes.
func (d *Dialer) ReadOnly() bool { return d.opts.ReadOnly }

// Timeout is the per-call timeout.
func (d *Dialer) Timeout() time.Duration { return d.opts.Timeout }

// Dial connects, authenticates and selects the database. It sends nothing
// else (no PING, no CLIENT SETNAME, no SELECT 0), so a Redis ACL user that
// may only read can connect. The error names the address and never holds the
// password. Behind a router (WithRouter) it connects where the router says.
//
// The connection bounds every wait for Redis by the timeout without redigo's
// read and write timeouts, which set a deadline on the socket for every
// command sent and every reply read: see deadlineNetConn.
func (d *Dialer) Dial(ctx context.Context) (redis.Conn, error) {
	if d.router != nil {
		return d.router.DialRouted(ctx)
	}
	return d.dial(ctx, d.ep.HostPort, d.tlsConf)
}

// DialAddr connects to hostport, a node another source named (a Sentinel
// master or replica), with the dialer's user, password, TLS settings,
// database, timeout and read-only guard. With TLS the certificate is checked
// against that node's host.
func (d *Dialer) DialAddr(ctx context.Context, hostport string) (redis.Conn, error) {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, fmt.Errorf("connect to redis: invalid address %q: want host:port", hostport)
	}
	conf := d.tlsConf
	if conf != nil {
		conf = conf.Clone()
		conf.ServerName = host
	}
	return d.dial(ctx, hostport, conf)
}

func (d *Dialer) dial(ctx context.Context, hostport string, tlsConf *tls.Config) (redis.Conn, error) {
	shown := d.ep
	shown.HostPort = hostport
	dialer := &net.Dialer{Timeout: d.opts.Timeout, KeepAlive: 5 * time.Minute}
	var nc *deadlineNetConn
	opts := []redis.DialOption{
		redis.DialContextFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			nc = newDeadlineNetConn(c, d.opts.Timeout)
			return nc, nil
		}),
	}
	if d.ep.DB != 0 {
		opts = append(opts, redis.DialDatabase(d.ep.DB))
	}
	if d.opts.Password != "" {
		opts = append(opts, redis.DialPassword(d.opts.Password))
		if d.ep.User != "" {
			opts = append(opts, redis.DialUsername(d.ep.User))
		}
	}
	if tlsConf != nil {
		opts = append(opts, redis.DialUseTLS(true), redis.DialTLSConfig(tlsConf))
	}
	ctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	defer cancel()
	c, err := redis.DialContext(ctx, "tcp", hostport, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to redis at %s: %s", shown, d.scrub(describeDialError(err)))
	}
	c = &cancelConn{Conn: c, nc: nc, tls: tlsConf != nil}
	if d.opts.ReadOnly {
		c = ReadOnlyConn(c)
	}
	return c, nil
}

// Router picks the node each new connection of a Dialer goes to, for a
// deployment whose master moves (Sentinel). It dials with the dialer's
// DialAddr.
type Router interface {
	DialRouted(ctx context.Context) (redis.Conn, error)
}

// WithRouter is a copy of the dialer whose Dial (and Pool) connects where r
// says; shown (host:port) is the address it shows until then. DialAddr is
// unchanged.
func (d *Dialer) WithRouter(r Router, shown string) *Dialer {
	c := *d
	c.router = r
	c.ep.HostPort = shown
	return &c
}

// deadlineNetConn is a connection's socket. redigo with a read and a write
// timeout sets a deadline on the socket for every command it sends and every
// reply it reads (a time.Now and a change of the runtime's timers each: a
// snapshot of 1,000 pools x 20 job types sends 21,000 commands). Dialled
// without them, it still clears the read deadline before every reply. Here
// the deadlines redigo asks for are only noted, and one is set on the socket
// before each read from and write to it (redigo reads and writes through
// 4 KB buffers, so about once per 100 commands or replies): the timeout from
// now, or the deadline redigo asked for (from a context or an explicit
// timeout) when that is sooner. So no wait for Redis, to connect (the
// dialer's timeout), to write or to read, lasts longer than the timeout, as
// before.
type deadlineNetConn struct {
	net.Conn
	timeout time.Duration
	// read and write are the deadlines redigo asked for, in unix
	// nanoseconds; 0 when it asked for none.
	read, write atomic.Int64
	// interrupted is set when a cancelled context ended a read (see
	// cancelConn): every read fails from then on.
	interrupted atomic.Bool
	// r reads the socket through a buffer of readBufferSize (see Read).
	r *bufio.Reader
	// wmu guards w, what redigo wrote that the socket has not taken yet
	// (see Write), and werr, the error of the socket's last write, which
	// every later write and read returns.
	wmu  sync.Mutex
	w    []byte
	werr error
}

// readBufferSize is how much one read from the socket may take, and
// writeBufferSize how much one write to it may give.
const (
	readBufferSize  = 64 << 10
	writeBufferSize = 64 << 10
)

func newDeadlineNetConn(c net.Conn, timeout time.Duration) *deadlineNetConn {
	nc := &deadlineNetConn{Conn: c, timeout: timeout}
	nc.r = bufio.NewReaderSize(socketReader{nc}, readBufferSize)
	return nc
}

func (c *deadlineNetConn) deadline(asked int64) time.Time {
	dl := time.Now().Add(c.timeout)
	if asked != 0 && asked < dl.UnixNano() {
		return time.Unix(0, asked)
	}
	return dl
}

// Read hands out what the socket gave. redigo reads through a 4 KB buffer,
// which would make a walk of a big set (200 MB of members) one system call
// and one deadline per 4 KB: under it the socket is read readBufferSize
// bytes at a time. Nothing is handed out once a read was interrupted, not
// even what the buffer holds.
func (c *deadlineNetConn) Read(p []byte) (int, error) {
	if c.interrupted.Load() {
		return 0, errInterrupted
	}
	if err := c.flush(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// socketReader is what the buffer of a deadlineNetConn reads from: the
// socket, with the read deadline set before each read.
type socketReader struct{ c *deadlineNetConn }

func (s socketReader) Read(p []byte) (int, error) {
	c := s.c
	if err := c.Conn.SetReadDeadline(c.deadline(c.read.Load())); err != nil {
		return 0, err
	}
	// Checked after the deadline is set: an interrupt either comes before
	// this check, or moves the deadline just set to the past.
	if c.interrupted.Load() {
		return 0, errInterrupted
	}
	return c.Conn.Read(p)
}

// Write keeps what redigo writes, and the socket takes it writeBufferSize
// at a time, or when redigo's caller flushes (cancelConn.Flush) or waits
// for a reply (Read): redigo writes through a 4 KB buffer, which made a
// requeue's script calls (3.5 MB of jobs) 900 system calls and deadlines.
// Nothing a caller flushed waits: every wait for Redis reads the socket,
// and a read first writes what is kept.
func (c *deadlineNetConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return 0, c.werr
	}
	if len(c.w)+len(p) <= writeBufferSize {
		c.w = append(c.w, p...)
		return len(p), nil
	}
	if err := c.writeKept(); err != nil {
		return 0, err
	}
	if len(p) >= writeBufferSize {
		if err := c.socketWrite(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	c.w = append(c.w, p...)
	return len(p), nil
}

// flush writes to the socket what Write kept.
func (c *deadlineNetConn) flush() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	return c.writeKept()
}

// writeErr is the error of the socket's last write, nil when it had none.
func (c *deadlineNetConn) writeErr() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.werr
}

// writeKept writes what Write kept; c.wmu is held.
func (c *deadlineNetConn) writeKept() error {
	if len(c.w) == 0 {
		return nil
	}
	err := c.socketWrite(c.w)
	c.w = c.w[:0]
	return err
}

// socketWrite writes p to the socket within the write deadline; an error
// is kept for every later write and read. c.wmu is held.
func (c *deadlineNetConn) socketWrite(p []byte) error {
	if err := c.Conn.SetWriteDeadline(c.deadline(c.write.Load())); err != nil {
		c.werr = err
		return err
	}
	if _, err := c.Conn.Write(p); err != nil {
		c.werr = err
		return err
	}
	return nil
}

// unixNano is a deadline in unix nanoseconds, 0 for none. A deadline past
// what an int64 of nanoseconds holds (2262-04-11T23:47:16Z) is held there,
// one before 1970 at 1 (passed): UnixNano itself would wrap, and turn a
// far deadline (a context of a long --timeout) into one long past.
func unixNano(t time.Time) int64 {
	switch {
	case t.IsZero():
		return 0
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	case t.Before(time.Unix(0, 1)):
		return 1
	}
	return t.UnixNano()
}

func (c *deadlineNetConn) SetDeadline(t time.Time) error {
	c.read.Store(unixNano(t))
	c.write.Store(unixNano(t))
	return nil
}

func (c *deadlineNetConn) SetReadDeadline(t time.Time) error {
	c.read.Store(unixNano(t))
	return nil
}

func (c *deadlineNetConn) SetWriteDeadline(t time.Time) error {
	c.write.Store(unixNano(t))
	return nil
}

// scrub removes the password from a message, should any layer echo it.
func (d *Dialer) scrub(msg string) string {
	if d.opts.Password == "" {
		return msg
	}
	return strings.ReplaceAll(msg, d.opts.Password, "[password]")
}

func describeDialError(err error) string {
	var re redis.Error
	if errors.As(err, &re) {
		msg := string(re)
		switch {
		case strings.HasPrefix(msg, "WRONGPASS"), strings.Contains(msg, "invalid password"), strings.Contains(msg, "invalid username-password"):
			return "authentication failed: wrong user name or password (" + msg + ")"
		case strings.HasPrefix(msg, "NOAUTH"):
			return "authentication required: set REDIS_PASSWORD or --password-file (" + msg + ")"
		}
		return msg
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timed out (" + err.Error() + ")"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	var ce *tls.CertificateVerificationError
	if errors.As(err, &ce) {
		return "TLS certificate not trusted: " + ce.Err.Error() + " (check --tls-ca)"
	}
	return err.Error()
}

// Pool is a redigo pool over the dialer, for the reaper and long-running
// screens. Connections are tested with nothing (no PING: a read-only ACL
// user may not be allowed one).
//
// Behind a router no connection is kept idle: each one is dialled where the
// router says at that moment, so none outlives a failover in the pool.
func (d *Dialer) Pool() *redis.Pool {
	idle := 4
	if d.router != nil {
		idle = 0
	}
	return &redis.Pool{
		MaxIdle:     idle,
		IdleTimeout: time.Minute,
		DialContext: d.Dial,
	}
}

// Hint returns advice for an error whose cause the operator can fix, or ""
// when there is none: Redis asking for a password that was not given, or a
// Redis user that lacks a permission. It never repeats a password.
func Hint(err error) string {
	switch {
	case errorReplyIs(err, "NOAUTH"):
		return "Redis wants a password: set REDIS_PASSWORD or use --password-file"
	case errorReplyIs(err, "NOPERM"):
		return "the Redis user lacks a permission for this; --read-only needs +@read (and +time for Redis's clock), repairs need write and script permissions"
	}
	return ""
}

// checkURLQuery refuses a --redis URL with a query (?password=..., ?db=2)
// or a fragment: nothing reads them, so a password there would be kept in
// ps and shell history and ignored besides. The URL is not repeated.
func checkURLQuery(u *url.URL) error {
	if u.RawQuery == "" && !u.ForceQuery && u.Fragment == "" {
		return nil
	}
	q, _ := url.ParseQuery(u.RawQuery)
	for k := range q {
		k = strings.ToLower(k)
		if strings.Contains(k, "pass") || strings.Contains(k, "secret") || strings.Contains(k, "token") || k == "auth" || k == "pwd" {
			return errors.New("the --redis URL holds a password, which would show in ps: put it in REDIS_PASSWORD or --password-file instead")
		}
	}
	return errors.New("invalid --redis URL: it takes no query (?KEY=...) or fragment (#...): expected redis://[user@]host[:port][/db] or rediss://")
}
