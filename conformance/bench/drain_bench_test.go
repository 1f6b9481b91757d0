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
// queued/matching-th) the query's; small is the size at which a raw
// removal of each match by its bytes still ends within the bench's time.
func (e *env) drainSizes() (queued, matching, smallQueued, smallMatching int) {
	if e.sz.smoke {
		return 20000, 2000, 10000, 1000
	}
	return 1000000, 100000, 100000, 10000
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

// drain measures 10a and 10b: `jobs queue JOB park --where` of the
// matching jobs of a flooded queue, as the built binary (plan, journal,
// audit), against raw walks of the queue with LRANGE.
//
// 10a is the raw way an operator would take them out by hand: one LREM of
// each match's bytes. Each LREM walks the list from its end to the job, so
// the whole is quadratic: 11 s at 100,000 queued, 62 s at 200,000, and at
// 1,000,000 it does not end within the bench's time; 10a is measured at
// the size where it still ends.
//
// 10b, at 1,000,000, is the floor of any removal: each match overwritten
// in place (LSET at its index) with a value found nowhere else, and one
// LREM takes them all out at the end. It deletes only, journals nothing,
// and a run stopped half-way leaves the overwritten values in the queue
// for workers to take, so it has no goal: it says how far the drain's
// safety (each call re-checks and removes its own jobs, parks them, and is
// journalled for undo) costs over it.
func (e *env) drain() {
	t := e.t
	c := e.dial()
	queued, matching, smallQueued, smallMatching := e.drainSizes()
	key := drainNS + ":jobs:mail"
	dir := t.TempDir()
	needle := []byte(`"bad":1,`)
	ours := func(matching int) func() error {
		return func() error {
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
	}
	// walk reads the queue a page at a time and hands each page's matching
	// jobs (their index and bytes) to take.
	walk := func(take func(idx []int, jobs [][]byte) error) error {
		n, err := redis.Int(c.Do("LLEN", key))
		if err != nil {
			return err
		}
		for start := 0; start < n; start += 1000 {
			page, err := redis.ByteSlices(c.Do("LRANGE", key, start, start+999))
			if err != nil {
				return err
			}
			var idx []int
			var jobs [][]byte
			for i, job := range page {
				if bytes.Contains(job, needle) {
					idx = append(idx, start+i)
					jobs = append(jobs, job)
				}
			}
			if err := take(idx, jobs); err != nil {
				return err
			}
		}
		return nil
	}
	check := func(removed, queued, matching int) error {
		if left, _ := redis.Int(c.Do("LLEN", key)); removed != matching || left != queued-matching {
			return fmt.Errorf("raw removed %d and left %d, want %d and %d", removed, left, matching, queued-matching)
		}
		return nil
	}
	// pipeline sends cmds at once and returns their replies.
	pipeline := func(cmds [][]any) ([]any, error) {
		for _, cmd := range cmds {
			if err := c.Send(cmd[0].(string), cmd[1:]...); err != nil {
				return nil, err
			}
		}
		if err := c.Flush(); err != nil {
			return nil, err
		}
		out := make([]any, len(cmds))
		for i := range cmds {
			r, err := c.Receive()
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	// The walk reads every page before removing, so that a removal does
	// not move the pages still to read.
	rawEach := func() error {
		var cmds [][]any
		if err := walk(func(_ []int, jobs [][]byte) error {
			for _, job := range jobs {
				cmds = append(cmds, []any{"LREM", key, -1, job})
			}
			return nil
		}); err != nil {
			return err
		}
		replies, err := pipeline(cmds)
		if err != nil {
			return err
		}
		removed := 0
		for _, r := range replies {
			n, err := redis.Int(r, nil)
			if err != nil {
				return err
			}
			removed += n
		}
		return check(removed, smallQueued, smallMatching)
	}
	tomb := fmt.Sprintf("workq-bench-removed-%d", time.Now().UnixNano())
	rawFloor := func() error {
		if err := walk(func(idx []int, _ [][]byte) error {
			cmds := make([][]any, len(idx))
			for i, at := range idx {
				cmds[i] = []any{"LSET", key, at, tomb}
			}
			_, err := pipeline(cmds)
			return err
		}); err != nil {
			return err
		}
		removed, err := redis.Int(c.Do("LREM", key, 0, tomb))
		if err != nil {
			return err
		}
		return check(removed, queued, matching)
	}

	loadFlood(e, c, smallQueued, smallQueued/smallMatching)
	tEach := timeIt(t, "raw LRANGE walk + LREM of each match", rawEach)
	loadFlood(e, c, smallQueued, smallQueued/smallMatching)
	tSmall := timeIt(t, "jobs queue park --where (small)", ours(smallMatching))
	e.tb.atMost("10a", fmt.Sprintf("`jobs queue JOB park --where` of %d matching jobs among %d queued / (raw LRANGE walk, LREM of each match)", smallMatching, smallQueued),
		float64(tSmall)/float64(tEach), 1.3,
		fmt.Sprintf("the whole command %s (process, walk, plan, journal, audit, parked into dead), baseline %s (deletes only; quadratic: it does not end at 10b's size)", ms(tSmall), ms(tEach)))

	loadFlood(e, c, queued, queued/matching)
	tFloor := timeIt(t, "raw LRANGE walk + LSET + LREM", rawFloor)
	loadFlood(e, c, queued, queued/matching)
	tOurs := timeIt(t, "jobs queue park --where", ours(matching))
	e.tb.info("10b", fmt.Sprintf("`jobs queue JOB park --where` of %d matching jobs among %d queued / (raw LRANGE walk, LSET of each match, one LREM)", matching, queued),
		float64(tOurs)/float64(tFloor),
		fmt.Sprintf("the whole command %s, floor %s (deletes only, no journal, not safe to stop: overwritten jobs stay queued)", ms(tOurs), ms(tFloor)))
	if _, err := c.Do("UNLINK", key, drainNS+":dead"); err != nil {
		t.Fatalf("clear the flood: %v", err)
	}
}
