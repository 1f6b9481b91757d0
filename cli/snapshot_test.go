package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// writeNamespace writes, in namespace ns, one alive pool holding 1 email job, one
// dead pool holding 2 email jobs and 1 resize job, a pool without heartbeat,
// lock_info 0 of a cleanly stopped pool, a queue with a job 42 s old, and a
// host name with a terminal escape.
func writeNamespace(t *testing.T, srv *redistest.Server, ns string) int64 {
	t.Helper()
	c := srv.Dial()
	defer c.Close()
	now := redistest.Time(t, c).Unix()
	p := ns + ":"
	srv.Do("SADD", p+"worker_pools", "alive1", "dead1", "gone1")
	srv.Do("SADD", p+"known_jobs", "email", "resize")
	srv.Do("HSET", p+"worker_pools:alive1", "heartbeat_at", now, "started_at", now-50, "job_names", "email",
		"worker_ids", "a,b", "concurrency", 2, "host", "web-1\x1b[2J", "pid", 11)
	srv.Do("HSET", p+"worker_pools:dead1", "heartbeat_at", now-3600, "started_at", now-7200, "job_names", "email,resize",
		"worker_ids", "c", "concurrency", 4, "host", "web-2", "pid", 22)
	hold := func(job, pool string, n int) {
		for i := 0; i < n; i++ {
			srv.Do("LPUSH", p+"jobs:"+job+":"+pool+":inprogress", fmt.Sprintf(`{"name":%q,"id":"%d","t":1}`, job, i))
			srv.Do("INCR", p+"jobs:"+job+":lock")
			srv.Do("HINCRBY", p+"jobs:"+job+":lock_info", pool, 1)
		}
	}
	hold("email", "alive1", 1)
	hold("email", "dead1", 2)
	hold("resize", "dead1", 1)
	srv.Do("HSET", p+"jobs:email:lock_info", "stopped1", 0)
	srv.Do("LPUSH", p+"jobs:email", fmt.Sprintf(`{"name":"email","id":"q","t":%d}`, now-42))
	srv.Do("SET", p+"jobs:resize:max_concurrency", 3)
	return now
}

