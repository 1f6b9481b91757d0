package variants_test

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/conformance/variants"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestMain(m *testing.M) {
	os.Exit(redistest.Main(m))
}

// The recordings: gocraft/work master and gojek/work v0.7.8 wrote the same
// keys and bytes for the same calls.
var builds = []string{"master", "gojek"}

// cliIn returns a runner of the built workq-tui whose journals and audit
// log go to a directory of the test's own.
func cliIn(t *testing.T) func(args ...string) (string, string, int) {
	t.Helper()
	bin := redistest.Binary(t)
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	return func(args ...string) (string, string, int) {
		t.Helper()
		r := redistest.Run(t, bin, env, args...)
		return r.Stdout, r.Stderr, r.Code
	}
}

// ran records the arguments of every job a v0.5.1 pool's handler ran.
type ran struct {
	mu   sync.Mutex
	args []string
}

func (r *ran) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.args...)
}

type ctxType struct{}

// startV051 starts a gocraft/work v0.5.1 pool of one worker for
// sync_account with MaxConcurrency 1, as the recorded pool registered it.
func startV051(t *testing.T, addr, ns string) *ran {
	t.Helper()
	r := &ran{}
	rp := gcstate.RedisPool(t, addr)
	wp := work.NewWorkerPool(ctxType{}, 1, ns, rp)
	wp.JobWithOptions("sync_account", work.JobOptions{MaxConcurrency: 1}, func(j *work.Job) error {
		b, _ := json.Marshal(j.Args)
		r.mu.Lock()
		r.args = append(r.args, string(b))
		r.mu.Unlock()
		return nil
	})
	wp.Start()
	t.Cleanup(wp.Stop)
	return r
}

func str(t *testing.T, c redis.Conn, cmd string, args ...any) string {
	t.Helper()
	v, err := redis.String(c.Do(cmd, args...))
	if err != nil && !errors.Is(err, redis.ErrNil) {
		t.Fatalf("%s %v: %v", cmd, args, err)
	}
	return v
}

// TestRecordedLeak checks the recordings hold what the upstream lines say:
// the stand-in of the first enqueue in the pool's in-progress list, with
// lock and lock_info back at 0.
func TestRecordedLeak(t *testing.T) {
	for _, b := range builds {
		t.Run(b, func(t *testing.T) {
			s := variants.Read(t, b+"-live.json")
			pool := s.PoolID(t)
			list := s.Key(t, "jobs:sync_account:"+pool+":inprogress").List
			if len(list) != 1 || !strings.Contains(string(list[0]), `"rev":1`) || !strings.Contains(string(list[0]), `"unique_key"`) {
				t.Fatalf("in-progress list %q, want the rev 1 stand-in", list)
			}
			if v := string(s.Key(t, "jobs:sync_account:lock").String); v != "0" {
				t.Errorf("lock %s, want 0", v)
			}
			if v := string(s.Key(t, "jobs:sync_account:lock_info").Hash[pool]); v != "0" {
				t.Errorf("lock_info[pool] %s, want 0", v)
			}
		})
	}
}

// TestSnapshotLeakedNotDrift: the leaked stand-in is a finding of its
// own, and the job type does not drift.
func TestSnapshotLeakedNotDrift(t *testing.T) {
	for _, b := range builds {
		t.Run(b, func(t *testing.T) {
			runCLI := cliIn(t) // built before the pool's heartbeat is set
			srv := redistest.Start(t)
			c := srv.Dial()
			defer c.Close()
			s := variants.Read(t, b+"-live.json")
			variants.Load(t, c, s, true)
			out, stderr, _ := runCLI("--redis", srv.Addr(), "-n", s.Namespace, "snapshot", "--json")
			var snap struct {
				JobTypes []struct {
					Name   string `json:"name"`
					Drift  bool   `json:"drift"`
					Leaked int64  `json:"leaked"`
				} `json:"job_types"`
				Findings []struct {
					Kind    string `json:"kind"`
					Subject string `json:"subject"`
				} `json:"findings"`
			}
			if err := json.Unmarshal([]byte(out), &snap); err != nil {
				t.Fatalf("snapshot --json: %v\n%s\n%s", err, out, stderr)
			}
			if len(snap.JobTypes) != 1 || snap.JobTypes[0].Drift || snap.JobTypes[0].Leaked != 1 {
				t.Errorf("job types %+v, want sync_account without drift, 1 leaked", snap.JobTypes)
			}
			kinds := map[string]bool{}
			for _, f := range snap.Findings {
				kinds[f.Kind] = true
			}
			if !kinds["leaked_in_progress"] || kinds["drift"] {
				t.Errorf("findings %+v, want leaked_in_progress and no drift", snap.Findings)
			}
		})
	}
}

// TestRepairLocksLeavesTypeRunnable: repair-locks on a type whose only
// in-progress entry is leaked, at max_concurrency 1, does not raise lock;
// a v0.5.1 pool then runs the next job.
func TestRepairLocksLeavesTypeRunnable(t *testing.T) {
	for _, b := range builds {
		t.Run(b, func(t *testing.T) {
			runCLI := cliIn(t) // built before the pool's heartbeat is set
			srv := redistest.Start(t)
			c := srv.Dial()
			defer c.Close()
			s := variants.Read(t, b+"-live.json")
			variants.Load(t, c, s, true)
			out, stderr, code := runCLI("--redis", srv.Addr(), "-n", s.Namespace, "repair-locks", "sync_account", "--yes")
			if code != 0 {
				t.Fatalf("repair-locks: exit %d\n%s\n%s", code, out, stderr)
			}
			if !strings.Contains(out, "not counted: 1 entry") {
				t.Errorf("plan does not say the leaked entry is not counted:\n%s", out)
			}
			if v := str(t, c, "GET", s.Namespace+":jobs:sync_account:lock"); v != "0" {
				t.Fatalf("lock %s after repair-locks, want 0 (the leaked entry holds no slot)", v)
			}
			r := startV051(t, srv.Addr(), s.Namespace)
			e := work.NewEnqueuer(s.Namespace, gcstate.RedisPool(t, srv.Addr()))
			if _, err := e.Enqueue("sync_account", work.Q{"account": "8"}); err != nil {
				t.Fatal(err)
			}
			gcstate.WaitFor(t, 8*time.Second, "the v0.5.1 pool to run the next job", func() (bool, error) {
				return len(r.list()) == 1, nil
			})
			if got := r.list(); got[0] != `{"account":"8"}` {
				t.Errorf("ran %q, want the next job", got)
			}
		})
	}
}

