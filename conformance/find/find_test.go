// Package find_test checks against the real gocraft/work v0.5.1 that
// `workq-tui find` reports the right place for a job in every place the
// library keeps one, and exits 4 for an id that is nowhere. It has a
// directory of its own because it needs its own TestMain (gcstate's
// killed-pool child).
package find_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestMain(m *testing.M) {
	gcstate.MaybeRunChild()
	os.Exit(redistest.Main(m))
}

type ctxType struct{}

// place is what find --json prints of one place.
type place struct {
	Place      string `json:"place"`
	Key        string `json:"key"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	Position   int64  `json:"position"`
	At         int64  `json:"at"`
	ScoreField string `json:"score_field"`
	Pool       string `json:"pool"`
	PoolStatus string `json:"pool_status"`
	Worker     string `json:"worker"`
	StartedAt  int64  `json:"started_at"`
	TTL        int64  `json:"ttl"`
}

const ns = "fq"

// One job in each place, made by gocraft/work itself: a queue (a type no
// pool serves, behind two others), a live pool's in-progress list and its
// busy worker (a handler that blocks), a killed pool's in-progress list
// and the observation its worker left (the pool dead by its heartbeat), retry (a failure with an hour's backoff),
// scheduled (EnqueueIn), dead (MaxFails 1), a unique key (EnqueueUnique of
// an unserved type: the key and the queued job). find by id reports each
// where it is, and only there; an id that is nowhere exits 4.
func TestFindReportsEveryPlace(t *testing.T) {
	srv := redistest.Start(t)
	bin := redistest.Binary(t)
	c := srv.Dial()
	rp := gcstate.RedisPool(t, srv.Addr())
	enq := work.NewEnqueuer(ns, rp)

	// A queue: FIFO, so the two jobs enqueued before it run first.
	var queued *work.Job
	for i := 0; i < 3; i++ {
		j, err := enq.Enqueue("idle", work.Q{"i": i})
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			queued = j
		}
	}
	// A unique job of an unserved type: in its queue, and its key blocks a
	// new enqueue.
	uniq, err := enq.EnqueueUnique("report", work.Q{"account": "acc_7"})
	if err != nil || uniq == nil {
		t.Fatalf("EnqueueUnique: %v %v", uniq, err)
	}
	// Scheduled in an hour.
	sched, err := enq.EnqueueIn("later", 3600, work.Q{"x": 1})
	if err != nil {
		t.Fatal(err)
	}

	// A live pool: one job blocks in its handler (in progress, busy
	// worker); one fails with an hour's backoff (retry); one dies at its
	// first failure (dead).
	release := make(chan struct{})
	started := make(chan string, 1)
	wp := work.NewWorkerPool(ctxType{}, 3, ns, rp)
	wp.Job("block", func(j *work.Job) error {
		started <- j.ID
		<-release
		return nil
	})
	wp.JobWithOptions("flaky", work.JobOptions{MaxFails: 5, Backoff: func(*work.Job) int64 { return 3600 }}, func(*work.Job) error {
		return errors.New("gateway timeout")
	})
	wp.JobWithOptions("doomed", work.JobOptions{MaxFails: 1}, func(*work.Job) error {
		return errors.New("card declined")
	})
	wp.Start()
	defer func() {
		close(release) // Stop waits for the blocked handler
		wp.Stop()
	}()
	running, err := enq.Enqueue("block", work.Q{"order": "ord_1"})
	if err != nil {
		t.Fatal(err)
	}
	retried, err := enq.Enqueue("flaky", work.Q{"order": "ord_2"})
	if err != nil {
		t.Fatal(err)
	}
	died, err := enq.Enqueue("doomed", work.Q{"order": "ord_3"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the blocking job never started")
	}
	gcstate.WaitFor(t, 20*time.Second, "a retry, a dead job and the busy worker's observation", func() (bool, error) {
		r, err := redis.Int(c.Do("ZCARD", ns+":retry"))
		if err != nil {
			return false, err
		}
		d, err := redis.Int(c.Do("ZCARD", ns+":dead"))
		if err != nil {
			return false, err
		}
		keys, err := redis.Strings(c.Do("KEYS", ns+":worker:*"))
		busy := false
		for _, k := range keys {
			id, _ := redis.String(c.Do("HGET", k, "job_id"))
			busy = busy || id == running.ID
		}
		return r == 1 && d == 1 && busy, err
	})

	// A pool killed with a job in progress, dead by its heartbeat.
	killed := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns,
		Jobs: []gcstate.JobType{{Name: "orphaned", Enqueue: 1}}, Concurrency: 1})
	orphan, err := redis.Strings(c.Do("LRANGE", fmt.Sprintf("%s:jobs:orphaned:%s:inprogress", ns, killed.ID), 0, -1))
	if err != nil || len(orphan) != 1 {
		t.Fatalf("killed pool's in-progress list: %v %v", orphan, err)
	}
	var orphanJob struct{ ID string }
	if err := json.Unmarshal([]byte(orphan[0]), &orphanJob); err != nil {
		t.Fatal(err)
	}
	gcstate.WaitFor(t, 30*time.Second, "the killed pool dead by its heartbeat", func() (bool, error) {
		return time.Now().After(killed.DeadAt(10 * time.Second).Add(time.Second)), nil
	})

	find := func(args ...string) ([]place, int) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--redis", srv.Addr(), "--namespace", ns, "find", "--json"}, args...)...)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var ps []place
		if err := json.Unmarshal(out.Bytes(), &ps); err != nil {
			t.Fatalf("find %v: %v\n%s\n%s", args, err, out.String(), stderr.String())
		}
		return ps, code
	}
	kinds := func(ps []place) string {
		var k []string
		for _, p := range ps {
			k = append(k, p.Place)
		}
		sort.Strings(k)
		return strings.Join(k, ",")
	}
	now := time.Now().Unix()
	live := func() string {
		ids, _ := redis.Strings(c.Do("SMEMBERS", ns+":worker_pools"))
		for _, id := range ids {
			if id != killed.ID {
				return id
			}
		}
		return ""
	}()

	for _, tc := range []struct {
		what, id, want string
		check          func(ps []place) error
	}{
		{"a queued job", queued.ID, "queues", func(ps []place) error {
			if ps[0].Key != ns+":jobs:idle" || ps[0].Position != 2 {
				return fmt.Errorf("want %s:jobs:idle with 2 before it", ns)
			}
			return nil
		}},
		{"a unique job", uniq.ID, "queues,unique", func(ps []place) error {
			for _, p := range ps {
				if p.Place == "unique" && (p.Key != ns+":unique:report:{\"account\":\"acc_7\"}\n" || p.TTL <= 0 || p.TTL > 86400) {
					return fmt.Errorf("unique key %q, TTL %d", p.Key, p.TTL)
				}
			}
			return nil
		}},
		{"a scheduled job", sched.ID, "scheduled", func(ps []place) error {
			if d := ps[0].At - (now + 3600); d < -60 || d > 60 || ps[0].ScoreField != "run_at" {
				return fmt.Errorf("at %d (%s), want about %d", ps[0].At, ps[0].ScoreField, now+3600)
			}
			return nil
		}},
		{"a running job", running.ID, "in-progress,workers", func(ps []place) error {
			for _, p := range ps {
				if p.Pool != live || p.PoolStatus != "alive" {
					return fmt.Errorf("%s: pool %s (%s), want %s alive", p.Place, p.Pool, p.PoolStatus, live)
				}
				if p.Place == "in-progress" && p.Key != fmt.Sprintf("%s:jobs:block:%s:inprogress", ns, live) {
					return fmt.Errorf("in-progress key %s", p.Key)
				}
				if p.Place == "workers" && (p.Worker == "" || p.StartedAt < now-60 || p.StartedAt > now) {
					return fmt.Errorf("worker %q started %d", p.Worker, p.StartedAt)
				}
			}
			return nil
		}},
		// A worker killed mid-job leaves its observation (24 h TTL): the
		// job shows there too, with its pool dead.
		{"a job in a dead pool's list", orphanJob.ID, "in-progress,workers", func(ps []place) error {
			for _, p := range ps {
				if p.Pool != killed.ID || p.PoolStatus != "dead" {
					return fmt.Errorf("%s: pool %s (%s), want %s dead", p.Place, p.Pool, p.PoolStatus, killed.ID)
				}
			}
			return nil
		}},
		{"a job waiting to retry", retried.ID, "retry", func(ps []place) error {
			if d := ps[0].At - (now + 3600); d < -60 || d > 60 || ps[0].ScoreField != "retry_at" {
				return fmt.Errorf("at %d (%s), want about %d", ps[0].At, ps[0].ScoreField, now+3600)
			}
			return nil
		}},
		{"a dead job", died.ID, "dead", func(ps []place) error {
			if ps[0].At < now-60 || ps[0].At > now || ps[0].ScoreField != "died_at" {
				return fmt.Errorf("at %d (%s), want about %d", ps[0].At, ps[0].ScoreField, now)
			}
			return nil
		}},
	} {
		ps, code := find(tc.id)
		if code != 0 || kinds(ps) != tc.want {
			t.Errorf("%s: exit %d, places %q, want %q: %+v", tc.what, code, kinds(ps), tc.want, ps)
			continue
		}
		for _, p := range ps {
			if p.ID != tc.id {
				t.Errorf("%s: place %+v names another id", tc.what, p)
			}
		}
		if err := tc.check(ps); err != nil {
			t.Errorf("%s: %v: %+v", tc.what, err, ps)
		}
	}
	// Several ids at once: each place of each.
	if ps, code := find(queued.ID, died.ID); code != 0 || kinds(ps) != "dead,queues" {
		t.Errorf("two ids: exit %d, places %q", code, kinds(ps))
	}
	// An id that is nowhere: no place, exit 4.
	if ps, code := find("000000000000000000000000"); code != 4 || len(ps) != 0 {
		t.Errorf("an id nowhere: exit %d, places %+v; want 4 and none", code, ps)
	}
}
