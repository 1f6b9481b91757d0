package reliability_test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// killState is a dead pool holding many jobs of several job types (one with
// a ':' in its name), with jobs already queued besides, written the way
// gocraft/work leaves them.
type killState struct {
	ns    string
	pool  string
	types []string
	// orig is, per job type, the in-progress list followed by the queue
	// (LRANGE order). Every reap step moves the tail of the in-progress list
	// onto the head of the queue, so in-progress ++ queue must equal orig at
	// every moment: nothing lost, nothing twice, order kept.
	orig  map[string][]string
	total int
	// orphan: the pool is in no set and has no heartbeat (requeue's case);
	// its lock and lock_info[pool] then equal its list's length at every
	// moment, down to 0.
	orphan bool
}

func (ks killState) inProgressKey(job string) string {
	return prefix(ks.ns) + "jobs:" + job + ":" + ks.pool + ":inprogress"
}
func (ks killState) queueKey(job string) string { return prefix(ks.ns) + "jobs:" + job }

// writeKillState writes n in-progress jobs (split unevenly over the job
// types) plus queued jobs into the current database of c.
func writeKillState(t testing.TB, c redis.Conn, ns string, n int) killState {
	t.Helper()
	ks := killState{ns: ns, pool: "deadbeefdeadbeefdeadbeef", types: []string{"email", "resize:image", "report", "sync"}, orig: map[string][]string{}}
	now := redistest.Time(t, c).Unix()
	writeHeartbeat(t, c, ns, ks.pool, now-600, "worker-killed", ks.types...)
	weights := []int{5, 3, 1, 1}
	id := 0
	for i, job := range ks.types {
		count := n * weights[i] / 10
		if i == len(ks.types)-1 {
			count = n - id
		}
		var inprog []string
		for j := 0; j < count; j++ {
			inprog = append(inprog, jobJSON(job, fmt.Sprintf("ip-%07d", id), now-700, fmt.Sprintf(`{"n":%d}`, id)))
			id++
		}
		var queued []string
		for j := 0; j < 200; j++ {
			queued = append(queued, jobJSON(job, fmt.Sprintf("q-%s-%04d", job, j), now-10, `{}`))
		}
		pushAll(t, c, ks.inProgressKey(job), inprog)
		pushAll(t, c, ks.queueKey(job), queued)
		redistest.Do(t, c, "SET", ks.queueKey(job)+":lock", count)
		redistest.Do(t, c, "HSET", ks.queueKey(job)+":lock_info", ks.pool, count)
		ks.orig[job] = append(inprog, queued...)
		ks.total += count + len(queued)
	}
	return ks
}

