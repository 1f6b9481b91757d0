package redisq_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// countingConn counts round trips (flushes and Do calls, not commands) and
// can tamper with replies to simulate a write landing between two commands of
// a pipeline.
type countingConn struct {
	redis.Conn
	flushes, dos int
	pending      []sentCmd
	// tamper, when set, may replace a reply. rt is the 1-based round trip.
	tamper func(rt int, cmd string, args []any, v any, err error) (any, error)
}

type sentCmd struct {
	name string
	args []any
}

func (c *countingConn) roundTrips() int { return c.flushes + c.dos }

func (c *countingConn) Send(cmd string, args ...any) error {
	c.pending = append(c.pending, sentCmd{cmd, args})
	return c.Conn.Send(cmd, args...)
}

func (c *countingConn) Flush() error {
	c.flushes++
	return c.Conn.Flush()
}

func (c *countingConn) Do(cmd string, args ...any) (any, error) {
	c.dos++
	return c.Conn.Do(cmd, args...)
}

func (c *countingConn) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	c.dos++
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c *countingConn) Receive() (any, error) {
	return c.ReceiveContext(context.Background())
}

func (c *countingConn) ReceiveContext(ctx context.Context) (any, error) {
	v, err := redis.ReceiveContext(c.Conn, ctx)
	var sc sentCmd
	if len(c.pending) > 0 {
		sc, c.pending = c.pending[0], c.pending[1:]
	}
	if c.tamper != nil {
		v, err = c.tamper(c.roundTrips(), sc.name, sc.args, v, err)
	}
	return v, err
}

// heartbeat writes a pool's heartbeat as gocraft/work v0.5.1 does, and adds
// it to the set.
func heartbeat(t *testing.T, c redis.Conn, k redisq.Keys, id string, at int64, jobs ...string) {
	t.Helper()
	redistest.Do(t, c, "SADD", k.WorkerPools(), id)
	redistest.Do(t, c, "HSET", k.Heartbeat(id), "heartbeat_at", at, "started_at", at-100,
		"job_names", strings.Join(jobs, ","), "concurrency", 10, "worker_ids", "w1,w2",
		"host", "web-1", "pid", 4242)
}

// take simulates a fetch: the job moves to the pool's in-progress list and
// lock and lock_info count it.
func take(t *testing.T, c redis.Conn, k redisq.Keys, job, pool string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		redistest.Do(t, c, "LPUSH", k.InProgress(job, pool), fmt.Sprintf(`{"name":%q,"id":"%s-%d","t":1,"args":{}}`, job, pool, i))
		redistest.Do(t, c, "INCR", k.Lock(job))
		redistest.Do(t, c, "HINCRBY", k.LockInfo(job), pool, 1)
	}
}

func snapshotOn(t *testing.T, c redis.Conn, ns string) (*model.Snapshot, *countingConn) {
	t.Helper()
	cc := &countingConn{Conn: c}
	snap, err := redisq.NewClient(redisq.OneConn(cc), ns, 10*time.Second).Snapshot(context.Background())
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return snap, cc
}

