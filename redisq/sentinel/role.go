package sentinel

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gomodule/redigo/redis"
)

// Role is a data node's answer to ROLE.
type Role struct {
	// Name is "master", "slave" or "sentinel".
	Name string
	// Offset is the replication offset: the master's own, or what a
	// replica has processed.
	Offset int64
	// MasterAddr is a replica's master (host:port); empty for a master.
	MasterAddr string
	// State is a replica's link state ("connected", "connect", "sync", ...).
	State string
}

// readRole sends ROLE on conn.
func readRole(ctx context.Context, conn redis.Conn) (Role, error) {
	v, err := redis.Values(redis.DoContext(conn, ctx, "ROLE"))
	if err != nil {
		return Role{}, fmt.Errorf("ROLE: %w", err)
	}
	return parseRole(v)
}

// parseRole reads the reply of ROLE:
// master: ["master", offset, [[ip, port, offset], ...]];
// replica: ["slave", ip, port, state, offset]; sentinel: ["sentinel", [...]].
func parseRole(v []interface{}) (Role, error) {
	if len(v) == 0 {
		return Role{}, fmt.Errorf("ROLE: empty reply")
	}
	name, err := redis.String(v[0], nil)
	if err != nil {
		return Role{}, fmt.Errorf("ROLE: unexpected reply")
	}
	r := Role{Name: name}
	switch name {
	case "master":
		if len(v) >= 2 {
			r.Offset, _ = redis.Int64(v[1], nil)
		}
	case "slave":
		if len(v) < 5 {
			return Role{}, fmt.Errorf("ROLE: short replica reply")
		}
		host, _ := redis.String(v[1], nil)
		port, _ := redis.Int64(v[2], nil)
		hp, err := joinHostPort(host, strconv.FormatInt(port, 10))
		if err != nil {
			return Role{}, fmt.Errorf("ROLE: bad master address: %w", err)
		}
		r.MasterAddr = hp
		r.State, _ = redis.String(v[3], nil)
		r.Offset, _ = redis.Int64(v[4], nil)
	case "sentinel":
	default:
		return Role{}, fmt.Errorf("ROLE: unknown role %q", clip(name))
	}
	return r, nil
}

// roleOf dials a data node and reads its role. The connection is returned
// open when keep is set, so the caller can use the very connection that was
// checked.
func (c *Client) roleOf(ctx context.Context, addr string, keep bool) (Role, redis.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	conn, err := c.cfg.DialData(ctx, addr)
	if err != nil {
		return Role{}, nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	r, err := readRole(ctx, conn)
	if err != nil || !keep {
		conn.Close()
		conn = nil
	}
	if err != nil {
		return Role{}, nil, fmt.Errorf("%s: %w", addr, err)
	}
	return r, conn, nil
}

// infoFields reads the "key:value" lines of an INFO reply.
func infoFields(s string) map[string]string {
	out := make(map[string]string)
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out
}
