package sets_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// The state every test starts from, made by real gocraft/work v0.5.1 in
// namespace "work", with no pool running once it is made:
//
//   - dead: failN jobs of "fail1" (MaxFails 1) and exactN of "exact"
//     (MaxFails 1, args with a 17-digit integer, [] and a slash);
//   - retry: failN jobs of "fail3" (MaxFails 3, backoff one hour), failed
//     once;
//   - scheduled: failN EnqueueIn jobs of "later", exactN more with exact
//     args, one EnqueueUniqueIn job of "later" (its unique key held), and
//     the periodic instances of "tick" (every 20 s) within 4 minutes.
const (
	failN  = 45
	exactN = 3
	ns     = "work"
)

type ctxType struct{}

var (
	uniqueArgs = work.Q{"user": "u-7", "note": "<b>"}
	exactArgs  = work.Q{"big": int64(12345678901234567), "list": []int{}, "url": "a/b"}
)

// buildState makes the state above and returns once the pool is stopped.
func buildState(t *testing.T, srv *redistest.Server) {
	t.Helper()
	rp := gcstate.RedisPool(t, srv.Addr())
	enq := work.NewEnqueuer(ns, rp)
	mustEnqueue := func(j *work.Job, err error) {
		t.Helper()
		if err != nil || j == nil {
			t.Fatalf("enqueue: %v", err)
		}
	}
	for i := 0; i < failN; i++ {
		mustEnqueue(enq.Enqueue("fail1", work.Q{"i": i, "s": "x/y"}))
		mustEnqueue(enq.Enqueue("fail3", work.Q{"i": i}))
		if _, err := enq.EnqueueIn("later", 3600+int64(i%7), work.Q{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < exactN; i++ {
		mustEnqueue(enq.Enqueue("exact", exactArgs))
		if _, err := enq.EnqueueIn("later", 7200, exactArgs); err != nil {
			t.Fatal(err)
		}
	}
	if j, err := enq.EnqueueUniqueIn("later", 5400, uniqueArgs); err != nil || j == nil {
		t.Fatalf("enqueue unique: %v %v", j, err)
	}
	fail := func(j *work.Job) error { return fmt.Errorf("boom %s after 3 tries", j.ID) }
	wp := work.NewWorkerPool(ctxType{}, 4, ns, rp)
	wp.JobWithOptions("fail1", work.JobOptions{MaxFails: 1}, fail)
	wp.JobWithOptions("exact", work.JobOptions{MaxFails: 1}, fail)
	wp.JobWithOptions("fail3", work.JobOptions{MaxFails: 3, Backoff: func(*work.Job) int64 { return 3600 }}, fail)
	wp.JobWithOptions("later", work.JobOptions{}, func(*work.Job) error { return nil })
	wp.JobWithOptions("tick", work.JobOptions{}, func(*work.Job) error { return nil })
	wp.PeriodicallyEnqueue("*/20 * * * * *", "tick")
	wp.Start()
	c := srv.Dial()
	gcstate.WaitFor(t, 30*time.Second, "failed jobs in dead and retry", func() (bool, error) {
		d, err := redis.Int(c.Do("ZCARD", ns+":dead"))
		if err != nil {
			return false, err
		}
		r, err := redis.Int(c.Do("ZCARD", ns+":retry"))
		return d == failN+exactN && r == failN, err
	})
	gcstate.WaitFor(t, 10*time.Second, "periodic jobs in scheduled", func() (bool, error) {
		n, err := redis.Int(c.Do("ZCOUNT", ns+":scheduled", "-inf", time.Now().Add(10*time.Minute).Unix()))
		return n >= 5, err
	})
	wp.Stop()
	// The jobs live in the sets; nothing is left queued or running.
	for _, name := range []string{"fail1", "fail3", "exact"} {
		if n, _ := redis.Int(c.Do("LLEN", ns+":jobs:"+name)); n != 0 {
			t.Fatalf("queue %s holds %d jobs after the pool stopped", name, n)
		}
	}
}

// copyNS copies every key of namespace from to namespace to, with
// DUMP/RESTORE (TTL kept), so two copies of one state can be compared.
func copyNS(t *testing.T, c redis.Conn, from, to string) {
	t.Helper()
	keys, err := redis.Strings(c.Do("KEYS", from+":*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		dump, err := redis.Bytes(c.Do("DUMP", k))
		if err != nil {
			t.Fatal(err)
		}
		ttl, err := redis.Int64(c.Do("PTTL", k))
		if err != nil {
			t.Fatal(err)
		}
		if ttl < 0 {
			ttl = 0
		}
		if _, err := c.Do("RESTORE", to+strings.TrimPrefix(k, from), ttl, dump, "REPLACE"); err != nil {
			t.Fatal(err)
		}
	}
}

// endState is a namespace's keys (prefix stripped) with their values; job
// JSON decoded and re-encoded (so key order and escapes do not count), t
// within [lo, hi] written as "now", zsets as member@score sorted, lists in
// order.
func endState(t *testing.T, c redis.Conn, prefix string, lo, hi int64) map[string]string {
	t.Helper()
	raw := redistest.Dump(t, c, prefix+":*")
	out := map[string]string{}
	for k, v := range raw {
		typ, val, _ := strings.Cut(v, ":")
		name := strings.TrimPrefix(k, prefix)
		if name == ":worker_pools" || strings.HasPrefix(name, ":worker_pools:") || name == ":last_periodic_enqueue" {
			continue
		}
		switch typ {
		case "list":
			items := strings.Split(val, "\n")
			for i, it := range items {
				items[i] = normJob(it, lo, hi)
			}
			val = strings.Join(items, "\n")
		case "zset":
			items := strings.Split(val, "\n")
			for i, it := range items {
				at := strings.LastIndexByte(it, '@')
				items[i] = normJob(it[:at], lo, hi) + it[at:]
			}
			sort.Strings(items)
			val = strings.Join(items, "\n")
		}
		out[name] = typ + ":" + val
	}
	return out
}

func normJob(s string, lo, hi int64) string {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return s
	}
	if tv, ok := m["t"].(float64); ok && int64(tv) >= lo && int64(tv) <= hi {
		m["t"] = "now"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func diffStates(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, fmt.Sprintf("%s:\n  upstream %q\n  ours     %q", k, v, b[k]))
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("%s: only ours: %q", k, v))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

var errNoMember = errors.New("no such member")

// member finds one member of a set by job name (and a predicate).
func member(t *testing.T, c redis.Conn, key string, pick func(j map[string]any) bool) (raw string, score int64, id string) {
	t.Helper()
	v, err := redis.Strings(c.Do("ZRANGE", key, 0, -1, "WITHSCORES"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(v); i += 2 {
		var m map[string]any
		if json.Unmarshal([]byte(v[i]), &m) != nil || !pick(m) {
			continue
		}
		if _, err := fmt.Sscan(v[i+1], &score); err != nil {
			t.Fatal(err)
		}
		return v[i], score, m["id"].(string)
	}
	t.Fatalf("%s: %v", key, errNoMember)
	return "", 0, ""
}

func named(name string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["name"] == name }
}
