package sentinel

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Master asks the sentinels for the master (the first that answers) and
// checks with ROLE that the address is a master. When it is not (a failover
// under way, a sentinel that has not heard of it yet), the next sentinel is
// asked, and the whole round is repeated a few times before it gives up
// with an error wrapping ErrNotMaster.
func (c *Client) Master(ctx context.Context) (string, error) {
	const rounds = 3
	var lastErr error
	for round := 0; round < rounds; round++ {
		if round > 0 {
			if err := sleep(ctx, 300*time.Millisecond); err != nil {
				return "", fmt.Errorf("find master %q: %w", c.cfg.MasterName, err)
			}
		}
		var found string
		var reasons []string
		err := c.each(ctx, func(ctx context.Context, conn redis.Conn, addr string) error {
			m, err := c.askMaster(ctx, conn, addr)
			if err != nil {
				return err
			}
			r, _, err := c.roleOf(ctx, m, false)
			if err != nil {
				reasons = append(reasons, oneLine(err.Error()))
				return err
			}
			if r.Name != "master" {
				err := fmt.Errorf("sentinel %s names %s, whose ROLE is %s", addr, m, r.Name)
				reasons = append(reasons, err.Error())
				return err
			}
			found = m
			return nil
		})
		if err == nil {
			return found, nil
		}
		if len(reasons) == 0 {
			// No sentinel answered at all: asking again at once won't help.
			return "", err
		}
		lastErr = fmt.Errorf("%w: master %q: %s", ErrNotMaster, c.cfg.MasterName, strings.Join(reasons, "; "))
	}
	return "", lastErr
}

// DialMasterForWrite is the check before a write. It asks every sentinel at
// once; at least a majority of them must answer and all that answer must
// name the same address (sentinels that disagree mean a failover is under
// way). Then it connects to that address and checks with ROLE, on the very
// connection it returns, that the node is a master. Otherwise it refuses
// with an error wrapping ErrNotMaster (or ErrNoSentinel) and no connection.
//
// Between a replica's promotion and the moment the sentinels notice it
// (about a second), the sentinels still name the old master and the old
// master still says master. So it also reads INFO replication of every
// replica the sentinels list, and refuses while one of them says master and
// the named master was not promoted from it (see noPromotedReplica).
// The caller sends its writes on the returned connection and closes it.
func (c *Client) DialMasterForWrite(ctx context.Context) (redis.Conn, string, error) {
	addrs := c.Sentinels()
	type answer struct {
		sentinel, master string
		err              error
	}
	answers := make([]answer, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var m string
			err := c.one(ctx, addr, func(ctx context.Context, conn redis.Conn, addr string) error {
				var err error
				m, err = c.askMaster(ctx, conn, addr)
				return err
			})
			answers[i] = answer{sentinel: addr, master: m, err: err}
		}()
	}
	wg.Wait()
	named := map[string][]string{}
	var failed []string
	for _, a := range answers {
		if a.err != nil {
			failed = append(failed, oneLine(a.err.Error()))
			continue
		}
		named[a.master] = append(named[a.master], a.sentinel)
	}
	answered := len(addrs) - len(failed)
	if answered == 0 {
		return nil, "", fmt.Errorf("%w for master %q (%d asked): %s", ErrNoSentinel, c.cfg.MasterName, len(addrs), strings.Join(failed, "; "))
	}
	if answered <= len(addrs)/2 {
		return nil, "", fmt.Errorf("%w: refusing to write: only %d of %d sentinels answered for %q (%s)", ErrNotMaster, answered, len(addrs), c.cfg.MasterName, strings.Join(failed, "; "))
	}
	if len(named) > 1 {
		var parts []string
		for m, ss := range named {
			parts = append(parts, fmt.Sprintf("%s by %s", m, strings.Join(ss, ",")))
		}
		return nil, "", fmt.Errorf("%w: refusing to write: the sentinels disagree on the master of %q, a failover is under way (%s); try again in a few seconds", ErrNotMaster, c.cfg.MasterName, strings.Join(parts, "; "))
	}
	var master string
	for m := range named {
		master = m
	}
	if err := c.noPromotedReplica(ctx, master); err != nil {
		return nil, "", err
	}
	r, conn, err := c.roleOf(ctx, master, true)
	if err != nil {
		return nil, "", fmt.Errorf("%w: refusing to write: %s", ErrNotMaster, oneLine(err.Error()))
	}
	if r.Name != "master" {
		conn.Close()
		return nil, "", fmt.Errorf("%w: refusing to write: the sentinels name %s for %q but its ROLE is %s", ErrNotMaster, master, c.cfg.MasterName, r.Name)
	}
	return conn, master, nil
}

// supersedes reports whether a is a master promoted from b: a says master
// and its master_replid2 is b's master_replid. False when either does not
// answer.
func (c *Client) supersedes(ctx context.Context, a, b string) bool {
	ia, err := c.infoReplication(ctx, a)
	if err != nil || ia["role"] != "master" {
		return false
	}
	ib, err := c.infoReplication(ctx, b)
	if err != nil {
		return false
	}
	return promotedFrom(ia, ib)
}

// promotedFrom reports whether the node with INFO replication fields a
// took over the replication stream of the node with fields b.
func promotedFrom(a, b map[string]string) bool {
	id := b["master_replid"]
	return id != "" && strings.Trim(id, "0") != "" && a["master_replid2"] == id
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// noPromotedReplica refuses while a node the sentinels list as a replica
// of master says master itself, unless master is the newer of the two.
//
// A failover has two masters at once twice: right after the promotion,
// before the sentinels notice (master is then the old one), and for about
// 10 s after the switch, until the sentinels turn the old master into a
// replica (master is then the new one). The replication IDs tell them
// apart: a promoted replica keeps its old master's ID as master_replid2. So
// when master's master_replid2 is the other node's master_replid, master
// was promoted from it and takes the writes; any other case is refused.
func (c *Client) noPromotedReplica(ctx context.Context, master string) error {
	var listed []map[string]string
	err := c.each(ctx, func(ctx context.Context, conn redis.Conn, addr string) error {
		l, err := listReplicas(ctx, conn, c.cfg.MasterName)
		if err != nil {
			return fmt.Errorf("sentinel %s: %w", addr, err)
		}
		listed = l
		return nil
	})
	if err != nil {
		return fmt.Errorf("%w: refusing to write: %s", ErrNotMaster, oneLine(err.Error()))
	}
	var mine map[string]string
	for _, f := range listed {
		addr, err := joinHostPort(f["ip"], f["port"])
		if err != nil || addr == master {
			continue
		}
		other, err := c.infoReplication(ctx, addr)
		if err != nil || other["role"] != "master" {
			// A node that does not answer takes no writes either.
			continue
		}
		if mine == nil {
			if mine, err = c.infoReplication(ctx, master); err != nil {
				return fmt.Errorf("%w: refusing to write: %s", ErrNotMaster, oneLine(err.Error()))
			}
		}
		if promotedFrom(mine, other) {
			continue // the old master, not yet turned into a replica
		}
		return fmt.Errorf("%w: refusing to write: %s, listed as a replica of %q, says master too and %s was not promoted from it; a failover is under way, try again in a few seconds", ErrNotMaster, addr, c.cfg.MasterName, master)
	}
	return nil
}