func TestSnapshotJSON(t *testing.T) {
	srv := redistest.Start(t)
	now := writeNamespace(t, srv, "app")
	srv.Do("ZADD", "app:retry", now+60, `{"name":"email","id":"r1","t":1}`, now+90, `{"name":"email","id":"r2","t":1}`)
	srv.Do("ZADD", "app:dead", now-5, `{"name":"resize","id":"d1","t":1}`)
	out, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "-n", "app", "snapshot", "--json")
	if code != ExitFindings {
		t.Fatalf("exit %d, want 3 (dead pools); stderr %q", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr %q", stderr)
	}
	// Exactly the documented fields.
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	assertKeys(t, "top", raw, "namespace", "redis_time", "pools", "job_types", "workers", "sets", "orphans", "findings", "namespace_search")
	if sets, ok := raw["sets"].(map[string]any); !ok {
		t.Errorf("sets = %#v, want an object", raw["sets"])
	} else {
		assertKeys(t, "sets", sets, "retry", "scheduled", "dead")
	}
	pools := raw["pools"].([]any)
	for _, p := range pools {
		pm := p.(map[string]any)
		assertKeys(t, "pool", pm, "id", "status", "heartbeat", "heartbeat_age_seconds", "in_progress", "lock_info")
		if hb, ok := pm["heartbeat"].(map[string]any); ok {
			assertKeys(t, "heartbeat", hb, "heartbeat_at", "started_at", "host", "pid", "concurrency", "job_names", "worker_ids")
		}
	}
	for _, j := range raw["job_types"].([]any) {
		assertKeys(t, "job type", j.(map[string]any), "name", "queued", "latency_seconds", "in_progress", "lock",
			"lock_info_total", "max_concurrency", "paused", "drift")
	}
	if o, ok := raw["orphans"].([]any); !ok || len(o) != 0 {
		t.Errorf("orphans = %#v, want []", raw["orphans"])
	}

	var got snapshotJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Namespace != "app" || got.RedisTime < now || got.RedisTime > now+5 {
		t.Errorf("namespace %q redis_time %d (now %d)", got.Namespace, got.RedisTime, now)
	}
	if want := (model.SetCounts{Retry: 2, Dead: 1}); got.Sets != want {
		t.Errorf("sets %+v, want %+v", got.Sets, want)
	}
	byID := map[string]poolJSON{}
	var order []string
	for _, p := range got.Pools {
		byID[p.ID] = p
		order = append(order, p.ID+":"+string(p.Status))
	}
	if want := []string{"gone1:dead", "dead1:dead", "alive1:alive"}; !reflect.DeepEqual(order, want) {
		t.Errorf("pools %v, want %v", order, want)
	}
	if g := byID["gone1"]; g.Heartbeat != nil || g.HeartbeatAgeSeconds != nil {
		t.Errorf("gone1 %+v", g)
	}
	d := byID["dead1"]
	if !reflect.DeepEqual(d.InProgress, map[string]int64{"email": 2, "resize": 1}) || !reflect.DeepEqual(d.LockInfo, map[string]int64{"email": 2, "resize": 1}) {
		t.Errorf("dead1 %+v", d)
	}
	if d.HeartbeatAgeSeconds == nil || *d.HeartbeatAgeSeconds < 3600 || *d.HeartbeatAgeSeconds > 3605 {
		t.Errorf("dead1 age %v", d.HeartbeatAgeSeconds)
	}
	a := byID["alive1"]
	if a.Heartbeat == nil || a.Heartbeat.HeartbeatAt == nil || *a.Heartbeat.HeartbeatAt != now || a.Heartbeat.Host != "web-1\x1b[2J" ||
		a.Heartbeat.PID != 11 || !reflect.DeepEqual(a.Heartbeat.WorkerIDs, []string{"a", "b"}) {
		t.Errorf("alive1 %+v %+v", a, a.Heartbeat)
	}
	jts := map[string]jobTypeJSON{}
	for _, j := range got.JobTypes {
		jts[j.Name] = j
	}
	if e := jts["email"]; e.Queued != 1 || e.InProgress != 3 || e.Lock != 3 || e.LockInfoTotal != 3 || e.Drift ||
		e.LatencySeconds == nil || *e.LatencySeconds < 42 || *e.LatencySeconds > 47 {
		t.Errorf("email %+v", e)
	}
	if r := jts["resize"]; r.Queued != 0 || r.LatencySeconds != nil || r.InProgress != 1 || r.Lock != 1 || r.MaxConcurrency != 3 || r.Drift {
		t.Errorf("resize %+v", r)
	}
	var kinds []string
	for _, f := range got.Findings {
		kinds = append(kinds, f.Kind+" "+f.Subject)
	}
	if want := []string{"dead_pool gone1", "dead_pool dead1"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("findings %v, want %v (lock_info 0 is not a finding)", kinds, want)
	}
}

func assertKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	var got []string
	for k := range m {
		got = append(got, k)
	}
	want := append([]string(nil), keys...)
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s fields %v, want %v", what, got, want)
	}
}