func TestSnapshotReadsEverything(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("ns")
	now := redistest.Time(t, c).Unix()

	heartbeat(t, c, k, "alive1", now-1, "email", "report:daily")
	heartbeat(t, c, k, "late1", now-8, "email")
	heartbeat(t, c, k, "dead1", now-60, "email", "report:daily")
	redistest.Do(t, c, "SADD", k.WorkerPools(), "gone1") // no heartbeat
	redistest.Do(t, c, "SADD", k.KnownJobs(), "email", "resize", "report:daily")

	take(t, c, k, "email", "alive1", 2)
	take(t, c, k, "email", "dead1", 3)
	take(t, c, k, "report:daily", "dead1", 1)
	// gocraft leaves lock_info 0 behind after a clean stop: not a finding.
	redistest.Do(t, c, "HSET", k.LockInfo("email"), "stopped1", 0)
	for i := 0; i < 4; i++ {
		redistest.Do(t, c, "LPUSH", k.Queue("email"), fmt.Sprintf(`{"name":"email","id":"q%d","t":%d,"args":{}}`, i, now-30+int64(i)))
	}
	redistest.Do(t, c, "SET", k.MaxConcurrency("email"), 5)
	redistest.Do(t, c, "SET", k.Paused("resize"), 1)
	// Drift on resize: lock 2 with nothing holding it.
	redistest.Do(t, c, "SET", k.Lock("resize"), 2)

	snap, cc := snapshotOn(t, c, "ns")
	// resize drifts, so a confirming third round trip is made (every job
	// type is in known_jobs, so heartbeats and job types take one).
	if got := cc.roundTrips(); got != 4 {
		t.Errorf("round trips = %d, want 4 (2, the workers' observations, and a confirming re-read of the drifted job type)", got)
	}
	if snap.Namespace != "ns" || snap.RedisTime.Unix() < now || snap.RedisTime.Unix() > now+5 {
		t.Errorf("namespace %q, redis time %v (now %d)", snap.Namespace, snap.RedisTime, now)
	}

	var order []string
	status := map[string]model.Status{}
	for _, p := range snap.Pools {
		order = append(order, p.ID)
		status[p.ID] = p.Status
	}
	if want := []string{"gone1", "dead1", "late1", "alive1"}; !reflect.DeepEqual(order, want) {
		t.Errorf("pool order %v, want %v", order, want)
	}
	wantStatus := map[string]model.Status{"gone1": model.StatusDead, "dead1": model.StatusDead, "late1": model.StatusLate, "alive1": model.StatusAlive}
	if !reflect.DeepEqual(status, wantStatus) {
		t.Errorf("statuses %v, want %v", status, wantStatus)
	}

	dead, _ := snap.Pool("dead1")
	if want := map[string]int64{"email": 3, "report:daily": 1}; !reflect.DeepEqual(dead.InProgress, want) {
		t.Errorf("dead1 in progress %v, want %v", dead.InProgress, want)
	}
	if want := map[string]int64{"email": 3, "report:daily": 1}; !reflect.DeepEqual(dead.LockInfo, want) {
		t.Errorf("dead1 lock_info %v, want %v", dead.LockInfo, want)
	}
	hb := dead.Heartbeat
	if hb == nil || hb.HeartbeatAt != now-60 || hb.StartedAt != now-160 || hb.Host != "web-1" || hb.PID != 4242 ||
		hb.Concurrency != 10 || !reflect.DeepEqual(hb.JobNames, []string{"email", "report:daily"}) || !reflect.DeepEqual(hb.WorkerIDs, []string{"w1", "w2"}) {
		t.Errorf("dead1 heartbeat %+v", hb)
	}
	if dead.HeartbeatAge == nil || *dead.HeartbeatAge < 60*time.Second || *dead.HeartbeatAge > 65*time.Second {
		t.Errorf("dead1 heartbeat age %v", dead.HeartbeatAge)
	}
	gone, _ := snap.Pool("gone1")
	if gone.Heartbeat != nil || gone.HeartbeatAge != nil || len(gone.InProgress) != 0 {
		t.Errorf("gone1 %+v", gone)
	}

	var names []string
	for _, jt := range snap.JobTypes {
		names = append(names, jt.Name)
	}
	if want := []string{"email", "report:daily", "resize"}; !reflect.DeepEqual(names, want) {
		t.Errorf("job types %v, want %v", names, want)
	}
	email, _ := snap.JobType("email")
	if email.Queued != 4 || email.InProgress != 5 || email.Lock != 5 || email.LockInfoTotal != 5 ||
		email.MaxConcurrency != 5 || email.Paused || email.Drift || email.OldestEnqueuedAt != now-30 {
		t.Errorf("email %+v", email)
	}
	if email.Latency == nil || *email.Latency < 30*time.Second || *email.Latency > 35*time.Second {
		t.Errorf("email latency %v", email.Latency)
	}
	resize, _ := snap.JobType("resize")
	if !resize.Paused || !resize.Drift || resize.Lock != 2 || resize.Queued != 0 || resize.Latency != nil {
		t.Errorf("resize %+v", resize)
	}

	var kinds []string
	for _, f := range snap.Findings {
		kinds = append(kinds, f.Kind+" "+f.Subject)
	}
	want := []string{"dead_pool gone1", "dead_pool dead1", "late_pool late1", "drift resize"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("findings %v, want %v", kinds, want)
	}
	if !snap.HasProblems() {
		t.Error("HasProblems = false")
	}
}

