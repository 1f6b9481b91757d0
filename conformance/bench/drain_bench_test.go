package bench_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/gomodule/redigo/redis"
)

// drainSizes: a flooded queue of queued jobs, matching of them (every
// queued/matching-th) the query's.
func (e *env) drainSizes() (queued, matching int) {
	if e.sz.smoke {
		return 20000, 2000
	}
	return 1000000, 100000
}

const drainNS = "flood"

// loadFlood fills <drainNS>:jobs:mail with queued jobs as gocraft/work
// enqueues them (LPUSH), every every-th with args.bad 1, and empties the
// dead set.
func loadFlood(e *env, c redis.Conn, queued, every int) {
	b := &bulk{t: e.t, c: c}
	b.send("UNLINK", drainNS+":jobs:mail", drainNS+":dead")
	args := []any{drainNS + ":jobs:mail"}
	for i := 0; i < queued; i++ {
		bad := 0
		if i%every == every/2 {
			bad = 1
		}
		args = append(args, fmt.Sprintf(`{"name":"mail","id":"%024x","t":1700000000,"args":{"bad":%d,"order_id":"ord_%d","amount":%d}}`, i, bad, i, 100+i%900))
		if len(args) > 1000 {
			b.send("LPUSH", args...)
			args = args[:1]
		}
	}
	if len(args) > 1 {
		b.send("LPUSH", args...)
	}
	b.flush()
}

// drain measures 10a: `jobs queue JOB park --where` of the matching jobs of
// a flooded queue, as the built binary (plan, journal, audit), against a
// raw walk of the queue with LRANGE that overwrites each matching job and
// removes them with one LREM.
func (e *env) drain() {
	t := e.t
	c := e.dial()
	queued, matching := e.drainSizes()
	every := queued / matching
	key := drainNS + ":jobs:mail"
	dir := t.TempDir()
	ours := func() error {
		cmd := exec.Command(e.bin, "--redis", e.srv.Addr(), "--namespace", drainNS, "--audit-log", filepath.Join(dir, "audit.log"),
			"jobs", "queue", "mail", "park", "--where", "args.bad:1", "--yes")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%w: %s", err, stderr.String())
		}
		if n, _ := redis.Int(c.Do("ZCARD", drainNS+":dead")); n != matching {
			return fmt.Errorf("parked %d, want %d", n, matching)
		}
		return nil
	}
	// The raw floor walks the queue with LRANGE and removes exactly the
	// matching jobs: each is overwritten in place (LSET at its index, one
	// pipeline a page) with a value found nowhere else, and one LREM
	// takes them all out at the end. One LREM of each job's bytes instead
	// rescans the list from its end for every match: 11 s at 100,000
	// queued, 62 s at 200,000, never done at 1,000,000 within the bench's
	// time.
	tomb := fmt.Sprintf("workq-bench-removed-%d", time.Now().UnixNano())
	raw := func() error {
		needle := []byte(`"bad":1,`)
		n, err := redis.Int(c.Do("LLEN", key))
		if err != nil {
			return err
		}
		for start := 0; start < n; start += 1000 {
			page, err := redis.ByteSlices(c.Do("LRANGE", key, start, start+999))
			if err != nil {
				return err
			}
			sent := 0
			for i, job := range page {
				if bytes.Contains(job, needle) {
					if err := c.Send("LSET", key, start+i, tomb); err != nil {
						return err
					}
					sent++
				}
			}
			if err := c.Flush(); err != nil {
				return err
			}
			for ; sent > 0; sent-- {
				if _, err := c.Receive(); err != nil {
					return err
				}
			}
		}
		removed, err := redis.Int(c.Do("LREM", key, 0, tomb))
		if err != nil {
			return err
		}
		if left, _ := redis.Int(c.Do("LLEN", key)); removed != matching || left != queued-matching {
			return fmt.Errorf("raw removed %d and left %d, want %d and %d", removed, left, matching, queued-matching)
		}
		return nil
	}
	var tOurs, tRaw time.Duration
	loadFlood(e, c, queued, every)
	tRaw = timeIt(t, "raw LRANGE walk + LSET + LREM", raw)
	loadFlood(e, c, queued, every)
	tOurs = timeIt(t, "jobs queue park --where", ours)
	e.tb.atMost("10a", fmt.Sprintf("`jobs queue JOB park --where` of %d matching jobs among %d queued / (raw LRANGE walk, LSET of each match, one LREM)", matching, queued),
		float64(tOurs)/float64(tRaw), 1.3,
		fmt.Sprintf("the whole command %s (process, walk, plan, journal, audit, parked into dead), baseline %s (deletes only)", ms(tOurs), ms(tRaw)))
	if _, err := c.Do("UNLINK", key, drainNS+":dead"); err != nil {
		t.Fatalf("clear the flood: %v", err)
	}
}
