package cli

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

func TestSentinelBadFlagCombinations(t *testing.T) {
	t.Parallel()
	env := func(k string) string { return "" }
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"master without sentinel", []string{"snapshot", "--sentinel-master", "m"}, "--sentinel-master needs --sentinel"},
		{"replica without sentinel", []string{"snapshot", "--replica", "--read-only"}, "--replica needs --sentinel"},
		{"sentinel without master", []string{"snapshot", "--sentinel", "127.0.0.1:1"}, "--sentinel needs --sentinel-master"},
		{"sentinel and redis", []string{"snapshot", "--sentinel", "127.0.0.1:1", "--sentinel-master", "m", "--redis", "127.0.0.1:2"}, "--redis and --sentinel exclude each other"},
		{"sentinel and demo", []string{"snapshot", "--sentinel", "127.0.0.1:1", "--sentinel-master", "m", "--demo"}, "--demo and --sentinel exclude each other"},
		{"replica without read-only", []string{"snapshot", "--sentinel", "127.0.0.1:1", "--sentinel-master", "m", "--replica"}, "--replica needs --read-only"},
		{"replica on a write", []string{"reap", "--all-dead", "--sentinel", "127.0.0.1:1", "--sentinel-master", "m", "--replica"}, "--replica needs --read-only"},
		{"address without port", []string{"snapshot", "--sentinel", "localhost", "--sentinel-master", "m"}, "invalid --sentinel address"},
		{"bad port", []string{"snapshot", "--sentinel", "127.0.0.1:1,127.0.0.1:99999", "--sentinel-master", "m"}, "from 1 to 65535"},
		{"name with a space", []string{"snapshot", "--sentinel", "127.0.0.1:1", "--sentinel-master", "m x"}, "holds a space"},
		{"user without password", []string{"snapshot", "--sentinel", "127.0.0.1:1", "--sentinel-master", "m", "--sentinel-user", "u"}, "--sentinel-user needs a password"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, input{getenv: env}, tc.args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Fatalf("stderr does not say %q:\n%s", tc.want, stderr)
			}
			if n := errorLines(stderr); n != 1 {
				t.Fatalf("%d error lines, want 1:\n%s", n, stderr)
			}
			if out != "" {
				t.Fatalf("stdout not empty: %q", out)
			}
		})
	}
}

// sentinelState writes a gocraft/work namespace on the master: a live pool
// and a dead one holding two jobs of send_email in progress (lock 2).
type sentinelState struct {
	live, dead string
}

func writeSentinelState(t *testing.T, c redis.Conn) sentinelState {
	t.Helper()
	k := redisq.NewKeys("work")
	st := sentinelState{live: "aaaaaaaaaaaaaaaaaaaaaaaa", dead: "dddddddddddddddddddddddd"}
	now := redistest.Time(t, c).Unix()
	do := func(cmd string, args ...any) { redistest.Do(t, c, cmd, args...) }
	do("SADD", k.KnownJobs(), "send_email")
	do("SADD", k.WorkerPools(), st.live, st.dead)
	do("HSET", k.Heartbeat(st.live), "heartbeat_at", now+3600, "started_at", now, "job_names", "send_email",
		"concurrency", 1, "worker_ids", "w1", "host", "web-1", "pid", 1)
	do("HSET", k.Heartbeat(st.dead), "heartbeat_at", now-3600, "started_at", now-7200, "job_names", "send_email",
		"concurrency", 1, "worker_ids", "w2", "host", "web-2", "pid", 2)
	do("RPUSH", k.InProgress("send_email", st.dead), `{"name":"send_email","id":"j1","t":1,"args":{}}`, `{"name":"send_email","id":"j2","t":1,"args":{}}`)
	do("SET", k.Lock("send_email"), 2)
	do("HSET", k.LockInfo("send_email"), st.dead, 2)
	return st
}

func dialServer(t *testing.T, s *redistest.Server) redis.Conn {
	t.Helper()
	return s.Dial() // closed by the test's cleanup
}

// sentinelArgs are the flags that point a command at the set, with a
// sentinel that is down in front: the first that answers is used.
func sentinelArgs(t *testing.T, set *redistest.SentinelSet) []string {
	down := "127.0.0.1:" + strconv.Itoa(redistest.FreePort(t))
	return []string{"--sentinel", strings.Join(append([]string{down}, set.Addrs()...), ","), "--sentinel-master", set.Name}
}