func TestSnapshotRoundTripsConstant(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	for _, pools := range []int{1, 500} {
		t.Run(strconv.Itoa(pools), func(t *testing.T) {
			ns := fmt.Sprintf("rt%d", pools)
			k := redisq.NewKeys(ns)
			now := redistest.Time(t, c).Unix()
			jobs := []string{"a", "b", "c", "d"}
			for i := 0; i < pools; i++ {
				id := fmt.Sprintf("pool%04d", i)
				_ = c.Send("SADD", k.WorkerPools(), id)
				_ = c.Send("HSET", k.Heartbeat(id), "heartbeat_at", now-int64(i%30), "job_names", strings.Join(jobs, ","), "pid", i)
				if i%7 == 0 {
					_ = c.Send("LPUSH", k.InProgress("b", id), `{"t":1}`)
					_ = c.Send("INCR", k.Lock("b"))
					_ = c.Send("HINCRBY", k.LockInfo("b"), id, 1)
				}
			}
			_ = c.Send("SADD", k.KnownJobs(), "e")
			if _, err := c.Do(""); err != nil {
				t.Fatal(err)
			}
			snap, cc := snapshotOn(t, c, ns)
			if got := cc.roundTrips(); got > 3 {
				t.Errorf("%d pools: %d round trips, want at most 3", pools, got)
			}
			t.Logf("%d pools, %d job types: %d round trips", len(snap.Pools), len(snap.JobTypes), cc.roundTrips())
			if len(snap.Pools) != pools || len(snap.JobTypes) != 5 {
				t.Fatalf("%d pools, %d job types", len(snap.Pools), len(snap.JobTypes))
			}
			b, _ := snap.JobType("b")
			want := int64((pools + 6) / 7)
			if b.InProgress != want || b.Lock != want || b.LockInfoTotal != want || b.Drift {
				t.Errorf("b: %+v, want %d everywhere", b, want)
			}
		})
	}
}

func TestSnapshotEmptyNamespace(t *testing.T) {
	srv := redistest.Start(t)
	snap, cc := snapshotOn(t, srv.Dial(), "nothing")
	if cc.roundTrips() != 1 || len(snap.Pools) != 0 || len(snap.JobTypes) != 0 || len(snap.Findings) != 0 || snap.HasProblems() {
		t.Errorf("empty namespace: %d round trips, %+v", cc.roundTrips(), snap)
	}
}