// pushAll RPUSHes items in pipelined chunks.
func pushAll(t testing.TB, c redis.Conn, key string, items []string) {
	t.Helper()
	const chunk = 1000
	sends := 0
	for i := 0; i < len(items); i += chunk {
		args := []any{key}
		for _, it := range items[i:min(i+chunk, len(items))] {
			args = append(args, it)
		}
		if err := c.Send("RPUSH", args...); err != nil {
			t.Fatal(err)
		}
		sends++
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	for ; sends > 0; sends-- {
		if _, err := c.Receive(); err != nil {
			t.Fatalf("RPUSH %s: %v", key, err)
		}
	}
}

// check verifies the invariants that must hold at any moment: per job type
// in-progress ++ queue equals the original (so the total is conserved and
// no job is lost or twice), ids are unique, and the locks agree with the
// lists: while the pool is in the set, lock = lock_info[pool] = the length
// of its in-progress list (every moved job took its lock release with it);
// once it is out, lock = 0, no lock_info field, no heartbeat. It returns how
// many jobs are still in progress and whether the pool is gone.
func (ks killState) check(t testing.TB, c redis.Conn, when string) (left int, gone bool) {
	t.Helper()
	p := prefix(ks.ns)
	inSet, err := redis.Bool(c.Do("SISMEMBER", p+"worker_pools", ks.pool))
	if err != nil {
		t.Fatal(err)
	}
	hb, err := redis.Int(c.Do("EXISTS", p+"worker_pools:"+ks.pool))
	if err != nil {
		t.Fatal(err)
	}
	if ks.orphan {
		inSet = true // an orphan's locks follow its lists at every moment
	} else if inSet != (hb == 1) {
		t.Fatalf("%s: pool in set %v but heartbeat exists %v: the final step was not atomic", when, inSet, hb == 1)
	}
	ids := map[string]bool{}
	count := 0
	for _, job := range ks.types {
		ip, err := redis.Strings(c.Do("LRANGE", ks.inProgressKey(job), 0, -1))
		if err != nil {
			t.Fatal(err)
		}
		q, err := redis.Strings(c.Do("LRANGE", ks.queueKey(job), 0, -1))
		if err != nil {
			t.Fatal(err)
		}
		all := append(append([]string{}, ip...), q...)
		want := ks.orig[job]
		if len(all) != len(want) {
			t.Fatalf("%s: %s holds %d jobs (in progress %d + queued %d), want %d", when, job, len(all), len(ip), len(q), len(want))
		}
		for i := range all {
			if all[i] != want[i] {
				t.Fatalf("%s: %s: job %d is %.60s, want %.60s (lost, duplicated or reordered)", when, job, i, all[i], want[i])
			}
			at := strings.Index(all[i], `"id":`)
			if at < 0 {
				t.Fatalf("%s: job without an id: %.60s", when, all[i])
			}
			id := all[i][at:]
			if ids[id] {
				t.Fatalf("%s: job %s twice", when, id)
			}
			ids[id] = true
		}
		count += len(all)
		left += len(ip)
		lock, err := redis.Int64(c.Do("GET", ks.queueKey(job)+":lock"))
		if err != nil {
			t.Fatalf("%s: GET lock of %s: %v", when, job, err)
		}
		info, err := redis.Int64(c.Do("HGET", ks.queueKey(job)+":lock_info", ks.pool))
		hasInfo := err == nil
		if err != nil && !errors.Is(err, redis.ErrNil) {
			t.Fatal(err)
		}
		if inSet {
			if lock != int64(len(ip)) || !hasInfo || info != int64(len(ip)) {
				t.Fatalf("%s: %s: lock %d, lock_info %d (present %v), in progress %d: want all equal", when, job, lock, info, hasInfo, len(ip))
			}
		} else if lock != 0 || hasInfo || len(ip) != 0 {
			t.Fatalf("%s: pool reaped but %s has lock %d, lock_info field present %v, %d in progress", when, job, lock, hasInfo, len(ip))
		}
	}
	if count != ks.total {
		t.Fatalf("%s: %d jobs, want %d", when, count, ks.total)
	}
	return left, !inSet
}

// reapProc runs `workq-tui reap --all-dead --yes --batch N` and, when
// killWhen is not nil, sends it SIGKILL as soon as killWhen returns (it is
// given a channel closed when the process has exited, and returns early
// then). It reports whether the kill hit a running process, and the exit
// status and output otherwise.
func reapProc(t testing.TB, addr string, db int, ns string, batch int, killWhen func(exited <-chan struct{})) (killed bool, code int, out string) {
	t.Helper()
	return procKill(t, killWhen, "--redis="+addr, "--db="+strconv.Itoa(db), "--namespace="+ns,
		"reap", "--all-dead", "--yes", "--batch="+strconv.Itoa(batch))
}

// procKill runs the binary with args, killed with SIGKILL once killWhen
// returns (see reapProc).
func procKill(t testing.TB, killWhen func(exited <-chan struct{}), args ...string) (killed bool, code int, out string) {
	t.Helper()
	cmd := exec.Command(redistest.Binary(t), args...)
	cmd.Env = redistest.Env()
	var buf strings.Builder
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	if killWhen != nil {
		killWhen(exited)
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
	<-exited
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return true, -1, buf.String()
	}
	return false, cmd.ProcessState.ExitCode(), buf.String()
}

// inProgress sums the lengths of the pool's in-progress lists (one round
// trip).
func (ks killState) inProgress(t testing.TB, c redis.Conn) int {
	t.Helper()
	for _, job := range ks.types {
		if err := c.Send("LLEN", ks.inProgressKey(job)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	n := 0
	for range ks.types {
		v, err := redis.Int(c.Receive())
		if err != nil {
			t.Fatal(err)
		}
		n += v
	}
	return n
}

// TestReapKilledAtRandomPoints sends SIGKILL to the real binary at random
// points of a reap (20 kills over 20,000 in-progress jobs; with
// WORKQ_STRESS=1, 40 kills over 100,000), runs the same reap again after
// each kill, and checks after every kill that nothing was lost, duplicated
// or reordered and that locks agree with the lists; at the end the locks
// are 0, the lock_info fields gone and the pool out of the set.
func TestReapKilledAtRandomPoints(t *testing.T) {
	jobs, kills, batch := 20000, 20, 20
	if stress() {
		jobs, kills, batch = 100000, 40, 100
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("WORKQ_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d (WORKQ_SEED to repeat)", seed)

	srv := redistest.Start(t)
	const ns = "killns"

	// Calibrate on a copy in db 1: how long the start (snapshot, plan) and
	// each job take, so that the kills land all over the reap.
	redistest.Binary(t) // build first: the calibration times the binary, not go build
	c1 := srv.Dial()
	redistest.Do(t, c1, "SELECT", 1)
	writeKillState(t, c1, ns, jobs)
	startAt := time.Now()
	if r := runCLI(t, nil, "--redis="+srv.Addr(), "--db=1", "--namespace="+ns, "reap", "--all-dead", "--dry-run"); r.Code != 0 {
		t.Fatalf("dry run: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	tStart := time.Since(startAt)
	startAt = time.Now()
	if killed, code, out := reapProc(t, srv.Addr(), 1, ns, batch, nil); killed || code != 0 {
		t.Fatalf("calibration reap: exit %d: %s", code, out)
	}
	tFull := time.Since(startAt)
	perJob := max(tFull-tStart, time.Millisecond) / time.Duration(jobs)
	redistest.Do(t, c1, "FLUSHDB")
	t.Logf("calibration: start %s, whole reap %s (%d jobs, batch %d)", tStart, tFull, jobs, batch)

	c := srv.Dial()
	watch := srv.Dial()
	ks := writeKillState(t, c, ns, jobs)
	left, _ := ks.check(t, c, "before")
	var killedAt []string
	hits, midMove, runs, rounds := 0, 0, 0, 0
	gone := false
	for hits < kills && !gone {
		runs++
		if runs > kills*4 {
			t.Fatalf("only %d of %d kills hit a running reap in %d runs", hits, kills, runs)
		}
		// One kill in five lands in the start (connect, snapshot, plan, the
		// in-progress SCAN); the others while jobs move: once the lists have
		// begun to shrink, after a random share of the time the rest takes.
		var delay time.Duration
		phase := "start"
		var killWhen func(<-chan struct{})
		if rng.Intn(5) == 0 {
			delay = time.Duration(rng.Int63n(int64(tStart) + 1))
			killWhen = func(exited <-chan struct{}) {
				select {
				case <-exited:
				case <-time.After(delay):
				}
			}
		} else {
			phase = "move"
			share := time.Duration(left) * perJob / time.Duration(kills-hits+1)
			delay = time.Duration(rng.Int63n(int64(share) + 1))
			from := left
			killWhen = func(exited <-chan struct{}) {
				for ks.inProgress(t, watch) >= from {
					select {
					case <-exited:
						return
					case <-time.After(200 * time.Microsecond):
					}
				}
				select {
				case <-exited:
				case <-time.After(delay):
				}
			}
		}
		killed, code, out := reapProc(t, srv.Addr(), 0, ns, batch, killWhen)
		before := left
		left, gone = ks.check(t, c, fmt.Sprintf("after run %d (killed %v at %s)", runs, killed, delay))
		if !killed {
			if code != 0 {
				t.Fatalf("run %d: exit %d: %s", runs, code, out)
			}
			if gone {
				// The reap outran the kills (a loaded machine): start over
				// with fresh jobs; the kills so far count.
				rounds++
				if rounds > 3 {
					t.Fatalf("the reap finished %d times before %d kills (of %d wanted)", rounds, hits, kills)
				}
				redistest.Do(t, c, "FLUSHDB")
				ks = writeKillState(t, c, ns, jobs)
				left, gone = ks.check(t, c, "refilled")
			}
			continue
		}
		hits++
		if before-left > 0 && left > 0 {
			midMove++
		}
		killedAt = append(killedAt, fmt.Sprintf("%s+%s:%d→%d", phase, delay.Round(time.Millisecond), before, left))
	}
	t.Logf("kills (phase+delay: in progress before→after): %s", strings.Join(killedAt, " "))
	if midMove < kills/2 {
		t.Errorf("only %d of %d kills landed while jobs were moving", midMove, hits)
	}

	// Run the same reap again to finish (unless the last kill came after
	// the final step).
	if !gone {
		if killed, code, out := reapProc(t, srv.Addr(), 0, ns, batch, nil); killed || code != 0 {
			t.Fatalf("final reap: exit %d:\n%s", code, out)
		}
	}
	left, gone = ks.check(t, c, "after the final reap")
	if !gone || left != 0 {
		t.Fatalf("after the final reap: pool gone %v, %d in progress", gone, left)
	}
	// Once more: nothing left to do.
	if r := runCLI(t, nil, "--redis="+srv.Addr(), "--namespace="+ns, "reap", "--all-dead", "--yes"); r.Code != 0 || !strings.Contains(r.Stdout, "No dead pool") {
		t.Fatalf("reap after the end: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := runCLI(t, nil, "--redis="+srv.Addr(), "--namespace="+ns, "reap", ks.pool, "--yes"); r.Code != 1 || !strings.Contains(r.Stderr, "not in "+prefix(ns)+"worker_pools") {
		t.Fatalf("reap of the reaped pool by ID: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	ks.check(t, c, "after a repeated reap")
	t.Logf("faults: %d SIGKILLs hit a running reap (%d while jobs moved) over %d runs (%d refills); %d jobs (%d in progress) conserved, 0 lost, 0 duplicated, locks 0", hits, midMove, runs+1, rounds, ks.total, jobs)
}

// TestTwoReapProcessesAtOnce starts two `workq-tui reap --all-dead --yes`
// processes (different batch sizes) on the same dead pool at the same time,
// three rounds (ten with WORKQ_STRESS=1): every job once and in order, locks
// 0, the pool gone; the loser either finished the pool's last batches or says
// another process reaped it.
func TestTwoReapProcessesAtOnce(t *testing.T) {
	rounds, jobs := 3, 20000
	if stress() {
		rounds, jobs = 10, 50000
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	const ns = "twons"
	redistest.Binary(t)
	for round := 0; round < rounds; round++ {
		redistest.Do(t, c, "FLUSHDB")
		ks := writeKillState(t, c, ns, jobs)
		type res struct {
			code int
			out  string
		}
		results := make(chan res, 2)
		for _, batch := range []int{13, 50} {
			go func() {
				_, code, out := reapProc(t, srv.Addr(), 0, ns, batch, nil)
				results <- res{code, out}
			}()
		}
		for i := 0; i < 2; i++ {
			r := <-results
			if j := strings.Index(r.out, "Done:"); j >= 0 {
				done, _, _ := strings.Cut(r.out[j:], "\n")
				t.Logf("round %d: exit %d: %s", round, r.code, done)
			}
			switch {
			case r.code == 0:
			case r.code == 1 && strings.Contains(r.out, "reaped or stopped by another process"):
			default:
				t.Errorf("round %d: exit %d:\n%s", round, r.code, r.out)
			}
		}
		left, gone := ks.check(t, c, fmt.Sprintf("round %d", round))
		if !gone || left != 0 {
			t.Fatalf("round %d: pool gone %v, %d in progress", round, gone, left)
		}
	}
	t.Logf("%d rounds of two reap processes on one %d-job pool: 0 lost, 0 duplicated, locks 0", rounds, jobs)
}

// TestRequeueKilledAtRandomPoints: `workq-tui requeue` of orphaned
// in-progress lists (their pool in no set, no heartbeat) sent SIGKILL at 10
// random points while jobs move (20 over 100,000 jobs with WORKQ_STRESS=1),
// run again after each: every job once and in order, and lock =
// lock_info[pool] = the list's length after every kill, 0 at the end.
func TestRequeueKilledAtRandomPoints(t *testing.T) {
	jobs, kills := 10000, 10
	if stress() {
		jobs, kills = 100000, 20
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	srv := redistest.Start(t)
	c := srv.Dial()
	watch := srv.Dial()
	const ns = "rqkill"
	redistest.Binary(t)
	fill := func() killState {
		redistest.Do(t, c, "FLUSHDB")
		ks := writeKillState(t, c, ns, jobs)
		redistest.Do(t, c, "DEL", prefix(ns)+"worker_pools", prefix(ns)+"worker_pools:"+ks.pool)
		ks.orphan = true
		ks.check(t, c, "before")
		return ks
	}
	ks := fill()
	args := []string{"--redis=" + srv.Addr(), "--namespace=" + ns, "requeue", "--yes", "--batch=10"}
	for _, job := range ks.types {
		args = append(args, ks.inProgressKey(job))
	}
	hits, runs, refills := 0, 0, 0
	for hits < kills {
		runs++
		from := ks.inProgress(t, watch)
		delay := time.Duration(rng.Int63n(int64(15 * time.Millisecond)))
		killed, code, out := procKill(t, func(exited <-chan struct{}) {
			for ks.inProgress(t, watch) >= from {
				select {
				case <-exited:
					return
				case <-time.After(200 * time.Microsecond):
				}
			}
			select {
			case <-exited:
			case <-time.After(delay):
			}
		}, args...)
		left, _ := ks.check(t, c, fmt.Sprintf("after run %d (killed %v)", runs, killed))
		if killed {
			hits++
		} else if code != 0 {
			t.Fatalf("run %d: exit %d\n%s", runs, code, out)
		}
		if left == 0 && hits < kills {
			refills++
			if refills > 5 {
				t.Fatalf("requeue outran the kills %d times", refills)
			}
			ks = fill()
		}
	}
	if left, _ := ks.check(t, c, "after the kills"); left > 0 {
		if killed, code, out := procKill(t, nil, args...); killed || code != 0 {
			t.Fatalf("final requeue: exit %d\n%s", code, out)
		}
	}
	if left, _ := ks.check(t, c, "after the final requeue"); left != 0 {
		t.Fatalf("%d jobs still in progress", left)
	}
	// Once everything moved, the same command says so and changes nothing.
	if killed, code, out := procKill(t, nil, args...); killed || code != 1 || !strings.Contains(out, "nothing to move") {
		t.Fatalf("requeue after the end: exit %d\n%s", code, out)
	}
	ks.check(t, c, "after a repeated requeue")
	t.Logf("faults: %d SIGKILLs of requeue over %d runs (%d refills); %d jobs per fill conserved, 0 lost, 0 duplicated, locks 0", hits, runs+1, refills, ks.total)
}
