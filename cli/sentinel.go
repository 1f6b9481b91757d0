package cli

// Redis Sentinel: the --sentinel flags of every connecting command, and the
// route that makes the target's dialer connect where the sentinels say: the
// master they name (checked with ROLE, followed through failovers), a
// replica with --replica, and for a write the master as the sentinels name
// it right before the write is sent.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/config"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/redisq/sentinel"
	"github.com/workq-tui/workq-tui/tui"
)

// sentinelFlags are the Sentinel flags of a target. The sentinels speak TLS
// with --sentinel-tls, trusting what the Redis connection trusts (--tls-ca,
// --tls-skip-verify): sentinels often run without TLS in front of TLS data
// nodes, or the other way round, but one CA serves both.
type sentinelFlags struct {
	fs           *pflag.FlagSet
	addrs        []string
	master       string
	user         string
	passwordFile string
	password     string
	tls          bool
	replica      bool

	// route is set by open.
	route *sentinelRoute
}

func (s *sentinelFlags) addFlags(fs *pflag.FlagSet) {
	s.fs = fs
	fs.StringSliceVar(&s.addrs, "sentinel", nil, "ask these Redis Sentinels for the address (`host:port`, comma-separated or repeated) instead of --redis")
	fs.StringVar(&s.master, "sentinel-master", "", "the `name` the sentinels monitor the master under")
	fs.StringVar(&s.user, "sentinel-user", "", "Sentinel ACL user `name` (the password comes from SENTINEL_PASSWORD or --sentinel-password-file)")
	fs.StringVar(&s.passwordFile, "sentinel-password-file", "", "read the Sentinel password from `FILE` (else from SENTINEL_PASSWORD)")
	fs.BoolVar(&s.tls, "sentinel-tls", false, "connect to the sentinels with TLS (trusting --tls-ca, or the system's CAs)")
	fs.BoolVar(&s.replica, "replica", false, "with --sentinel and --read-only: read from a replica the sentinels list, not the master")
}

// settings are the Sentinel flags as configuration settings.
func (s *sentinelFlags) settings() config.SentinelSettings {
	return config.SentinelSettings{
		Sentinel: s.addrs, SentinelMaster: s.master, SentinelUser: s.user,
		SentinelPasswordFile: s.passwordFile, SentinelTLS: s.tls, Replica: s.replica,
	}
}

// apply sets the Sentinel flags from merged settings (config.Merge).
func (s *sentinelFlags) apply(c config.SentinelSettings) {
	s.addrs, s.master, s.user = c.Sentinel, c.SentinelMaster, c.SentinelUser
	s.passwordFile, s.tls, s.replica = c.SentinelPasswordFile, c.SentinelTLS, c.Replica
}

func (s *sentinelFlags) enabled() bool { return len(s.addrs) > 0 }

// changed reports whether flag name was given (false for a target built
// without flags).
func (s *sentinelFlags) changed(name string) bool { return s.fs != nil && s.fs.Changed(name) }

// check refuses bad combinations with one-line usage errors. The Sentinel
// password has been read by merge.
func (s *sentinelFlags) check(_ env, readOnly, demo bool) error {
	if !s.enabled() {
		for _, f := range []string{"sentinel-master", "sentinel-user", "sentinel-password-file", "sentinel-tls", "replica"} {
			if s.changed(f) {
				return usageErrorf("--%s needs --sentinel host:port[,host:port...]", f)
			}
		}
		return nil
	}
	switch {
	case s.changed("redis"):
		return usageErrorf("--redis and --sentinel exclude each other: with --sentinel the sentinels name the Redis address")
	case demo:
		return usageErrorf("--demo and --sentinel exclude each other")
	case s.master == "":
		return usageErrorf("--sentinel needs --sentinel-master NAME (the name the sentinels monitor)")
	case strings.ContainsFunc(s.master, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return usageErrorf("--sentinel-master %q holds a space or a control character", s.master)
	case s.replica && !readOnly:
		return usageErrorf("--replica needs --read-only: a replica takes no writes")
	}
	for _, a := range s.addrs {
		if err := config.CheckHostPort(strings.TrimSpace(a)); err != nil {
			return usageErrorf("invalid --sentinel address: %v", err)
		}
	}
	if s.user != "" && s.password == "" {
		return usageErrorf("--sentinel-user needs a password: set SENTINEL_PASSWORD or --sentinel-password-file (sentinel_password_file or sentinel_password_env in a target)")
	}
	return nil
}

// open asks the sentinels for the master (or a replica) and returns a
// dialer routed there. Without --replica a watcher follows failovers until
// stop (never nil, also on error). d is the dialer of the Redis flags (auth, TLS, database, timeout,
// read-only guard); every data node is dialled with it.
func (s *sentinelFlags) open(ctx context.Context, d *redisq.Dialer) (*redisq.Dialer, func(), error) {
	var tlsConf *tls.Config
	if s.tls {
		if tlsConf = d.TLSConfig(); tlsConf == nil {
			tlsConf = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		tlsConf.ServerName = "" // each sentinel's own host
	}
	cl, err := sentinel.New(sentinel.Config{
		Addrs: s.addrs, MasterName: s.master, User: s.user, Password: s.password,
		TLS: tlsConf, Timeout: d.Timeout(), DialData: d.DialAddr,
	})
	if err != nil {
		return nil, func() {}, usageErrorf("%v", err)
	}
	r := &sentinelRoute{client: cl, dial: d.DialAddr, writes: !d.ReadOnly(), sentinels: len(s.addrs)}
	if s.replica {
		rep, err := cl.Replica(ctx)
		if err != nil {
			return nil, func() {}, fmt.Errorf("sentinel: %w", err)
		}
		r.replica = &rep
		s.route = r
		return d.WithRouter(r, rep.Addr), func() {}, nil
	}
	m, err := cl.Master(ctx)
	if err != nil {
		return nil, func() {}, fmt.Errorf("sentinel: %w", err)
	}
	r.watcher = sentinel.NewWatcher(cl, m)
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); r.watcher.Run(wctx) }()
	go func() { defer wg.Done(); r.collect(wctx) }()
	stop := sync.OnceFunc(func() { cancel(); wg.Wait() })
	s.route = r
	return d.WithRouter(r, m), stop, nil
}