func TestSnapshotWrongTypes(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()

	t.Run("sets", func(t *testing.T) {
		k := redisq.NewKeys("wt1")
		redistest.Do(t, c, "SET", k.WorkerPools(), "x")
		redistest.Do(t, c, "LPUSH", k.KnownJobs(), "x")
		snap, _ := snapshotOn(t, c, "wt1")
		if len(snap.Warnings) != 2 || len(snap.Pools) != 0 {
			t.Errorf("warnings %q, pools %v", snap.Warnings, snap.Pools)
		}
		if snap.HasProblems() {
			t.Error("warnings alone must not be problems")
		}
	})
	t.Run("items", func(t *testing.T) {
		k := redisq.NewKeys("wt2")
		heartbeat(t, c, k, "ok", now, "j")
		redistest.Do(t, c, "SADD", k.WorkerPools(), "listhb")
		redistest.Do(t, c, "LPUSH", k.Heartbeat("listhb"), "x")
		redistest.Do(t, c, "HSET", k.Queue("j"), "f", "v")
		redistest.Do(t, c, "LPUSH", k.Lock("j"), "x")
		redistest.Do(t, c, "SET", k.LockInfo("j"), "x")
		redistest.Do(t, c, "SET", k.InProgress("j", "ok"), "x")
		redistest.Do(t, c, "HSET", k.MaxConcurrency("j"), "f", "v")
		snap, _ := snapshotOn(t, c, "wt2")
		lhb, _ := snap.Pool("listhb")
		if lhb.Status == model.StatusDead || len(lhb.Warnings) == 0 {
			t.Errorf("a heartbeat of the wrong type must warn and not be dead: %+v", lhb)
		}
		okp, _ := snap.Pool("ok")
		if okp.Status != model.StatusAlive || len(okp.Warnings) != 1 || !strings.Contains(okp.Warnings[0], "WRONGTYPE") {
			t.Errorf("pool ok: %+v", okp)
		}
		j, _ := snap.JobType("j")
		// queue LLEN and LINDEX, lock, lock_info, max_concurrency.
		if len(j.Warnings) != 5 {
			t.Errorf("job type j warnings %q, want 5", j.Warnings)
		}
		var warnings int
		for _, f := range snap.Findings {
			if f.Kind == model.FindingWarning {
				warnings++
			}
		}
		if warnings != 1+1+5 {
			t.Errorf("%d warning findings, want 7: %+v", warnings, snap.Findings)
		}
	})
}

func TestSnapshotMalformed(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	k := redisq.NewKeys("mf")
	redistest.Do(t, c, "SADD", k.WorkerPools(), "noat", "badat", "badpid")
	redistest.Do(t, c, "HSET", k.Heartbeat("noat"), "job_names", "j", "pid", 1)
	redistest.Do(t, c, "HSET", k.Heartbeat("badat"), "heartbeat_at", "soon", "job_names", "j")
	redistest.Do(t, c, "HSET", k.Heartbeat("badpid"), "heartbeat_at", now, "pid", "x1", "concurrency", "", "job_names", "j,,k")
	redistest.Do(t, c, "SADD", k.KnownJobs(), "notjson", "not", "tstr")
	redistest.Do(t, c, "LPUSH", k.Queue("notjson"), "\x1b[31mnot json")
	redistest.Do(t, c, "LPUSH", k.Queue("not"), `{"name":"not","id":"1"}`)
	redistest.Do(t, c, "LPUSH", k.Queue("tstr"), `{"name":"tstr","t":"yesterday"}`)
	redistest.Do(t, c, "SET", k.Lock("j"), "many")
	redistest.Do(t, c, "HSET", k.LockInfo("j"), "badpid", "two", "noat", 0)

	snap, _ := snapshotOn(t, c, "mf")
	noat, _ := snap.Pool("noat")
	if noat.Heartbeat == nil || !noat.Heartbeat.HeartbeatAtMissing || noat.Status != model.StatusDead {
		t.Errorf("noat: %+v", noat)
	}
	badat, _ := snap.Pool("badat")
	if badat.Heartbeat == nil || !badat.Heartbeat.HeartbeatAtMalformed || badat.Status != model.StatusLate || len(badat.Warnings) != 1 {
		t.Errorf("badat: %+v", badat)
	}
	badpid, _ := snap.Pool("badpid")
	if badpid.Status != model.StatusAlive || len(badpid.Warnings) != 2 || !reflect.DeepEqual(badpid.Heartbeat.JobNames, []string{"j", "k"}) {
		t.Errorf("badpid: %+v %+v", badpid, badpid.Heartbeat)
	}
	if _, ok := badpid.LockInfo["j"]; ok {
		t.Errorf("an unreadable lock_info field must be left out: %v", badpid.LockInfo)
	}
	for _, name := range []string{"notjson", "not", "tstr"} {
		jt, _ := snap.JobType(name)
		if jt.Queued != 1 || jt.Latency != nil || len(jt.Warnings) != 1 {
			t.Errorf("%s: %+v", name, jt)
		}
	}
	j, _ := snap.JobType("j")
	if len(j.Warnings) != 2 {
		t.Errorf("j warnings %q, want lock and lock_info field", j.Warnings)
	}
}