type snapshotPools struct {
	Pools []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"pools"`
}

func poolStatuses(t *testing.T, out string) map[string]string {
	t.Helper()
	var s snapshotPools
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("snapshot --json: %v\n%s", err, out)
	}
	m := map[string]string{}
	for _, p := range s.Pools {
		m[p.ID] = p.Status
	}
	return m
}

// TestSentinelSnapshotReadsMasterAndReplica: snapshot --sentinel reads the
// master the sentinels name; with --replica --read-only it reads the
// replica, and the master sees none of its data reads. The screen with
// --replica says it reads a replica and shows the lag.
func TestSentinelSnapshotReadsMasterAndReplica(t *testing.T) {
	t.Parallel()
	set := redistest.StartSentinel(t, redistest.SentinelOptions{})
	master, replica := dialServer(t, set.Master), dialServer(t, set.Replica)
	st := writeSentinelState(t, master)
	args := sentinelArgs(t, set)

	out, stderr, code := runCLI(t, input{}, append([]string{"snapshot", "--json"}, args...)...)
	if code != ExitFindings {
		t.Fatalf("snapshot from the master: exit %d, want %d (a dead pool); stderr:\n%s", code, ExitFindings, stderr)
	}
	if got := poolStatuses(t, out); got[st.live] != "alive" || got[st.dead] != "dead" {
		t.Fatalf("snapshot from the master: pools %v", got)
	}

	// The replica has the state once replication caught up.
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, _ := redis.Int(replica.Do("SCARD", redisq.NewKeys("work").WorkerPools()))
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica did not get the state in 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	redistest.Do(t, master, "CONFIG", "RESETSTAT")
	redistest.Do(t, replica, "CONFIG", "RESETSTAT")
	out, stderr, code = runCLI(t, input{}, append([]string{"snapshot", "--json", "--read-only", "--replica"}, args...)...)
	if code != ExitFindings {
		t.Fatalf("snapshot from the replica: exit %d; stderr:\n%s", code, stderr)
	}
	if got := poolStatuses(t, out); got[st.live] != "alive" || got[st.dead] != "dead" {
		t.Fatalf("snapshot from the replica: pools %v", got)
	}
	onMaster, onReplica := redistest.CommandCalls(t, master), redistest.CommandCalls(t, replica)
	for cmd, n := range onMaster {
		// The sentinels PING and INFO the master; the replica sends it
		// REPLCONF. No read of the namespace may show here.
		if redisq.IsReadCommand(cmd) && cmd != "ping" && cmd != "info" && cmd != "role" && n > 0 {
			t.Errorf("the master got %d %s calls during snapshot --replica: %v", n, cmd, onMaster)
		}
	}
	if onReplica["smembers"] == 0 || onReplica["hgetall"]+onReplica["hmget"] == 0 {
		t.Fatalf("the replica got none of the snapshot's reads: %v", onReplica)
	}

	// The screen on the replica says so and shows the lag.
	tm := redistest.StartTmux(t, 120, 30, []string{"NO_COLOR=1"},
		append([]string{redistest.Binary(t), "--read-only", "--replica", "--interval", "500ms"}, args...)...)
	tm.WaitFor(10*time.Second, "the replica and its lag in the header", func(s string) bool {
		return strings.Contains(s, set.Replica.Addr()+" replica lag ") && strings.Contains(s, "2 pools")
	})

	// A failover promotes that replica: the screen does not go on reading
	// it as a master, it moves to the old master once that one is a
	// replica with its link up.
	if v := set.Sentinels[0].Do("SENTINEL", "FAILOVER", set.Name); v != "OK" {
		t.Fatalf("SENTINEL FAILOVER: %v", v)
	}
	// That takes the sentinels about 15 s; meanwhile the polls fail (no
	// usable replica) and back off, so r asks again as an operator would.
	deadline = time.Now().Add(45 * time.Second)
	for {
		screen := tm.Screen()
		if strings.Contains(screen, set.Master.Addr()+" replica lag ") && strings.Contains(screen, "2 pools") && !strings.Contains(screen, "STALE") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen did not read the demoted master as the replica in 45s:\n%s", screen)
		}
		tm.Keys("r")
		time.Sleep(time.Second)
	}
	tm.Keys("q")
	tm.WaitText(5*time.Second, "EXITED 0")
}

// TestSentinelFailoverScreenAndReap: the screen follows SENTINEL FAILOVER
// on its own and says so within 5 s of the promotion; a reap started after
// the failover writes to the new master only.
func TestSentinelFailoverScreenAndReap(t *testing.T) {
	t.Parallel()
	set := redistest.StartSentinel(t, redistest.SentinelOptions{})
	st := writeSentinelState(t, dialServer(t, set.Master))
	args := sentinelArgs(t, set)

	tm := redistest.StartTmux(t, 120, 30, []string{"NO_COLOR=1"},
		append([]string{redistest.Binary(t), "--read-only", "--interval", "500ms"}, args...)...)
	// Behind Sentinel too the screen polls cheaply and sweeps ("swept").
	tm.WaitFor(10*time.Second, "the master and its pools, swept", func(s string) bool {
		return strings.Contains(s, set.Master.Addr()+" master") && strings.Contains(s, "2 pools") &&
			strings.Contains(s, "3/4 sentinels announcing") && strings.Contains(s, "swept")
	})

	// A connection of a write command, checked and written on before the
	// failover: its next write after it must be refused, not sent.
	var tg target
	fs := pflag.NewFlagSet("target", pflag.ContinueOnError)
	tg.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := tg.check(env{getenv: func(string) string { return "" }}); err != nil {
		t.Fatal(err)
	}
	d, stopTarget, err := tg.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stopTarget()
	writer, err := d.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	if _, err := writer.Do("SET", "probe", "before"); err != nil {
		t.Fatalf("a write before the failover: %v", err)
	}

	// Sentinel ends the clients of a demoted master: fresh connections
	// from here on.
	set.Master.Do("CONFIG", "RESETSTAT")
	set.Replica.Do("CONFIG", "RESETSTAT")
	if v := set.Sentinels[0].Do("SENTINEL", "FAILOVER", set.Name); v != "OK" {
		t.Fatalf("SENTINEL FAILOVER: %v", v)
	}
	deadline := time.Now().Add(15 * time.Second)
	for set.Role(t, set.Replica) != "master" {
		if time.Now().After(deadline) {
			t.Fatal("the replica was not promoted within 15s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	promoted := time.Now()

	// The reap starts right after the promotion, while the old master may
	// still take writes. Nothing may reach it; a refusal while the
	// sentinels disagree is retried as an operator would.
	type reapRun struct {
		stderr   string
		code     int
		refusals []string
	}
	reaped := make(chan reapRun, 1)
	go func() {
		var r reapRun
		stop := time.Now().Add(20 * time.Second)
		for {
			_, r.stderr, r.code = runCLI(t, input{}, append([]string{"reap", "--all-dead", "--yes"}, args...)...)
			refused := strings.Contains(r.stderr, "refusing to write") || strings.Contains(r.stderr, "not the master")
			if r.code == 0 || !refused || time.Now().After(stop) {
				reaped <- r
				return
			}
			r.refusals = append(r.refusals, strings.TrimSpace(r.stderr))
			time.Sleep(300 * time.Millisecond)
		}
	}()

	notice := "failover: " + set.Master.Addr() + " -> " + set.Replica.Addr()
	tm.WaitFor(5*time.Second, "the new master and the failover line", func(s string) bool {
		return strings.Contains(s, set.Replica.Addr()+" master") && strings.Contains(s, notice) &&
			strings.Contains(s, st.live) && !strings.Contains(s, "STALE")
	})
	took := time.Since(promoted)
	t.Logf("the screen showed the new master %v after the promotion (a share %.2f of the 5 s allowed)", took.Round(time.Millisecond), took.Seconds()/5)

	// The target's watcher follows too; then the checked connection
	// refuses to write to the old master.
	for tg.sentinel.route.watcher.Master() != set.Replica.Addr() {
		if time.Since(promoted) > 10*time.Second {
			t.Fatal("the write command's watcher did not follow the failover in 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := writer.Do("SET", "probe", "after"); !errors.Is(err, errMasterMoved) {
		t.Fatalf("a write on a connection to the old master after the failover: got %v, want a refusal", err)
	}

	r := <-reaped
	for _, msg := range r.refusals {
		t.Logf("reap refused during the failover, then run again: %s", msg)
	}
	if r.code != 0 {
		t.Fatalf("reap: exit %d:\n%s", r.code, r.stderr)
	}
	// Redis 7 replicates a script by its effects, so a script call on the
	// old master (demoted meanwhile or not) can only come from the reap.
	onOld, onNew := redistest.CommandCalls(t, set.Master.Dial()), redistest.CommandCalls(t, set.Replica.Dial())
	for _, cmd := range []string{"evalsha", "eval", "script|load", "set"} {
		if onOld[cmd] > 0 {
			t.Errorf("the old master got %d %s calls from the reap: %v", onOld[cmd], cmd, onOld)
		}
	}
	if onNew["evalsha"]+onNew["eval"] == 0 {
		t.Fatalf("the new master ran no reap script: %v", onNew)
	}
	newMaster := set.Replica.Dial()
	k := redisq.NewKeys("work")
	if ok, _ := redis.Bool(newMaster.Do("SISMEMBER", k.WorkerPools(), st.dead)); ok {
		t.Fatal("the dead pool is still in worker_pools on the new master")
	}
	if n, _ := redis.Int(newMaster.Do("LLEN", k.Queue("send_email"))); n != 2 {
		t.Fatalf("the new master's queue holds %d jobs, want the 2 reaped", n)
	}
	tm.Keys("q")
	tm.WaitText(5*time.Second, "EXITED 0")
}