// TestReapDoesNotRunFinishedJobAgain: the reap of a dead pool that holds a
// leaked stand-in removes it instead of requeueing it, so a pool runs
// only the job that waits; --requeue-leaked requeues it as gocraft/work's
// reaper does, and the finished job runs again with its first arguments.
func TestReapDoesNotRunFinishedJobAgain(t *testing.T) {
	for _, b := range builds {
		for _, force := range []bool{false, true} {
			name := b
			if force {
				name += "/requeue-leaked"
			}
			t.Run(name, func(t *testing.T) {
				runCLI := cliIn(t)
				srv := redistest.Start(t)
				c := srv.Dial()
				defer c.Close()
				s := variants.Read(t, b+"-dead.json")
				variants.Load(t, c, s, false)
				pool := s.PoolID(t)
				args := []string{"--redis", srv.Addr(), "-n", s.Namespace, "reap", pool, "--yes"}
				if force {
					args = append(args, "--requeue-leaked")
				}
				out, stderr, code := runCLI(args...)
				if code != 0 {
					t.Fatalf("reap: exit %d\n%s\n%s", code, out, stderr)
				}
				queue := s.Namespace + ":jobs:sync_account"
				n, _ := redis.Int(c.Do("LLEN", queue))
				want := []string{`{"account":"7","rev":3}`}
				if force {
					want = append(want, `{"account":"7","rev":1}`)
					if n != 2 {
						t.Fatalf("queue holds %d jobs after reap --requeue-leaked, want 2\n%s", n, out)
					}
				} else {
					if n != 1 || !strings.Contains(out, "first remove 1 leaked entry, not requeued") {
						t.Fatalf("queue holds %d jobs after reap, want 1, and the plan to list the leaked entry apart\n%s", n, out)
					}
					if ex, _ := redis.Int(c.Do("EXISTS", s.Namespace+":jobs:sync_account:"+pool+":inprogress")); ex != 0 {
						t.Fatal("the dead pool's in-progress list is still there")
					}
				}
				r := startV051(t, srv.Addr(), s.Namespace)
				gcstate.WaitFor(t, 8*time.Second, "the v0.5.1 pool to drain the queue", func() (bool, error) {
					n, err := redis.Int(c.Do("LLEN", queue))
					lock, _ := redis.Int(c.Do("GET", queue+":lock"))
					return n == 0 && lock == 0 && len(r.list()) == len(want), err
				})
				time.Sleep(300 * time.Millisecond)
				if got := r.list(); strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("ran %q, want %q", got, want)
				}
			})
		}
	}
}

// TestRemoveLeakedAndUndo: remove-leaked --dry-run changes nothing; with
// --yes it removes the leaked entry and leaves lock and lock_info; undo
// pushes it back, byte for byte.
func TestRemoveLeakedAndUndo(t *testing.T) {
	for _, b := range builds {
		t.Run(b, func(t *testing.T) {
			runCLI := cliIn(t)
			srv := redistest.Start(t)
			c := srv.Dial()
			defer c.Close()
			s := variants.Read(t, b+"-live.json")
			variants.Load(t, c, s, true)
			pool := s.PoolID(t)
			list := s.Namespace + ":jobs:sync_account:" + pool + ":inprogress"
			before := redistest.Dump(t, c, list)
			conn := []string{"--redis", srv.Addr(), "-n", s.Namespace}
			out, stderr, code := runCLI(append(conn, "remove-leaked", "--dry-run")...)
			if code != 0 || !strings.Contains(out, "Total: 1 entry removed") || !strings.Contains(out, "Dry run: nothing changed.") {
				t.Fatalf("remove-leaked --dry-run: exit %d\n%s\n%s", code, out, stderr)
			}
			if n, _ := redis.Int(c.Do("LLEN", list)); n != 1 {
				t.Fatalf("the dry run changed the list: %d entries", n)
			}
			out, stderr, code = runCLI(append(conn, "remove-leaked", "--yes")...)
			if code != 0 || !strings.Contains(out, "Done: 1 leaked entry removed.") {
				t.Fatalf("remove-leaked: exit %d\n%s\n%s", code, out, stderr)
			}
			if n, _ := redis.Int(c.Do("LLEN", list)); n != 0 {
				t.Fatalf("the list holds %d entries after remove-leaked", n)
			}
			if v := str(t, c, "GET", s.Namespace+":jobs:sync_account:lock"); v != "0" {
				t.Errorf("lock %s, want 0 unchanged", v)
			}
			out, stderr, code = runCLI(append(conn, "undo", "--yes")...)
			if code != 0 {
				t.Fatalf("undo: exit %d\n%s\n%s", code, out, stderr)
			}
			if after := redistest.Dump(t, c, list); !reflect.DeepEqual(after, before) {
				t.Errorf("after undo %q, want %q", after, before)
			}
		})
	}
}
