package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// workersNamespace is one live pool with four workers (one idle, one busy
// for 20 minutes with a checkin holding a terminal escape, one busy for 5 s
// with no args, one busy with args that are not JSON) and a dead pool with
// one busy worker; the job counters agree, so only the dead pool is a
// problem.
func workersNamespace(t *testing.T, srv *redistest.Server, ns string, dead bool) int64 {
	t.Helper()
	tm, err := redis.Int64s(srv.Do("TIME"), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := tm[0]
	p := ns + ":"
	srv.Do("SADD", p+"known_jobs", "email")
	srv.Do("SADD", p+"worker_pools", "live1")
	srv.Do("HSET", p+"worker_pools:live1", "heartbeat_at", now, "started_at", now-5000, "job_names", "email",
		"worker_ids", "wa,wb,wc,wd", "concurrency", 4, "host", "web-1", "pid", 11)
	srv.Do("HSET", p+"worker:wb", "job_name", "email", "job_id", "jb", "started_at", now-1200,
		"args", `{"to":"x@y.z","html":"<b>\u202e</b>","n":3}`, "checkin", "row 7\x1b[2J\u202eevil", "checkin_at", now-60)
	srv.Do("HSET", p+"worker:wc", "job_name", "email", "job_id", "jc", "started_at", now-5, "args", "")
	srv.Do("HSET", p+"worker:wd", "job_name", "email", "job_id", "jd", "started_at", now-2, "args", "not json\x07")
	if dead {
		srv.Do("SADD", p+"worker_pools", "dead1")
		srv.Do("HSET", p+"worker_pools:dead1", "heartbeat_at", now-3600, "job_names", "email", "worker_ids", "wz", "host", "web-2")
		srv.Do("HSET", p+"worker:wz", "job_name", "email", "job_id", "jz", "started_at", now-3700, "args", "{}")
	}
	return now
}

func TestSnapshotWorkersJSON(t *testing.T) {
	srv := redistest.Start(t)
	now := workersNamespace(t, srv, "wj", false)
	out, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "-n", "wj", "snapshot", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d, want 0 (a long-running job alone is no problem); stderr %q\n%s", code, stderr, out)
	}
	var raw struct {
		RedisTime int64                        `json:"redis_time"`
		Workers   []map[string]json.RawMessage `json:"workers"`
		Findings  []struct{ Kind, Subject, Detail string }
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range raw.Workers {
		var keys []string
		for k := range w {
			keys = append(keys, k)
		}
		if len(keys) != 10 {
			t.Errorf("worker fields %v", keys)
		}
		// running_seconds is Redis time (with its fraction) minus
		// started_at.
		var run float64
		var started int64
		_ = json.Unmarshal(w["running_seconds"], &run)
		_ = json.Unmarshal(w["started_at"], &started)
		runCell := string(w["running_seconds"])
		if d := run - float64(raw.RedisTime-started); runCell != "null" && d >= 0 && d < 1 {
			runCell = "ok"
		}
		var args bytes.Buffer
		if err := json.Compact(&args, w["args"]); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{string(w["worker_id"]), string(w["pool_id"]), string(w["busy"]),
			string(w["job_name"]), string(w["job_id"]), string(w["started_at"]), runCell, args.String(),
			string(w["checkin"]), string(w["checkin_at"])}, " "))
	}
	want := []string{
		`"wa" "live1" false null null null null null null null`,
		fmt.Sprintf(`"wb" "live1" true "email" "jb" %d ok {"to":"x@y.z","html":"\u003cb\u003e\u202e\u003c/b\u003e","n":3} "row 7\u001b[2J\u202eevil" %d`, now-1200, now-60),
		fmt.Sprintf(`"wc" "live1" true "email" "jc" %d ok null null null`, now-5),
		fmt.Sprintf(`"wd" "live1" true "email" "jd" %d ok "not json\u0007" null null`, now-2),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("workers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Error("a control character reached the output raw")
	}
	var long []string
	for _, f := range raw.Findings {
		long = append(long, f.Kind+" "+f.Subject)
	}
	if strings.Join(long, "; ") != "long_running wb" {
		t.Errorf("findings %v, want long_running wb", long)
	}

	// --long-after 1s: the 2 s and 5 s jobs are long-running too; a shorter
	// cut-off still does not fail the command.
	out, _, code = runCLI(t, input{}, "--redis", srv.Addr(), "-n", "wj", "snapshot", "--json", "--long-after", "1s")
	if code != ExitOK || strings.Count(out, `"kind": "long_running"`) != 3 {
		t.Errorf("--long-after 1s: exit %d, %d long_running findings, want 3\n%s", code, strings.Count(out, `"kind": "long_running"`), out)
	}
	out, _, _ = runCLI(t, input{}, "--redis", srv.Addr(), "-n", "wj", "snapshot", "--json", "--long-after", "2h")
	if strings.Contains(out, "long_running") {
		t.Errorf("--long-after 2h still reports a long-running job\n%s", out)
	}
}

