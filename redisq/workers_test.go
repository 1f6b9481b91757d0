package redisq_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// poolWithWorkers writes a heartbeat naming the given workers, as
// gocraft/work v0.5.1 does, and registers its job names in known_jobs.
func poolWithWorkers(t *testing.T, c redis.Conn, k redisq.Keys, id string, at int64, workers []string, jobs ...string) {
	t.Helper()
	redistest.Do(t, c, "SADD", k.WorkerPools(), id)
	redistest.Do(t, c, "HSET", k.Heartbeat(id), "heartbeat_at", at, "started_at", at-100,
		"job_names", strings.Join(jobs, ","), "concurrency", len(workers), "worker_ids", strings.Join(workers, ","),
		"host", "web-1", "pid", 4242)
	for _, j := range jobs {
		redistest.Do(t, c, "SADD", k.KnownJobs(), j)
	}
}

// observe writes a busy worker's observation as gocraft/work's observer
// does (HMSET and EXPIRE), with a checkin when checkin is not "".
func observe(t *testing.T, c redis.Conn, k redisq.Keys, worker, job, id string, started int64, args, checkin string) {
	t.Helper()
	key := k.Prefix() + "worker:" + worker
	redistest.Do(t, c, "HSET", key, "job_name", job, "job_id", id, "started_at", started, "args", args)
	if checkin != "" {
		redistest.Do(t, c, "HSET", key, "checkin", checkin, "checkin_at", started+5)
	}
	redistest.Do(t, c, "EXPIRE", key, 86400)
}

func describeWorker(w model.Worker) string {
	run := "-"
	if w.Running != nil {
		run = w.Running.Truncate(time.Second).String()
	}
	return fmt.Sprintf("%s/%s busy=%v %s %s started=%d run=%s args=%q checkin=%v:%q at=%d warn=%q",
		w.PoolID, w.WorkerID, w.Busy, w.JobName, w.JobID, w.StartedAt, run, w.Args, w.HasCheckin, w.Checkin, w.CheckinAt, w.Warnings)
}

