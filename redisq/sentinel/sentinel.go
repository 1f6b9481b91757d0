// Package sentinel finds a Redis master and its replicas through Redis
// Sentinel and follows a failover: it asks the sentinels (the first that
// answers), checks with ROLE that the address it got really has that role,
// and re-asks right before a write. It speaks the small part of the Sentinel
// protocol it needs on redigo and knows nothing of gocraft/work.
package sentinel

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Errors callers tell apart with errors.Is.
var (
	// ErrNoSentinel: no sentinel answered.
	ErrNoSentinel = errors.New("no sentinel answered")
	// ErrNotMaster: the address the sentinels named is not a master, or the
	// sentinels do not agree on one right now.
	ErrNotMaster = errors.New("not the master")
	// ErrNoReplica: no replica the sentinels list is usable.
	ErrNoReplica = errors.New("no usable replica")
)

// Config says how to reach the sentinels and the data nodes. Password is
// never printed.
type Config struct {
	// Addrs are the sentinels, host:port each.
	Addrs []string
	// MasterName is the name the sentinels monitor the master under.
	MasterName string
	// User and Password authenticate to the sentinels (AUTH); both empty
	// for none, User empty for the default user.
	User, Password string
	// TLS, when set, is used for every connection to a sentinel. Its
	// ServerName is filled from each sentinel's host when empty.
	TLS *tls.Config
	// Timeout bounds each call to a sentinel or a data node; 5 s when 0.
	Timeout time.Duration
	// DialData connects to a data node (master or replica) at host:port
	// with the data connection's auth and TLS. Required.
	DialData func(ctx context.Context, addr string) (redis.Conn, error)
}

// Client asks the sentinels. It is safe for concurrent use.
type Client struct {
	cfg Config

	mu    sync.Mutex
	order []string // sentinels, the last one that answered first
}

// New validates the configuration without connecting.
func New(cfg Config) (*Client, error) {
	if len(cfg.Addrs) == 0 {
		return nil, errors.New("no sentinel address: give at least one host:port")
	}
	seen := make(map[string]bool, len(cfg.Addrs))
	var order []string
	for _, a := range cfg.Addrs {
		a = strings.TrimSpace(a)
		hp, err := normalizeAddr(a)
		if err != nil {
			return nil, fmt.Errorf("invalid sentinel address: %w", err)
		}
		if !seen[hp] {
			seen[hp] = true
			order = append(order, hp)
		}
	}
	if err := validName(cfg.MasterName); err != nil {
		return nil, err
	}
	if cfg.DialData == nil {
		return nil, errors.New("sentinel: no dial function for the data nodes")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.Password == "" && cfg.User != "" {
		return nil, errors.New("sentinel user given without a sentinel password")
	}
	return &Client{cfg: cfg, order: order}, nil
}

// MasterName is the monitored name.
func (c *Client) MasterName() string { return c.cfg.MasterName }

// Sentinels are the sentinel addresses, the last one that answered first.
func (c *Client) Sentinels() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.order...)
}

func validName(name string) error {
	if name == "" {
		return errors.New("no sentinel master name: give the name the sentinels monitor")
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f {
			return errors.New("invalid sentinel master name: it holds a space or a control character")
		}
	}
	return nil
}

// normalizeAddr checks host:port and returns it joined again.
func normalizeAddr(a string) (string, error) {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return "", fmt.Errorf("%q: want host:port", a)
	}
	return joinHostPort(host, port)
}

// joinHostPort checks a host and a port, as read from a flag or from a
// sentinel's reply, and joins them. Anything but a plain host name or IP and
// a port number is refused, so nothing odd reaches a dial or a screen.
func joinHostPort(host, port string) (string, error) {
	p, err := strconv.Atoi(port)
	if err != nil || p <= 0 || p > 65535 {
		return "", fmt.Errorf("port %q: want a number from 1 to 65535", clip(port))
	}
	if host == "" {
		return "", errors.New("empty host")
	}
	if net.ParseIP(host) == nil {
		for _, r := range host {
			ok := r == '.' || r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
			if !ok || len(host) > 253 {
				return "", fmt.Errorf("host %q: not a host name or IP address", clip(host))
			}
		}
	}
	return net.JoinHostPort(host, port), nil
}

// clip shortens and quotes-safe a bad value for an error message; %q then
// escapes any control character.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// dialSentinel connects to one sentinel with the sentinel auth and TLS.
func (c *Client) dialSentinel(ctx context.Context, addr string, readTimeout time.Duration) (redis.Conn, error) {
	opts := []redis.DialOption{
		redis.DialConnectTimeout(c.cfg.Timeout),
		redis.DialReadTimeout(readTimeout),
		redis.DialWriteTimeout(c.cfg.Timeout),
	}
	if c.cfg.Password != "" {
		opts = append(opts, redis.DialPassword(c.cfg.Password))
		if c.cfg.User != "" {
			opts = append(opts, redis.DialUsername(c.cfg.User))
		}
	}
	if c.cfg.TLS != nil {
		conf := c.cfg.TLS.Clone()
		if conf.ServerName == "" {
			conf.ServerName, _, _ = net.SplitHostPort(addr)
		}
		opts = append(opts, redis.DialUseTLS(true), redis.DialTLSConfig(conf))
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	conn, err := redis.DialContext(ctx, "tcp", addr, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to sentinel %s: %w", addr, err)
	}
	return conn, nil
}

// each asks the sentinels in order until fn succeeds on one; that sentinel
// goes first for the next call. When none does, the error says what each
// one answered, on one line, and wraps ErrNoSentinel.
func (c *Client) each(ctx context.Context, fn func(ctx context.Context, conn redis.Conn, addr string) error) error {
	addrs := c.Sentinels()
	var reasons []string
	for _, addr := range addrs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ask sentinels for %q: %w", c.cfg.MasterName, err)
		}
		err := c.one(ctx, addr, fn)
		if err == nil {
			c.toFront(addr)
			return nil
		}
		reasons = append(reasons, oneLine(err.Error()))
	}
	return fmt.Errorf("%w for master %q (%d asked): %s", ErrNoSentinel, c.cfg.MasterName, len(addrs), strings.Join(reasons, "; "))
}

func (c *Client) one(ctx context.Context, addr string, fn func(ctx context.Context, conn redis.Conn, addr string) error) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	conn, err := c.dialSentinel(ctx, addr, c.cfg.Timeout)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(ctx, conn, addr)
}

func (c *Client) toFront(addr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, a := range c.order {
		if a == addr {
			copy(c.order[1:i+1], c.order[:i])
			c.order[0] = addr
			return
		}
	}
}

// askMaster is SENTINEL get-master-addr-by-name on one sentinel.
func (c *Client) askMaster(ctx context.Context, conn redis.Conn, addr string) (string, error) {
	v, err := redis.Values(redis.DoContext(conn, ctx, "SENTINEL", "get-master-addr-by-name", c.cfg.MasterName))
	if errors.Is(err, redis.ErrNil) {
		return "", fmt.Errorf("sentinel %s does not monitor a master named %q", addr, c.cfg.MasterName)
	}
	if err != nil {
		return "", fmt.Errorf("sentinel %s: %w", addr, err)
	}
	parts, err := redis.Strings(v, nil)
	if err != nil || len(parts) != 2 {
		return "", fmt.Errorf("sentinel %s: unexpected reply to get-master-addr-by-name", addr)
	}
	hp, err := joinHostPort(parts[0], parts[1])
	if err != nil {
		return "", fmt.Errorf("sentinel %s named a bad master address: %w", addr, err)
	}
	return hp, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