// TestSnapshotTransientDrift: a job fetched between two commands of the
// pipeline looks like drift; the confirming re-read shows it is not.
func TestSnapshotTransientDrift(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("td")
	heartbeat(t, c, k, "p1", redistest.Time(t, c).Unix(), "j")
	take(t, c, k, "j", "p1", 2)
	cc := &countingConn{Conn: c}
	cc.tamper = func(rt int, cmd string, args []any, v any, err error) (any, error) {
		if rt == 3 && cmd == "GET" && args[0] == k.Lock("j") {
			return []byte("3"), nil // as if a fetch landed right after
		}
		return v, err
	}
	snap, err := redisq.ReadSnapshot(context.Background(), cc, "td", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := snap.JobType("j")
	if j.Drift || j.Lock != 2 || cc.roundTrips() != 4 {
		t.Errorf("transient drift: %+v after %d round trips", j, cc.roundTrips())
	}
	if snap.HasProblems() {
		t.Errorf("findings %+v", snap.Findings)
	}
}

func TestReadOnlyConnRefusesWrites(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("ro")
	heartbeat(t, c, k, "p1", redistest.Time(t, c).Unix()-100, "j")
	take(t, c, k, "j", "p1", 2)
	before := redistest.Dump(t, c, "*")

	ro := redisq.ReadOnlyConn(srv.Dial())
	writes := []struct {
		cmd  string
		args []any
	}{
		{"DEL", []any{k.WorkerPools()}},
		{"SREM", []any{k.WorkerPools(), "p1"}},
		{"RPOPLPUSH", []any{k.InProgress("j", "p1"), k.Queue("j")}},
		{"EVAL", []any{"return redis.call('DEL', KEYS[1])", 1, k.Lock("j")}},
		{"FLUSHALL", nil},
		{"set", []any{k.Lock("j"), 0}},
	}
	for _, w := range writes {
		if _, err := ro.Do(w.cmd, w.args...); !errors.Is(err, redisq.ErrReadOnly) {
			t.Errorf("Do %s: err %v, want ErrReadOnly", w.cmd, err)
		}
		if _, err := redis.DoContext(ro, context.Background(), w.cmd, w.args...); !errors.Is(err, redisq.ErrReadOnly) {
			t.Errorf("DoContext %s: err %v, want ErrReadOnly", w.cmd, err)
		}
		if err := ro.Send(w.cmd, w.args...); !errors.Is(err, redisq.ErrReadOnly) {
			t.Errorf("Send %s: err %v, want ErrReadOnly", w.cmd, err)
		}
	}
	if _, err := ro.Do(""); err != nil {
		t.Fatalf("flush: %v", err)
	}
	// A snapshot works through it.
	snap, err := redisq.ReadSnapshot(context.Background(), ro, "ro", 10*time.Second)
	if err != nil {
		t.Fatalf("snapshot through a read-only conn: %v", err)
	}
	if p, _ := snap.Pool("p1"); p == nil || p.Status != model.StatusDead || p.InProgress["j"] != 2 {
		t.Errorf("snapshot through a read-only conn: %+v", snap.Pools)
	}
	if _, err := redisq.PeekList(context.Background(), ro, k.InProgress("j", "p1"), 5); err != nil {
		t.Errorf("peek through a read-only conn: %v", err)
	}
	after := redistest.Dump(t, c, "*")
	if !reflect.DeepEqual(before, after) {
		t.Errorf("redis changed:\nbefore %v\nafter  %v", before, after)
	}
}

func TestSnapshotWithReadOnlyACLUser(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	redistest.Do(t, c, "ACL", "SETUSER", "ro", "on", ">pw", "~*", "+@read")
	redistest.Do(t, c, "ACL", "SETUSER", "rotime", "on", ">pw", "~*", "+@read", "+time")
	k := redisq.NewKeys("acl")
	heartbeat(t, c, k, "p1", redistest.Time(t, c).Unix(), "j")
	take(t, c, k, "j", "p1", 1)

	for _, user := range []string{"ro", "rotime"} {
		t.Run(user, func(t *testing.T) {
			d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), User: user, Password: "pw", ReadOnly: true, Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			pool := d.Pool()
			defer pool.Close()
			cl := redisq.NewClient(pool, "acl", 10*time.Second)
			snap, err := cl.Snapshot(context.Background())
			if err != nil {
				t.Fatalf("snapshot as %s: %v", user, err)
			}
			p, _ := snap.Pool("p1")
			if p == nil || p.Status != model.StatusAlive || p.InProgress["j"] != 1 {
				t.Errorf("pools %+v", snap.Pools)
			}
			timeWarned := len(snap.Warnings) == 1 && strings.Contains(snap.Warnings[0], "TIME")
			if timeWarned != (user == "ro") {
				t.Errorf("user %s: warnings %q", user, snap.Warnings)
			}
			jobs, err := cl.PeekInProgress(context.Background(), "p1", "j", 10)
			if err != nil || len(jobs) != 1 || jobs[0].Name != "j" {
				t.Errorf("peek: %+v, %v", jobs, err)
			}
		})
	}
}