func TestSnapshotWorkersTable(t *testing.T) {
	srv := redistest.Start(t)
	workersNamespace(t, srv, "wt", true)
	out, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "-n", "wt", "snapshot", "--wide")
	if code != ExitFindings {
		t.Fatalf("exit %d, want 3 (a dead pool); stderr %q", code, stderr)
	}
	_, section, _ := strings.Cut(out, "\nWORKERS (4 busy of 5)\n")
	section, _, _ = strings.Cut(section, "\n\n")
	lines := strings.Split(strings.TrimSuffix(section, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("WORKERS section:\n%s\nwhole output:\n%s", section, out)
	}
	want := []string{
		"POOL|WORKER|JOB|JOB ID|RUNNING|CHECKIN|NOTE",
		"dead1|wz|email|jz|1h01m|-|LONG, dead pool",
		`live1|wb|email|jb|20m00s|row 7\x1b[2J\u202eevil|LONG`,
		"live1|wc|email|jc|5s|-|-",
		"live1|wd|email|jd|2s|-|-",
	}
	for i, w := range want {
		cells := strings.Join(regexp.MustCompile(`  +`).Split(lines[i], -1), "|")
		// The running times may have moved on by a second.
		if cells != w && (i == 0 || !strings.HasPrefix(cells, w[:len("live1|wb|email|jb|")])) {
			t.Errorf("line %d:\n%q\nwant\n%q", i, cells, w)
		}
	}
	if strings.ContainsAny(out, "\x1b\u202e") {
		t.Error("a control or bidi character reached the table raw")
	}
	if !strings.Contains(out, "long_running  wb") {
		t.Errorf("no long_running finding in the table:\n%s", out)
	}
}

func TestSnapshotLongAfterUsage(t *testing.T) {
	for _, v := range []string{"0", "-1m", "ten", "10"} {
		_, stderr, code := runCLI(t, input{}, "snapshot", "--long-after", v)
		if code != ExitUsage || errorLines(stderr) != 1 {
			t.Errorf("--long-after %s: exit %d, stderr %q", v, code, stderr)
		}
	}
}

// The workers go through encoding/json: the output stays the bytes
// json.Encoder writes, whatever the args hold.
func TestSnapshotWorkersJSONMatchesEncodingJSON(t *testing.T) {
	run := 90*time.Second + 250*time.Millisecond
	snap := &model.Snapshot{Namespace: "w", RedisTime: time.Unix(1795964200, 0), Workers: []model.Worker{
		{WorkerID: "idle", PoolID: "p"},
		{WorkerID: "w1", PoolID: "p", Busy: true, JobName: "e<x>", JobID: "1", StartedAt: 1795964110, Running: &run,
			Args: `{"b":[1,2,{"c":null}],"a":"\u001b"}`, Checkin: "ok\x1b", HasCheckin: true, CheckinAt: 1795964111},
		{WorkerID: "w2", PoolID: "p", Busy: true, Args: "{broken"},
		{WorkerID: "w3", PoolID: "p", Busy: true, Args: "  "},
		{WorkerID: "w4", PoolID: "p", Busy: true, Args: "17", Checkin: "\u202e\u0085\x7f", HasCheckin: true},
		{WorkerID: "w6", PoolID: "p", Busy: true, Args: "{\"\u202ek\": [\"\u2066\u009b\x7f\"]}"},
		{WorkerID: "w5", PoolID: "p", Busy: true, Args: "{\"a\":\"\xff\u2028\"}"},
	}}
	checkSameJSON(t, "workers", snapshotToJSON(snap))
	var got struct{ Workers []workerJSON }
	b, _ := appendSnapshotJSON(nil, snapshotToJSON(snap))
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, w := range got.Workers {
		args = append(args, string(w.Args))
	}
	if fmt.Sprint(args) != `[null {
        "b": [
          1,
          2,
          {
            "c": null
          }
        ],
        "a": "\u001b"
      } "{broken" null 17 {
        "\u202ek": [
          "\u2066\u009b\u007f"
        ]
      } "{\"a\":\"\ufffd\u2028\"}"]` {
		t.Errorf("args %s", args)
	}
	// A value snapshotToJSON never makes fails before anything is written.
	var wrote bool
	_, err := encodeSnapshotJSON(nil, snapshotJSON{Workers: []workerJSON{{WorkerID: "x", Args: json.RawMessage("{")}}}, nil,
		func([]byte) error { wrote = true; return nil })
	if err == nil || wrote {
		t.Errorf("args that are not JSON: %v, wrote %v", err, wrote)
	}
}