// follower wraps the screen's polls so that every poll first checks the
// deployment; nil without --sentinel.
func (s *sentinelFlags) follower(poller tui.Poller) *sentinelFollower {
	if s.route == nil {
		return nil
	}
	return &sentinelFollower{route: s.route, poller: poller}
}

// sentinelRoute is where the target's connections go. It owns the current
// replica (with --replica) and the last failover seen; the watcher owns the
// current master.
type sentinelRoute struct {
	client    *sentinel.Client
	watcher   *sentinel.Watcher // nil with --replica
	dial      func(ctx context.Context, addr string) (redis.Conn, error)
	writes    bool
	sentinels int

	mu       sync.Mutex
	replica  *sentinel.Replica
	lag      *sentinel.Lag
	problem  string
	failover *tui.Failover
}

// collect notes each failover the watcher follows.
func (r *sentinelRoute) collect(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-r.watcher.Events():
			r.mu.Lock()
			r.failover = &tui.Failover{Old: ev.Old, New: ev.New, At: ev.At}
			r.mu.Unlock()
		}
	}
}

// DialRouted connects to the current replica, or to the current master;
// a connection that may write checks the master again before its first
// write (see masterConn).
func (r *sentinelRoute) DialRouted(ctx context.Context) (redis.Conn, error) {
	if r.watcher == nil {
		r.mu.Lock()
		addr := r.replica.Addr
		r.mu.Unlock()
		return r.dial(ctx, addr)
	}
	addr := r.watcher.Master()
	c, err := r.dial(ctx, addr)
	if err != nil || !r.writes {
		return c, err
	}
	return &masterConn{Conn: c, addr: addr, route: r}, nil
}

// errMasterMoved: a connection checked for writes is no longer to the
// master.
var errMasterMoved = errors.New("the master moved")

// writeCheck is run before every write a masterConn sends. The first write
// asks the sentinels (DialMasterForWrite) and moves the connection to the
// checked master's; every later one refuses once the watcher has followed a
// failover away from that master.
func (r *sentinelRoute) writeCheck(ctx context.Context, c *masterConn, cmd string) error {
	if !c.checked {
		if c.pending > 0 {
			return fmt.Errorf("%s: a write before the replies of a pipeline were read: %w", cmd, errMasterMoved)
		}
		conn, addr, err := r.client.DialMasterForWrite(ctx)
		if err != nil {
			return fmt.Errorf("check the master before writing: %w", err)
		}
		if addr != r.watcher.Master() {
			_, _, _ = r.watcher.Check(ctx) // the sentinels are ahead of the watcher
		}
		c.Conn.Close()
		c.Conn, c.addr, c.checked = conn, addr, true
		return nil
	}
	m := r.watcher.Master()
	if m != c.addr {
		m, _, _ = r.watcher.Check(ctx)
	}
	if m != c.addr {
		return fmt.Errorf("%s refused: the sentinels moved the master of %q from %s to %s during the write (%w); run it again", cmd, r.client.MasterName(), c.addr, m, errMasterMoved)
	}
	return nil
}