func TestSnapshotReadsWorkers(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("wk")
	now := redistest.Time(t, c).Unix()
	poolWithWorkers(t, c, k, "p1", now, []string{"w1", "w2", "w3"}, "email")
	poolWithWorkers(t, c, k, "p0dead", now-600, []string{"w9"}, "email")
	observe(t, c, k, "w1", "email", "j1", now-700, `{"to":"a@b.c","n":1}`, "")
	observe(t, c, k, "w3", "email", "j3", now-30, "", "step 2 of 3\x1b[31m")
	observe(t, c, k, "w9", "email", "j9", now-900, `{}`, "")
	redistest.Do(t, c, "SET", k.Prefix()+"worker:w2", "not a hash")

	snap, cc := snapshotOn(t, c, "wk")
	if got := cc.roundTrips(); got != 3 {
		t.Errorf("%d round trips, want 3 (sets; heartbeats and job types; observations)", got)
	}
	var got []string
	for _, w := range snap.Workers {
		got = append(got, describeWorker(w))
	}
	want := []string{
		fmt.Sprintf(`p0dead/w9 busy=true email j9 started=%d run=15m0s args="{}" checkin=false:"" at=0 warn=[]`, now-900),
		fmt.Sprintf(`p1/w1 busy=true email j1 started=%d run=11m40s args="{\"to\":\"a@b.c\",\"n\":1}" checkin=false:"" at=0 warn=[]`, now-700),
		`p1/w2 busy=false   started=0 run=- args="" checkin=false:"" at=0 warn=["observation: WRONGTYPE Operation against a key holding the wrong kind of value"]`,
		fmt.Sprintf(`p1/w3 busy=true email j3 started=%d run=30s args="" checkin=true:"step 2 of 3\x1b[31m" at=%d warn=[]`, now-30, now-25),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("workers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var kinds []string
	for _, f := range snap.Findings {
		kinds = append(kinds, f.Kind+" "+f.Subject)
	}
	wantKinds := "dead_pool p0dead; long_running w9; long_running w1; warning w2"
	if strings.Join(kinds, "; ") != wantKinds {
		t.Errorf("findings %q, want %q", strings.Join(kinds, "; "), wantKinds)
	}

	// The second read path: the same workers in one round trip.
	cc2 := &countingConn{Conn: c}
	ws, err := redisq.ReadWorkers(context.Background(), cc2, k, snap.Pools, snap.RedisTime)
	if err != nil {
		t.Fatal(err)
	}
	if cc2.roundTrips() != 1 || len(ws) != 4 {
		t.Errorf("ReadWorkers: %d workers in %d round trips, want 4 in 1", len(ws), cc2.roundTrips())
	}
	for _, w := range ws {
		s, _ := snapshotWorker(snap, w.WorkerID)
		if describeWorker(w) != describeWorker(s) {
			t.Errorf("ReadWorkers:\n%s\nsnapshot:\n%s", describeWorker(w), describeWorker(s))
		}
	}
}

func snapshotWorker(snap *model.Snapshot, id string) (model.Worker, bool) {
	for _, w := range snap.Workers {
		if w.WorkerID == id {
			return w, true
		}
	}
	return model.Worker{}, false
}

// Reading the workers adds one round trip when heartbeats name workers,
// none when they do not, and shares it with the job types only heartbeats
// name; it stays one whatever the number of workers.
func TestSnapshotWorkersRoundTrips(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	tests := []struct {
		name      string
		pools     int
		workers   int
		unknown   bool // a job name only heartbeats name
		wantRT    int
		wantBusy  int
		wantTypes int
	}{
		{"no workers", 3, 0, false, 2, 0, 1},
		{"workers", 3, 4, false, 3, 6, 1},
		{"workers and a job type outside known_jobs", 3, 4, true, 3, 6, 2},
		{"a job type outside known_jobs alone", 3, 0, true, 3, 0, 2},
		{"500 pools of 10 workers", 500, 10, false, 3, 2500, 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := fmt.Sprintf("wrt%d", i)
			k := redisq.NewKeys(ns)
			for p := 0; p < tt.pools; p++ {
				id := fmt.Sprintf("pool%04d", p)
				var ws []string
				for w := 0; w < tt.workers; w++ {
					ws = append(ws, fmt.Sprintf("%s-w%02d", id, w))
				}
				poolWithWorkers(t, c, k, id, now, ws, "a")
				if tt.unknown {
					redistest.Do(t, c, "HSET", k.Heartbeat(id), "job_names", "a,b")
				}
				for w := 0; w < len(ws); w += 2 {
					observe(t, c, k, ws[w], "a", fmt.Sprintf("j%d-%d", p, w), now-int64(w), `{"w":1}`, "")
				}
			}
			snap, cc := snapshotOn(t, c, ns)
			if got := cc.roundTrips(); got != tt.wantRT {
				t.Errorf("%d round trips, want %d", got, tt.wantRT)
			}
			busy := 0
			for _, w := range snap.Workers {
				if w.Busy {
					busy++
				}
			}
			if len(snap.Workers) != tt.pools*tt.workers || busy != tt.wantBusy || len(snap.JobTypes) != tt.wantTypes {
				t.Errorf("%d workers (%d busy), %d job types; want %d (%d busy), %d",
					len(snap.Workers), busy, len(snap.JobTypes), tt.pools*tt.workers, tt.wantBusy, tt.wantTypes)
			}
			for _, jt := range snap.JobTypes {
				if jt.Drift || len(jt.Warnings) > 0 {
					t.Errorf("job type %+v", jt)
				}
			}
		})
	}
}

// An observation the Redis user may not read fails the snapshot, as any
// other refused read does, and leaves the connection usable.
func TestSnapshotWorkersNoPerm(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("np")
	now := redistest.Time(t, c).Unix()
	poolWithWorkers(t, c, k, "p1", now, []string{"w1"}, "a")
	redistest.Do(t, c, "ACL", "SETUSER", "reader", "on", ">pw", "+@read", "+time", "~np:worker_pools*", "~np:known_jobs", "~np:jobs:*", "~np:retry", "~np:scheduled", "~np:dead")
	rc := srv.Dial()
	redistest.Do(t, rc, "AUTH", "reader", "pw")
	_, err := redisq.ReadSnapshot(context.Background(), rc, "np", 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "np:worker:w1") || !strings.Contains(err.Error(), "may not read") {
		t.Fatalf("snapshot without access to the observations: %v", err)
	}
	if n, err := redis.Int(rc.Do("SCARD", k.WorkerPools())); err != nil || n != 1 {
		t.Errorf("connection after the failed snapshot: SCARD %d, %v", n, err)
	}
}