func TestSnapshotTable(t *testing.T) {
	srv := redistest.Start(t)
	writeNamespace(t, srv, "app")
	srv.Do("ZADD", "app:scheduled", 1, "{}", 2, `{"id":"x"}`)
	srv.Do("ZADD", "app:dead", 1, "{}")
	// An orphan, with an escape in its job name.
	srv.Do("LPUSH", "app:jobs:ev\x1b]0;x\x07il:old9:inprogress", "{}")
	out, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "--namespace", "app", "--read-only", "snapshot", "--wide")
	if code != ExitFindings {
		t.Fatalf("exit %d, want 3; stderr %q", code, stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("raw control characters in the table:\n%q", out)
	}
	for _, want := range []string{
		"POOLS (3)", "JOB TYPES (2)", "FINDINGS (3)", "ORPHANED IN-PROGRESS LISTS (1)",
		`web-1\x1b[2J:11`, `ev\x1b]0;x\x07il`,
		"dead_pool", "orphan",
		"3 (email 2, resize 1)",
		"\n3 pools, 2 dead pools   job sets: retry 0   scheduled 2   dead jobs 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "email ") {
			f := strings.Fields(line)
			// NAME QUEUED LATENCY IN-PROGRESS LOCK/MAX LOCK_INFO PAUSED DRIFT
			if len(f) != 8 || f[1] != "1" || f[3] != "3" || f[4] != "3/-" || f[5] != "3" || f[7] != "-" {
				t.Errorf("email row %q", line)
			}
		}
	}
}

func TestSnapshotHealthyExitsZero(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	srv.Do("SADD", "work:worker_pools", "p1")
	srv.Do("HSET", "work:worker_pools:p1", "heartbeat_at", now, "job_names", "j")
	srv.Do("HSET", "work:jobs:j:lock_info", "old", 0)
	out, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "snapshot")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0; stderr %q\n%s", code, stderr, out)
	}
	if !strings.Contains(out, "nothing wrong") {
		t.Errorf("output:\n%s", out)
	}
	// Empty namespace: empty arrays, the empty_namespace finding, exit 1.
	out, _, code = runCLI(t, input{}, "--redis", srv.Addr(), "-n", "empty", "snapshot", "--json")
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitError {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if f, ok := got["findings"].([]any); !ok || len(f) != 1 || f[0].(map[string]any)["kind"] != "empty_namespace" {
		t.Errorf("findings = %#v, want one empty_namespace", got["findings"])
	}
	for _, k := range []string{"pools", "job_types", "orphans"} {
		if a, ok := got[k].([]any); !ok || len(a) != 0 {
			t.Errorf("%s = %#v, want []", k, got[k])
		}
	}
}

func TestSnapshotErrorsAndUsage(t *testing.T) {
	srv := redistest.Start(t, "--requirepass", "s3cret-pw")
	{ // a namespace that is not empty
		c := srv.Dial()
		redistest.Do(t, c, "AUTH", "s3cret-pw")
		redistest.Do(t, c, "SADD", "work:known_jobs", "mail")
	}
	pwFile := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pwFile, []byte("s3cret-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "--password-file", pwFile, "snapshot"); code != ExitOK {
		t.Errorf("with --password-file: exit %d, %q", code, stderr)
	}
	env := func(k string) string {
		if k == "REDIS_PASSWORD" {
			return "s3cret-pw"
		}
		return ""
	}
	if _, stderr, code := runCLI(t, input{getenv: env}, "--redis", srv.Addr(), "snapshot", "--json"); code != ExitOK {
		t.Errorf("with REDIS_PASSWORD: exit %d, %q", code, stderr)
	}
	wrong := func(k string) string {
		if k == "REDIS_PASSWORD" {
			return "wrong-pw-987"
		}
		return ""
	}
	_, stderr, code := runCLI(t, input{getenv: wrong}, "--redis", srv.Addr(), "snapshot")
	if code != ExitError || strings.Contains(stderr, "wrong-pw-987") || !strings.Contains(stderr, srv.Addr()) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("wrong password: exit %d, stderr %q", code, stderr)
	}

	addr := fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t))
	_, stderr, code = runCLI(t, input{}, "--redis", addr, "--timeout", "2s", "snapshot")
	if code != ExitError || !strings.Contains(stderr, addr) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("unreachable: exit %d, stderr %q", code, stderr)
	}

	if _, _, code := runCLI(t, input{}, "snapshot", "extra"); code != ExitUsage {
		t.Errorf("extra argument: exit %d, want 2", code)
	}
	if _, _, code := runCLI(t, input{}, "snapshot", "--yes"); code != ExitUsage {
		t.Errorf("--yes on snapshot: exit %d, want 2", code)
	}
}