func TestSnapshotErrors(t *testing.T) {
	t.Run("wrong password", func(t *testing.T) {
		srv := redistest.Start(t, "--requirepass", "right-secret")
		const pw = "wrong-Secret-123"
		d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Password: pw, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		pool := d.Pool()
		defer pool.Close()
		_, err = redisq.NewClient(pool, "work", 0).Snapshot(context.Background())
		if err == nil {
			t.Fatal("no error with a wrong password")
		}
		if strings.Contains(err.Error(), pw) || strings.Contains(err.Error(), "right-secret") {
			t.Errorf("error holds a password: %v", err)
		}
		if !strings.Contains(err.Error(), srv.Addr()) {
			t.Errorf("error does not name the address: %v", err)
		}
	})
	t.Run("no password", func(t *testing.T) {
		srv := redistest.Start(t, "--requirepass", "right-secret")
		d, _ := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Timeout: 5 * time.Second})
		cl := redisq.NewDialerClient(d, "work", 0)
		defer cl.Close()
		_, err := cl.Snapshot(context.Background())
		if err == nil || !strings.Contains(err.Error(), "REDIS_PASSWORD") || !strings.Contains(err.Error(), srv.Addr()) {
			t.Errorf("err %v, want the address and a hint about REDIS_PASSWORD", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		addr := fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t))
		d, _ := redisq.NewDialer(redisq.Options{Address: addr, Timeout: 2 * time.Second})
		pool := d.Pool()
		defer pool.Close()
		_, err := redisq.NewClient(pool, "work", 0).Snapshot(context.Background())
		if err == nil || !strings.Contains(err.Error(), addr) || strings.Contains(err.Error(), "\n") {
			t.Errorf("err %q, want one line naming %s", err, addr)
		}
	})
}

func TestPeekInProgress(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("pk")
	redistest.Do(t, c, "RPUSH", k.InProgress("j", "p"), `{"name":"j","id":"a","t":100,"args":{"x":1}}`, "garbage", `{"name":"j","id":"c"}`, `{"id":"d","t":4}`)
	cl := redisq.NewClient(redisq.OneConn(c), "pk", 0)
	jobs, err := cl.PeekInProgress(context.Background(), "p", "j", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 {
		t.Fatalf("%d jobs, want 3", len(jobs))
	}
	if j := jobs[0]; j.ID != "a" || j.Name != "j" || j.EnqueuedAt != 100 || string(j.Args) != `{"x":1}` || j.ParseErr != nil {
		t.Errorf("job 0: %+v", j)
	}
	if j := jobs[1]; j.Raw != "garbage" || j.ParseErr == nil {
		t.Errorf("job 1: %+v", j)
	}
	if j := jobs[2]; j.ID != "c" || j.ParseErr == nil {
		t.Errorf("job 2: %+v", j)
	}
	if jobs, err := cl.PeekInProgress(context.Background(), "nobody", "j", 3); err != nil || len(jobs) != 0 {
		t.Errorf("missing list: %v, %v", jobs, err)
	}
}