// masterConn is a connection to the master that may write: reads go to the
// master the watcher knows; before the first write it is checked and moved
// (writeCheck). Like any redis.Conn it is for one goroutine at a time.
type masterConn struct {
	redis.Conn
	addr    string
	route   *sentinelRoute
	checked bool
	pending int // replies of Send not yet received
}

func (c *masterConn) before(ctx context.Context, cmd string) error {
	if redisq.IsReadCommand(cmd) {
		return nil
	}
	return c.route.writeCheck(ctx, c, cmd)
}

func (c *masterConn) Do(cmd string, args ...any) (any, error) {
	if err := c.before(context.Background(), cmd); err != nil {
		return nil, err
	}
	c.pending = 0
	return c.Conn.Do(cmd, args...)
}

func (c *masterConn) Send(cmd string, args ...any) error {
	if err := c.before(context.Background(), cmd); err != nil {
		return err
	}
	c.pending++
	return c.Conn.Send(cmd, args...)
}

func (c *masterConn) Receive() (any, error) {
	c.pending = max(c.pending-1, 0)
	return c.Conn.Receive()
}

func (c *masterConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	if err := c.before(ctx, cmd); err != nil {
		return nil, err
	}
	c.pending = 0
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c *masterConn) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	if err := c.before(context.Background(), cmd); err != nil {
		return nil, err
	}
	c.pending = 0
	return redis.DoWithTimeout(c.Conn, d, cmd, args...)
}

func (c *masterConn) ReceiveContext(ctx context.Context) (any, error) {
	c.pending = max(c.pending-1, 0)
	return redis.ReceiveContext(c.Conn, ctx)
}

func (c *masterConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	c.pending = max(c.pending-1, 0)
	return redis.ReceiveWithTimeout(c.Conn, d)
}

// refresh runs before every poll of the screen. With --replica it reads the
// lag, and when that fails picks a replica again (this one may be gone or
// promoted, and reading a master would load it); the poll fails when the
// sentinels list no usable replica.
// Otherwise, while no sentinel announces failovers to the watcher, it asks
// them.
func (r *sentinelRoute) refresh(ctx context.Context) error {
	if r.watcher != nil {
		var problem string
		if r.watcher.Listening() == 0 {
			if _, _, err := r.watcher.Check(ctx); err != nil {
				problem = err.Error()
			}
		}
		r.mu.Lock()
		r.problem = problem
		r.mu.Unlock()
		return nil
	}
	r.mu.Lock()
	rep := *r.replica
	r.mu.Unlock()
	lag, err := r.client.Lag(ctx, rep)
	if err != nil {
		next, perr := r.client.Replica(ctx)
		if perr != nil {
			r.mu.Lock()
			r.lag, r.problem = nil, perr.Error()
			r.mu.Unlock()
			return fmt.Errorf("sentinel: %w", perr)
		}
		rep = next
		if lag, err = r.client.Lag(ctx, rep); err != nil {
			// The replica checked out (ROLE, link up): read it, the lag
			// unknown and why.
			r.mu.Lock()
			r.replica, r.lag, r.problem = &rep, nil, err.Error()
			r.mu.Unlock()
			return nil //nolint:nilerr // the replica is read; the lag's error shows beside it
		}
	}
	r.mu.Lock()
	r.replica, r.lag, r.problem = &rep, &lag, ""
	r.mu.Unlock()
	return nil
}

// following is the route's state for the screen.
func (r *sentinelRoute) following() tui.Following {
	f := tui.Following{MasterName: r.client.MasterName(), Sentinels: r.sentinels}
	if r.watcher != nil {
		f.Node, f.Listening = r.watcher.Master(), r.watcher.Listening()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f.Problem, f.Failover = r.problem, r.failover
	if r.replica != nil {
		f.Node, f.Replica = r.replica.Addr, true
	}
	if r.lag != nil {
		f.LagKnown, f.LagBytes, f.LagSeconds = true, r.lag.Bytes, r.lag.LastIOSeconds
	}
	return f
}

// sentinelFollower is the screen's regular poll behind Sentinel: each
// poll checks the deployment first (refresh), then reads the node the
// route names now.
type sentinelFollower struct {
	route  *sentinelRoute
	poller tui.Poller
}

// Poll is the cheap regular poll (redisq.Poller) on the node the route
// names now.
func (f *sentinelFollower) Poll(ctx context.Context, req redisq.PollRequest) (*model.Snapshot, error) {
	if err := f.route.refresh(ctx); err != nil {
		return nil, err
	}
	return f.poller.Poll(ctx, req)
}

func (f *sentinelFollower) Following() tui.Following { return f.route.following() }
