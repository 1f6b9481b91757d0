package sets_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestEditedDeadJobRunsWithNewArgs: a unique job whose args make it fail
// dies in a real gocraft/work v0.5.1 pool; `jobs dead edit ID --requeue`
// gives it args that work, and the same pool runs it once with them. The
// unique key the requeue set is the one gocraft/work's worker rebuilds from
// the new args: the worker deletes it as it starts the job.
func TestEditedDeadJobRunsWithNewArgs(t *testing.T) {
	srv := redistest.Start(t)
	bin := redistest.Binary(t)
	c := srv.Dial()
	defer c.Close()
	const edns = "edit"
	rp := gcstate.RedisPool(t, srv.Addr())
	var mu sync.Mutex
	var ran []map[string]any
	wp := work.NewWorkerPool(ctxType{}, 2, edns, rp)
	wp.JobWithOptions("poison", work.JobOptions{MaxFails: 1}, func(j *work.Job) error {
		if !j.ArgBool("ok") {
			return j.ArgError()
		}
		mu.Lock()
		ran = append(ran, j.Args)
		mu.Unlock()
		return nil
	})
	wp.Start()
	defer wp.Stop()
	enq := work.NewEnqueuer(edns, rp)
	job, err := enq.EnqueueUnique("poison", work.Q{"ok": "no", "order": "o-1"})
	if err != nil || job == nil {
		t.Fatalf("enqueue: %v %v", job, err)
	}
	gcstate.WaitFor(t, 20*time.Second, "the job dead", func() (bool, error) {
		n, err := redis.Int(c.Do("ZCARD", edns+":dead"))
		return n == 1, err
	})

	args := filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(args, []byte("{\n  \"ok\": true,\n  \"order\": \"o-1\"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := redistest.Run(t, bin, nil, "--redis", srv.Addr(), "-n", edns, "jobs", "dead", "edit", job.ID, "--args", args, "--requeue", "--yes")
	if r.Code != 0 {
		t.Fatalf("edit: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "set for 24 h") {
		t.Errorf("the requeue did not set the new unique key:\n%s", r.Stdout)
	}
	gcstate.WaitFor(t, 20*time.Second, "the edited job run", func() (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(ran) == 1, nil
	})
	time.Sleep(500 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 1 || ran[0]["ok"] != true || ran[0]["order"] != "o-1" {
		t.Errorf("runs %v, want one with the edited args", ran)
	}
	if n, _ := redis.Int(c.Do("ZCARD", edns+":dead")); n != 0 {
		t.Errorf("dead holds %d after the run", n)
	}
	keys, _ := redis.Strings(c.Do("KEYS", edns+":unique:*"))
	if len(keys) != 0 {
		t.Errorf("unique keys left %q: the key the requeue set is not the one the worker deletes", keys)
	}
}
