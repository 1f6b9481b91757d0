// The Client: one namespace read through a connection source, with errors
// that name the Redis they came from; and the job peeks of the screen's
// pool detail.

package redisq

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/model"
)

// Client reads one gocraft/work namespace.
type Client struct {
	conns     Conns
	keys      Keys
	namespace string
	deadAfter time.Duration
	// where names the Redis in errors ("" when unknown); closer closes the
	// pool the client made.
	where  string
	closer func() error
}

// NewDialerClient returns a client that takes its connections from a pool of
// the dialer's (connections are made when first needed). Its errors name the
// address. Close it when done.
func NewDialerClient(d *Dialer, namespace string, deadAfter time.Duration) *Client {
	p := d.Pool()
	c := NewClient(p, namespace, deadAfter)
	c.where = d.Endpoint().String()
	c.closer = p.Close
	return c
}

// Close closes the connections the client made itself (NewDialerClient); it
// does nothing otherwise.
func (c *Client) Close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer()
}

// wrap makes sure an error names the Redis it came from.
func (c *Client) wrap(err error) error {
	// A network error that names the address as its remote end ("read tcp
	// A->ADDR: connection reset") does not say it is Redis's.
	if err == nil || c.where == "" || strings.Contains(err.Error(), "redis at "+c.where) {
		return err
	}
	return fmt.Errorf("redis at %s: %w", c.where, err)
}

// NewClient returns a client of a namespace; deadAfter is the cut-off of
// model.Classify (model.DefaultDeadAfter when not positive).
func NewClient(conns Conns, namespace string, deadAfter time.Duration) *Client {
	if deadAfter <= 0 {
		deadAfter = model.DefaultDeadAfter
	}
	return &Client{conns: conns, keys: NewKeys(namespace), namespace: namespace, deadAfter: deadAfter}
}

// Keys is the key schema of the client's namespace.
func (c *Client) Keys() Keys { return c.keys }

// Namespace is the namespace as given.
func (c *Client) Namespace() string { return c.namespace }

// DeadAfter is the cut-off the client classifies with.
func (c *Client) DeadAfter() time.Duration { return c.deadAfter }

// Snapshot reads the namespace (see ReadSnapshot) on a connection of its own.
func (c *Client) Snapshot(ctx context.Context) (*model.Snapshot, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	snap, err := ReadSnapshot(ctx, conn, c.namespace, c.deadAfter)
	return snap, c.wrap(err)
}

// ScanOrphans runs a whole orphan scan (see OrphanScan) on a connection of
// its own; count is the SCAN COUNT hint (DefaultScanCount when not positive)
// and progress, when not nil, is called after every SCAN call.
func (c *Client) ScanOrphans(ctx context.Context, count int, progress func(model.ScanProgress)) (OrphanResult, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return OrphanResult{}, c.wrap(err)
	}
	defer conn.Close()
	res, err := ScanOrphans(ctx, conn, c.keys, count, progress)
	return res, c.wrap(err)
}

// PeekInProgress reads the first n jobs of a pool's in-progress list (index 0
// is the job the pool took last) and parses them loosely.
func (c *Client) PeekInProgress(ctx context.Context, poolID, job string, n int) ([]model.Job, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	jobs, err := PeekList(ctx, conn, c.keys.InProgress(job, poolID), n)
	return jobs, c.wrap(err)
}

// PeekList reads the first n items of a list of jobs (LRANGE key 0 n-1) and
// parses each loosely: an item that is not a job keeps its raw text and a
// parse error.
func PeekList(ctx context.Context, conn redis.Conn, key string, n int) ([]model.Job, error) {
	if n <= 0 {
		return nil, nil
	}
	raws, err := redis.Strings(redis.DoContext(conn, ctx, "LRANGE", key, 0, n-1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	jobs := make([]model.Job, len(raws))
	for i, r := range raws {
		jobs[i] = model.ParseJob(r)
	}
	return jobs, nil
}

// RawPeeker gives the raw payloads of a pool's in-progress jobs, as the
// screen shows them (it parses and cleans them itself).
type RawPeeker struct{ Client *Client }

// PeekInProgress returns the raw text of the first n jobs of the list.
func (p RawPeeker) PeekInProgress(ctx context.Context, poolID, job string, n int) ([]string, error) {
	jobs, err := p.Client.PeekInProgress(ctx, poolID, job, n)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(jobs))
	for i, j := range jobs {
		out[i] = j.Raw
	}
	return out, nil
}
