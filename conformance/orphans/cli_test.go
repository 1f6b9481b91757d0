package orphans_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// cli runs the built binary and returns stdout, stderr and the exit status.
func cli(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	r := redistest.Run(t, bin, nil, args...)
	return r.Stdout, r.Stderr, r.Code
}

type snapJSON struct {
	Orphans []struct {
		Key     string `json:"key"`
		JobName string `json:"job_name"`
		PoolID  string `json:"pool_id"`
		Length  int64  `json:"length"`
	} `json:"orphans"`
	JobTypes []struct {
		Name  string `json:"name"`
		Drift bool   `json:"drift"`
		Lock  int64  `json:"lock"`
	} `json:"job_types"`
	Findings []struct {
		Kind    string `json:"kind"`
		Subject string `json:"subject"`
	} `json:"findings"`
}

// End to end through the command line: on real
// gocraft/work state with orphans (left by gocraft/work's own reaper) and a
// drifted lock, `snapshot --json` reports both and exits 3; `requeue` and
// `repair-locks` fix them; live gocraft/work pools drain the queues; and
// `snapshot` then exits 0.
func TestCommandLineFindsAndFixesOrphansAndDrift(t *testing.T) {
	t.Parallel()
	bin := redistest.Binary(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "e2e"
	k := redisq.NewKeys(ns)
	const orphanJob, capped = "e2e:orphan", "e2e:capped"
	common := []string{"--redis", srv.Addr(), "--namespace", ns}

	killed := gcstate.StartKilled(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 3,
		Jobs: []gcstate.JobType{{Name: orphanJob, Enqueue: 3}}})
	redistest.Do(t, c, "DEL", k.Heartbeat(killed.ID))
	live := gcstate.StartLive(t, gcstate.Spec{Addr: srv.Addr(), Namespace: ns, Concurrency: 2,
		Jobs: []gcstate.JobType{{Name: orphanJob}, {Name: capped, MaxConcurrency: 2}}})
	redistest.Do(t, c, "SET", k.Lock(capped), 7)
	redistest.Do(t, c, "HSET", k.LockInfo(capped), "0123456789abcdef01234567", 7)
	gcstate.Enqueue(t, srv.Addr(), ns, capped, 10)
	gcstate.WaitFor(t, 30*time.Second, "gocraft/work's reaper to remove the killed pool", func() (bool, error) {
		member, err := redis.Bool(c.Do("SISMEMBER", k.WorkerPools(), killed.ID))
		return !member, err
	})
	orphanKey := k.InProgress(orphanJob, killed.ID)
	if n := llen(t, c, orphanKey); n != 3 {
		t.Fatalf("orphan list holds %d jobs, want 3", n)
	}

	out, stderr, code := cli(t, bin, append(common, "snapshot", "--json")...)
	if code != 3 {
		t.Fatalf("snapshot exit %d, want 3; stderr %s", code, stderr)
	}
	var snap snapJSON
	if err := json.Unmarshal([]byte(out), &snap); err != nil {
		t.Fatalf("snapshot --json: %v\n%s", err, out)
	}
	if len(snap.Orphans) != 1 || snap.Orphans[0].Key != orphanKey || snap.Orphans[0].JobName != orphanJob ||
		snap.Orphans[0].PoolID != killed.ID || snap.Orphans[0].Length != 3 {
		t.Errorf("orphans = %+v", snap.Orphans)
	}
	drift := false
	for _, jt := range snap.JobTypes {
		if jt.Name == capped {
			drift = jt.Drift
		}
	}
	var kinds []string
	for _, f := range snap.Findings {
		kinds = append(kinds, f.Kind)
	}
	sort.Strings(kinds)
	if !drift || !strings.Contains(strings.Join(kinds, ","), "drift,orphan") {
		t.Errorf("drift %v, findings %v", drift, kinds)
	}
	if n := llen(t, c, k.Queue(capped)); n != 10 {
		t.Fatalf("capped queue has %d jobs, want 10 (the drifted lock blocks the workers)", n)
	}

	if out, stderr, code := cli(t, bin, append(common, "requeue", "--yes", orphanKey)...); code != 0 {
		t.Fatalf("requeue exit %d: %s\n%s", code, stderr, out)
	}
	if out, stderr, code := cli(t, bin, append(common, "repair-locks", "--yes", capped)...); code != 0 {
		t.Fatalf("repair-locks exit %d: %s\n%s", code, stderr, out)
	}
	gcstate.WaitFor(t, 30*time.Second, "the live pool to drain both queues", func() (bool, error) {
		n := llen(t, c, k.Queue(orphanJob)) + llen(t, c, k.Queue(capped)) +
			llen(t, c, k.InProgress(orphanJob, live.ID)) + llen(t, c, k.InProgress(capped, live.ID))
		return n == 0, nil
	})
	out, stderr, code = cli(t, bin, append(common, "snapshot", "--json")...)
	if code != 0 {
		t.Fatalf("snapshot after the repairs: exit %d, stderr %s\n%s", code, stderr, out)
	}
}
