package sentinel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// Replica is a replica chosen for reading.
type Replica struct {
	Addr   string // host:port of the replica
	Master string // the master it replicates, as the sentinels name it
}

// Replica picks a replica the sentinels list for the master: one they do
// not flag as down or disconnected, whose link to the master is up, and
// whose ROLE says it is a replica of the master the sentinels name. Reads
// sent there put no load on the master. The error wraps ErrNoReplica and
// says why each candidate was passed over.
func (c *Client) Replica(ctx context.Context) (Replica, error) {
	var master string
	var listed []map[string]string
	err := c.each(ctx, func(ctx context.Context, conn redis.Conn, addr string) error {
		m, err := c.askMaster(ctx, conn, addr)
		if err != nil {
			return err
		}
		l, err := listReplicas(ctx, conn, c.cfg.MasterName)
		if err != nil {
			return fmt.Errorf("sentinel %s: %w", addr, err)
		}
		master, listed = m, l
		return nil
	})
	if err != nil {
		return Replica{}, err
	}
	var reasons []string
	for _, f := range listed {
		addr, err := joinHostPort(f["ip"], f["port"])
		if err != nil {
			reasons = append(reasons, "bad address: "+err.Error())
			continue
		}
		if flags := f["flags"]; strings.Contains(flags, "s_down") || strings.Contains(flags, "o_down") || strings.Contains(flags, "disconnected") {
			reasons = append(reasons, fmt.Sprintf("%s is flagged %q", addr, clip(flags)))
			continue
		}
		if s := f["master-link-status"]; s != "" && s != "ok" {
			reasons = append(reasons, fmt.Sprintf("%s has its link to the master %q", addr, clip(s)))
			continue
		}
		r, _, err := c.roleOf(ctx, addr, false)
		if err != nil {
			reasons = append(reasons, oneLine(err.Error()))
			continue
		}
		if r.Name != "slave" {
			reasons = append(reasons, fmt.Sprintf("%s has ROLE %s", addr, r.Name))
			continue
		}
		if r.MasterAddr != master {
			reasons = append(reasons, fmt.Sprintf("%s replicates %s, not the master %s", addr, r.MasterAddr, master))
			continue
		}
		return Replica{Addr: addr, Master: master}, nil
	}
	if len(listed) == 0 {
		return Replica{}, fmt.Errorf("%w: the sentinels list no replica of %q", ErrNoReplica, c.cfg.MasterName)
	}
	return Replica{}, fmt.Errorf("%w of %q: %s", ErrNoReplica, c.cfg.MasterName, strings.Join(reasons, "; "))
}

// listReplicas is SENTINEL replicas NAME, or SENTINEL slaves NAME on a
// sentinel older than Redis 5.
func listReplicas(ctx context.Context, conn redis.Conn, name string) ([]map[string]string, error) {
	v, err := redis.Values(redis.DoContext(conn, ctx, "SENTINEL", "replicas", name))
	var rerr redis.Error
	if errors.As(err, &rerr) && strings.Contains(strings.ToLower(string(rerr)), "unknown") {
		v, err = redis.Values(redis.DoContext(conn, ctx, "SENTINEL", "slaves", name))
	}
	if err != nil {
		return nil, fmt.Errorf("SENTINEL replicas: %w", err)
	}
	out := make([]map[string]string, 0, len(v))
	for _, item := range v {
		m, err := redis.StringMap(item, nil)
		if err != nil {
			return nil, fmt.Errorf("SENTINEL replicas: unexpected reply")
		}
		out = append(out, m)
	}
	return out, nil
}

// Lag is how far a replica is behind its master.
type Lag struct {
	Replica, Master string
	// MasterOffset is master_repl_offset from the master's INFO
	// replication; ReplicaOffset is slave_repl_offset from the replica's.
	MasterOffset, ReplicaOffset int64
	// Bytes is MasterOffset minus ReplicaOffset, never below 0. The replica
	// is read first, so a master that keeps writing makes it too high,
	// never too low.
	Bytes int64
	// LinkUp is master_link_status:up on the replica.
	LinkUp bool
	// LastIOSeconds is master_last_io_seconds_ago on the replica (-1 when
	// it does not say).
	LastIOSeconds int
}

// Lag reads INFO replication on the replica, then on its master, and
// compares the offsets. It sends nothing else to either.
func (c *Client) Lag(ctx context.Context, r Replica) (Lag, error) {
	rep, err := c.infoReplication(ctx, r.Addr)
	if err != nil {
		return Lag{}, fmt.Errorf("replica lag: %w", err)
	}
	if rep["role"] != "slave" {
		return Lag{}, fmt.Errorf("replica lag: %s is no longer a replica (role %s)", r.Addr, clip(rep["role"]))
	}
	mas, err := c.infoReplication(ctx, r.Master)
	if err != nil {
		return Lag{}, fmt.Errorf("replica lag: %w", err)
	}
	l := Lag{Replica: r.Addr, Master: r.Master, LinkUp: rep["master_link_status"] == "up", LastIOSeconds: -1}
	if l.ReplicaOffset, err = strconv.ParseInt(rep["slave_repl_offset"], 10, 64); err != nil {
		return Lag{}, fmt.Errorf("replica lag: %s gives no slave_repl_offset", r.Addr)
	}
	if l.MasterOffset, err = strconv.ParseInt(mas["master_repl_offset"], 10, 64); err != nil {
		return Lag{}, fmt.Errorf("replica lag: %s gives no master_repl_offset", r.Master)
	}
	if n, err := strconv.Atoi(rep["master_last_io_seconds_ago"]); err == nil {
		l.LastIOSeconds = n
	}
	if l.Bytes = l.MasterOffset - l.ReplicaOffset; l.Bytes < 0 {
		l.Bytes = 0
	}
	return l, nil
}

func (c *Client) infoReplication(ctx context.Context, addr string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	conn, err := c.cfg.DialData(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer conn.Close()
	s, err := redis.String(redis.DoContext(conn, ctx, "INFO", "replication"))
	if err != nil {
		return nil, fmt.Errorf("%s: INFO replication: %w", addr, err)
	}
	return infoFields(s), nil
}
