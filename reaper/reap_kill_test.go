package reaper

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// reapKillChildEnv, when set (to a Redis address), turns TestReapKillChild
// into the process that TestReapKilledBetweenBatches kills.
const reapKillChildEnv = "WORKQ_REAP_KILL_CHILD"

// TestReapKillChild is not a test of its own: run by
// TestReapKilledBetweenBatches as a child process, it reaps namespace "us"
// one job per script call, printing the count after each call, until it is
// killed. Without the variable it returns at once.
func TestReapKillChild(t *testing.T) {
	addr := os.Getenv(reapKillChildEnv)
	if addr == "" {
		return
	}
	pool := &redis.Pool{Dial: func() (redis.Conn, error) { return redis.Dial("tcp", addr) }}
	c := pool.Get()
	plan, err := NewPlan(readSnapshot(t, c, "us", model.DefaultDeadAfter), Targets{AllDead: true})
	c.Close()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	_, err = NewReaper(pool, "us", 1).Reap(context.Background(), plan, func(moved, total int64) {
		fmt.Println("moved", moved)
		time.Sleep(time.Millisecond)
	})
	fmt.Println("done", err)
	os.Exit(0)
}

// A reaping process killed with SIGKILL stops between two script calls (a
// script runs to its end in Redis whatever happens to the client), so the
// state is consistent: every job in exactly one place, lock -
// lock_info[pool] unchanged, the pool still in the set. A second run
// finishes with upstream's end state.
func TestReapKilledBetweenBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes: not in -short")
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	const n = 3000
	st := workState{
		KnownJobs: []string{"email", "sms"},
		Pools: []statePool{{ID: "p1", AgeSec: 60, JobNames: []string{"email", "sms"}, InProgress: map[string][]string{
			"email": jobPayloads("e", n), "sms": jobPayloads("s", 50)}}},
		Locks:    map[string]int64{"email": n + 2, "sms": 40},
		LockInfo: map[string]map[string]int64{"email": {"p1": n}, "sms": {"p1": 45}},
		Queues:   map[string][]string{"email": jobPayloads("q", 2)},
	}
	st.Now = redistest.Time(t, c).Unix()
	st.write(t, c, "up")
	st.write(t, c, "us")
	upstreamReap(t, c, "up", nil)

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestReapKillChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), reapKillChildEnv+"="+srv.Addr())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	killedAt := int64(-1)
	for sc.Scan() {
		line := sc.Text()
		if m, ok := strings.CutPrefix(line, "moved "); ok {
			if v, _ := strconv.ParseInt(m, 10, 64); v >= 700 {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				killedAt = v
				break
			}
			continue
		}
		if strings.HasPrefix(line, "error") || strings.HasPrefix(line, "done") {
			t.Fatalf("child: %s", line)
		}
	}
	_ = cmd.Wait()
	if killedAt < 0 {
		t.Fatalf("child ended before it was killed: %v", sc.Err())
	}

	k := redisq.NewKeys("us")
	seen := map[string]bool{}
	for _, key := range []string{k.Queue("email"), k.Queue("sms"), k.InProgress("email", "p1"), k.InProgress("sms", "p1")} {
		l, _ := redis.Strings(c.Do("LRANGE", key, 0, -1))
		for _, j := range l {
			if seen[j] {
				t.Fatalf("job %s twice after the kill", j)
			}
			seen[j] = true
		}
	}
	if len(seen) != n+50+2 {
		t.Fatalf("%d jobs after the kill, want %d", len(seen), n+52)
	}
	left, _ := redis.Int64(c.Do("LLEN", k.InProgress("email", "p1")))
	for job, diff := range map[string]int64{"email": 2, "sms": -5} {
		lock, _ := redis.Int64(c.Do("GET", k.Lock(job)))
		info, _ := redis.Int64(c.Do("HGET", k.LockInfo(job), "p1"))
		if lock-info != diff {
			t.Errorf("%s after the kill: lock %d - lock_info %d = %d, want %d", job, lock, info, lock-info, diff)
		}
	}
	if ok, _ := redis.Bool(c.Do("SISMEMBER", k.WorkerPools(), "p1")); !ok || left == 0 || left == n {
		t.Fatalf("after the kill: in set %v, %d email jobs left in progress", ok, left)
	}
	t.Logf("killed after %d jobs reported moved; %d email jobs left in progress", killedAt, left)

	if _, res, err := planAndReap(t, srv.Pool(), c, "us", 1000, Targets{AllDead: true}); err != nil || !res.Pools[0].Reaped {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	if d := diffDumps(dumpNamespace(t, c, "up"), dumpNamespace(t, c, "us")); d != "" {
		t.Fatalf("after the second run:\n%s", d)
	}
}
