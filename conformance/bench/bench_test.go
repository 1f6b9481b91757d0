// Package bench_test is the driver of `make bench`: one table of
// ratios, each measured in the same run against the same redis-server, with
// its goal and PASS or MISS. It lives in the conformance module because one
// of its lines compares workq-tui's snapshot with gocraft/work v0.5.1's own
// Client, and only this module may import gocraft/work.
//
// TestBenchTable (build tag bench) runs the full sizes; TestBenchSmoke runs
// the same code at tiny sizes in `make test`, so the driver cannot rot.
// Nothing here asserts an absolute time.
package bench_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"
	"github.com/muesli/termenv"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/upstreamref"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// sizes of one run of the driver.
type sizes struct {
	// Snapshot namespace: pools x jobTypes in-progress lists.
	pools, jobTypes int
	// rounds of the fast snapshot measurements, of the per-key loop, and
	// runs of the built binary.
	rounds, loopRounds, procRuns int
	// reapJobs in-progress jobs of one dead pool.
	reapJobs int
	// screenPools pools (x jobTypes job types) behind the screen.
	screenPools int
	// noiseKeys unrelated keys for the orphan scan; scanPolls polls timed
	// with and without the scan running.
	noiseKeys int
	scanPolls int
	// smoke: only check that every line is produced.
	smoke bool
}

var fullSizes = sizes{pools: 1000, jobTypes: 20, rounds: 25, loopRounds: 3, procRuns: 20,
	reapJobs: 100000, screenPools: 10000, noiseKeys: 1000000, scanPolls: 20}

var smokeSizes = sizes{pools: 20, jobTypes: 4, rounds: 3, loopRounds: 1, procRuns: 2,
	reapJobs: 2000, screenPools: 200, noiseKeys: 20000, scanPolls: 4, smoke: true}

const (
	snapNS   = "bench"
	screenNS = "screen"
	frame    = 16 * time.Millisecond
	rssLimit = 100 << 20
)

// env is what every section shares: one redis-server, the built binary.
type env struct {
	t   *testing.T
	srv *redistest.Server
	bin string
	sz  sizes
	tb  *table
	// snapshot namespace, loaded by the first section.
	snapLoaded loaded
	rawMedian  time.Duration
}

func (e *env) dial() redis.Conn { return e.srv.Dial() }

// runBench runs every section and returns the table.
func runBench(t *testing.T, sz sizes) *table {
	if sz.smoke {
		// testing.Benchmark runs for -test.benchtime (1s) otherwise.
		if err := flag.Set("test.benchtime", "20x"); err != nil {
			t.Fatal(err)
		}
	}
	// Every binary the bench runs keeps its audit log and journals in a
	// state directory of its own, empty at the start: what the runner's
	// own state directory holds (the journals of earlier work, read by
	// the read commands for their throttle marks) is no part of a line.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	// No background rewrite of the append-only file: the bench writes
	// millions of members, so Redis would start one now and then, fork,
	// and take a copy-on-write page fault for every page it then writes
	// until the child ends; whichever line ran then measured it (6a's
	// script calls: 663 ms alone, 1,102 ms with BGREWRITEAOF sent every
	// 0.4 s, 2,249 ms in a full run, the raw walk beside them slowed
	// alike).
	srv := redistest.Start(t, "--enable-debug-command", "local", "--auto-aof-rewrite-percentage", "0")
	e := &env{t: t, srv: srv, sz: sz, tb: &table{}}
	e.bin = redistest.Binary(t)
	ver, _ := redis.String(srv.Dial().Do("INFO", "server"))
	rv := "redis ?"
	for _, l := range strings.Split(ver, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "redis_version:"); ok {
			rv = "redis " + v
		}
	}
	e.tb.header = []string{
		"workq-tui performance (make bench): ratios measured in one run against one redis-server",
		"machine: " + machine() + ", " + rv,
		fmt.Sprintf("sizes: snapshot %d pools x %d job types (%d in-progress lists); reap %d jobs; screen %d pools at 200x60; orphan scan over %d unrelated keys",
			sz.pools, sz.jobTypes, sz.pools*sz.jobTypes, sz.reapJobs, sz.screenPools, sz.noiseKeys),
	}
	// Each section with the lines it writes; 2b and 4a divide by the raw
	// batch of the snapshot section, so they need it too.
	sections := []struct {
		run   func()
		lines []string
	}{
		{e.snapshot, []string{"1a", "1b", "1c", "1d", "1e", "1f", "1g", "1h", "1j", "2b", "4a"}},
		{e.reap, []string{"2a", "2b"}},
		{e.screen, []string{"3a", "3b", "3c", "3d"}},
		{e.orphans, []string{"4a", "4b", "4c"}},
		{e.workers, []string{"1i"}},
		{e.sets, []string{"6a", "6b", "6c", "6d", "6e", "6f"}},
		{e.poll, []string{"5a", "5b", "5c", "5d", "5i"}},
		{e.screenScale, []string{"5e", "5f", "5g", "5h", "5j"}},
		{e.incident, []string{"7a", "7b", "7c", "7d"}},
		{e.explainBench, []string{"8a"}},
		{e.timelineBench, []string{"8b"}},
		{e.health, []string{"9a", "9b", "9c", "9d"}},
		{e.drain, []string{"10a", "10b"}},
	}
	only := wantedLines(os.Getenv("BENCH_LINES"))
	for _, s := range sections {
		if only == nil || slices.ContainsFunc(s.lines, func(id string) bool { return only[id] }) {
			s.run()
		}
	}
	if only != nil {
		e.tb.header = append(e.tb.header, "lines: "+os.Getenv("BENCH_LINES")+" only (BENCH_LINES)")
		e.tb.lines = slices.DeleteFunc(e.tb.lines, func(l line) bool { return !only[l.id] })
	}
	return e.tb
}

// wantedLines parses BENCH_LINES ("1a,6a,6c"): the lines to measure, or nil
// for every line. Only the sections that write one of them run.
func wantedLines(v string) map[string]bool {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	only := map[string]bool{}
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(id); id != "" {
			only[id] = true
		}
	}
	return only
}

func TestMain(m *testing.M) { os.Exit(redistest.Main(m)) }

// processCPU is the CPU time (user and system) this process has used.
func processCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU is the CPU time redis-server has used (INFO cpu).
func serverCPU(t *testing.T, c redis.Conn) time.Duration {
	s, err := redis.String(c.Do("INFO", "cpu"))
	if err != nil {
		t.Fatalf("INFO cpu: %v", err)
	}
	var total float64
	for _, l := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("INFO cpu %s: %v", k, err)
			}
			total += f
		}
	}
	return time.Duration(total * float64(time.Second))
}

// ratioOf keeps a ratio a/b in a Duration (x1000) so that median works on
// it; ratioValue reads it back.
func ratioOf(a, b time.Duration) time.Duration { return time.Duration(1000 * float64(a) / float64(b)) }

func ratioValue(r time.Duration) float64 { return float64(r) / 1000 }

func timeIt(t *testing.T, what string, f func() error) time.Duration {
	t.Helper()
	start := time.Now()
	if err := f(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return time.Since(start)
}

// 1. The snapshot: ours against the raw batch, gocraft/work's Client, the
// per-key loop, and the whole process.
func (e *env) snapshot() {
	t, sz := e.t, e.sz
	c := e.dial()
	l := loadNamespace(t, c, nsSpec{ns: snapNS, pools: sz.pools, jobTypes: sz.jobTypes, listsPerPool: sz.jobTypes,
		deadEvery: 50, queued: 50, orphans: 10})
	e.snapLoaded = l
	ctx := context.Background()
	cmds := rawCommands(snapNS, l)

	var snap *model.Snapshot
	ours := func() error {
		var err error
		snap, err = redisq.ReadSnapshot(ctx, c, snapNS, model.DefaultDeadAfter)
		return err
	}
	raw := func() error { return runBatch(c, cmds) }
	var gcCount counter
	gcPool := &redis.Pool{MaxIdle: 2, Dial: func() (redis.Conn, error) {
		rc, err := redis.Dial("tcp", e.srv.Addr())
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: rc, n: &gcCount}, nil
	}}
	defer gcPool.Close()
	gc := work.NewClient(snapNS, gcPool)
	var gcPools, gcQueues int
	gocraft := func() error {
		hb, err := gc.WorkerPoolHeartbeats()
		if err != nil {
			return err
		}
		qs, err := gc.Queues()
		gcPools, gcQueues = len(hb), len(qs)
		return err
	}

	// Warm up, and check that each reads what was loaded.
	for _, f := range []func() error{raw, ours, gocraft} {
		timeIt(t, "warm-up", f)
	}
	var inProg int64
	for _, p := range snap.Pools {
		inProg += p.InProgressTotal()
	}
	if len(snap.Pools) != sz.pools || len(snap.JobTypes) != sz.jobTypes || inProg != int64(l.inProg) {
		t.Fatalf("snapshot read %d pools, %d job types, %d in progress; loaded %d, %d, %d",
			len(snap.Pools), len(snap.JobTypes), inProg, sz.pools, sz.jobTypes, l.inProg)
	}
	for _, jt := range snap.JobTypes {
		if jt.Drift {
			t.Fatalf("job type %s shows drift on consistent data", jt.Name)
		}
	}
	if gcPools != sz.pools || gcQueues != sz.jobTypes {
		t.Fatalf("gocraft/work read %d pools, %d queues", gcPools, gcQueues)
	}

	// Each round is A B B A (raw, ours, ours, raw; the same for gocraft/work)
	// and its ratio is taken within it, so that load from other processes
	// on the machine, and its drift, moves both sides of a ratio alike; the
	// table shows the median round.
	var tRaw, tOurs, tGC, pairOurs, pairGC []time.Duration
	for i := 0; i < sz.rounds; i++ {
		r1 := timeIt(t, "raw batch", raw)
		o1 := timeIt(t, "snapshot", ours)
		o2 := timeIt(t, "snapshot", ours)
		r2 := timeIt(t, "raw batch", raw)
		g1 := timeIt(t, "gocraft/work client", gocraft)
		o3 := timeIt(t, "snapshot", ours)
		g2 := timeIt(t, "gocraft/work client", gocraft)
		tRaw, tOurs, tGC = append(tRaw, r1, r2), append(tOurs, o1, o2, o3), append(tGC, g1, g2)
		pairOurs = append(pairOurs, ratioOf(o1+o2, r1+r2))
		pairGC = append(pairGC, ratioOf(2*o3, g1+g2))
	}
	// CPU time, which waiting for a busy machine does not inflate: this
	// process's (getrusage) and redis-server's (INFO cpu), over a few more
	// runs of each.
	cpuConn := e.dial()
	var cpuOurs, cpuRaw [2]time.Duration
	cpuRounds := sz.rounds/2 + 1 // each runs both twice
	for i := 0; i < cpuRounds; i++ {
		for _, x := range []struct {
			f   func() error
			acc *[2]time.Duration
		}{{raw, &cpuRaw}, {ours, &cpuOurs}, {ours, &cpuOurs}, {raw, &cpuRaw}} {
			c0, s0 := processCPU(t), serverCPU(t, cpuConn)
			timeIt(t, "cpu round", x.f)
			c1, s1 := processCPU(t), serverCPU(t, cpuConn)
			x.acc[0] += c1 - c0
			x.acc[1] += s1 - s0
		}
	}
	// The loop is slow: each run sits between two snapshots.
	var tLoop, pairLoop []time.Duration
	for i := 0; i < sz.loopRounds; i++ {
		o1 := timeIt(t, "snapshot", ours)
		l := timeIt(t, "per-key loop", func() error { return runLoop(c, cmds) })
		o2 := timeIt(t, "snapshot", ours)
		tLoop = append(tLoop, l)
		pairLoop = append(pairLoop, ratioOf(2*l, o1+o2))
	}

	// Commands and round trips: counted by the client and by Redis.
	var oursCount counter
	cc := &countingConn{Conn: c, n: &oursCount}
	before := serverCalls(t, c)
	if _, err := redisq.ReadSnapshot(ctx, cc, snapNS, model.DefaultDeadAfter); err != nil {
		t.Fatal(err)
	}
	oursServer := serverCalls(t, c) - before
	before = serverCalls(t, c)
	if err := raw(); err != nil {
		t.Fatal(err)
	}
	rawServer := serverCalls(t, c) - before
	gcCount = counter{}
	before = serverCalls(t, c)
	if err := gocraft(); err != nil {
		t.Fatal(err)
	}
	gcServer := serverCalls(t, c) - before
	if int64(oursCount.commands) != oursServer || int64(len(cmds)) != rawServer {
		t.Fatalf("client and server disagree on the commands: ours %d/%d, raw %d/%d", oursCount.commands, oursServer, len(cmds), rawServer)
	}

	// The whole process, output included, against its physical limit: the
	// raw batch and, at the same time on a second connection, a raw walk of
	// the in-progress keys with SCAN (what the process's orphan scan
	// does), both done.
	scanConn := e.dial()
	rawScan := func() error {
		errc := make(chan error, 1)
		go func() { errc <- scanWalk(scanConn, snapNS) }()
		err := raw()
		if serr := <-errc; err == nil {
			err = serr
		}
		return err
	}
	// The floor's namespace holds one job name and nothing else: a namespace
	// with no key at all is a finding, whose search of the keyspace for the
	// namespaces that exist is not part of the floor.
	if _, err := scanConn.Do("SADD", "empty:known_jobs", "floor"); err != nil {
		t.Fatal(err)
	}
	var tProc, pairProc, tEmpty, tStart, tRawScan []time.Duration
	var outBytes int
	// Minor page faults of each process (the kernel's count), medians below.
	var fProc, fEmpty, fStart []int64
	for i := 0; i < sz.procRuns; i++ {
		r := timeIt(t, "raw batch and SCAN walk", rawScan)
		var out bytes.Buffer
		tProc = append(tProc, timeIt(t, "workq-tui snapshot --json", func() error {
			cmd := exec.Command(e.bin, "--redis", e.srv.Addr(), "--namespace", snapNS, "snapshot", "--json")
			cmd.Stdout = &out
			var ee *exec.ExitError
			if err := cmd.Run(); err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 3) {
				return err
			}
			fProc = append(fProc, minorFaults(cmd))
			return nil
		}))
		r2 := timeIt(t, "raw batch and SCAN walk", rawScan)
		tRawScan = append(tRawScan, r, r2)
		// The floor of any process: the same command on an empty namespace.
		tEmpty = append(tEmpty, timeIt(t, "workq-tui snapshot --json (empty namespace)", func() error {
			cmd := exec.Command(e.bin, "--redis", e.srv.Addr(), "--namespace", "empty", "snapshot", "--json")
			cmd.Stdout = io.Discard
			err := cmd.Run()
			fEmpty = append(fEmpty, minorFaults(cmd))
			return err
		}))
		// Start-up alone: a command that reads nothing.
		tStart = append(tStart, timeIt(t, "workq-tui version", func() error {
			cmd := exec.Command(e.bin, "version")
			cmd.Stdout = io.Discard
			err := cmd.Run()
			fStart = append(fStart, minorFaults(cmd))
			return err
		}))
		// The baseline pays the floor of any command, a process of the
		// binary that reads nothing, as 7a's does: the line measures the
		// command's work, not that it runs as a process (exec and Go's
		// start-up alone were 0.55x of the raw reads, past the goal's
		// margin before the command did anything).
		start := tStart[len(tStart)-1]
		pairProc = append(pairProc, ratioOf(2*tProc[len(tProc)-1], r+r2+2*start))
		outBytes = out.Len()
		if !bytes.Contains(out.Bytes(), []byte(`"orphans"`)) || bytes.Count(out.Bytes(), []byte(`"heartbeat_at"`)) != sz.pools {
			t.Fatalf("snapshot --json printed %d bytes without every pool", out.Len())
		}
	}

	// The orphan scan alone, in process, between two raw batches: the
	// process of 1b runs it next to the snapshot, and Redis, one thread,
	// serves both in turn, so its Redis time adds to the batch's.
	var pairScan, tScan []time.Duration
	for i := 0; i < sz.procRuns; i++ {
		r := timeIt(t, "raw batch", raw)
		s := timeIt(t, "orphan scan", func() error {
			_, err := redisq.ScanOrphans(ctx, c, redisq.NewKeys(snapNS), redisq.DefaultScanCount, nil)
			return err
		})
		r2 := timeIt(t, "raw batch", raw)
		tScan = append(tScan, s)
		pairScan = append(pairScan, ratioOf(2*s, r+r2))
	}

	mRaw, mOurs, mGC, mLoop, mProc := median(tRaw), median(tOurs), median(tGC), median(tLoop), median(tProc)
	e.rawMedian = mRaw
	tb := e.tb
	tb.atMost("1a", "snapshot in process / raw pipelined batch", ratioValue(median(pairOurs)), 1.3,
		fmt.Sprintf("median of %d paired rounds; ours %s in %d round trips, raw batch %s in 1 (medians)", len(pairOurs), ms(mOurs), oursCount.roundTrips, ms(mRaw)))
	tb.info("1g", "CPU time (workq-tui + Redis): snapshot / raw batch", float64(cpuOurs[0]+cpuOurs[1])/float64(cpuRaw[0]+cpuRaw[1]),
		fmt.Sprintf("client %.2fx, Redis %.2fx (%s + %s vs %s + %s per run)",
			float64(cpuOurs[0])/float64(cpuRaw[0]), float64(cpuOurs[1])/float64(cpuRaw[1]),
			ms(cpuOurs[0]/time.Duration(2*cpuRounds)), ms(cpuOurs[1]/time.Duration(2*cpuRounds)),
			ms(cpuRaw[0]/time.Duration(2*cpuRounds)), ms(cpuRaw[1]/time.Duration(2*cpuRounds))))
	fault := pageFaultCost(t)
	faultTime := func(n int64) string { return ms(time.Duration(n) * fault) }
	tb.atMost("1b", "`snapshot --json` process / (raw batch + raw SCAN walk + `workq-tui version`)", ratioValue(median(pairProc)), 2,
		fmt.Sprintf("median of %d paired runs; process %s (exec, connect, snapshot, orphan scan, %d KB JSON; %d minor page faults, about %s at 1j's cost) vs %s (raw batch, and SCAN MATCH %s:jobs:*:inprogress COUNT %d on a second connection at the same time) + %s (start-up, 1f)",
			len(pairProc), ms(mProc), outBytes>>10, median(fProc), faultTime(median(fProc)), ms(median(tRawScan)), snapNS, redisq.DefaultScanCount, ms(median(tStart))))
	tb.info("1f", "`snapshot --json` on an empty namespace / raw batch", float64(median(tEmpty))/float64(mRaw),
		fmt.Sprintf("%s (%d page faults): exec, Go start-up, connect and the orphan scan's walk of the whole keyspace, the floor under 1b on this machine; start-up alone (`workq-tui version`) %s (%d page faults)",
			ms(median(tEmpty)), median(fEmpty), ms(median(tStart)), median(fStart)))
	tb.info("1j", "first touch of a fresh 4 KB page / raw batch", float64(fault)/float64(mRaw),
		fmt.Sprintf("%s a page: anonymous memory mapped and written once a page, 64 MB, median of 3; what a process pays for each page of memory it touches first (its heap, its stacks, the pages of its binary)",
			fault))
	tb.info("1h", "orphan scan in process / raw batch", ratioValue(median(pairScan)),
		fmt.Sprintf("median of %d paired runs; %s: SCAN over the whole keyspace, in 1b next to the snapshot on the one Redis thread, and in 1f", len(pairScan), ms(median(tScan))))
	tb.atLeast("1c", "per-key loop / snapshot (speed-up)", ratioValue(median(pairLoop)), 20,
		fmt.Sprintf("median of %d runs between two snapshots; loop %s in %d round trips (one per key, like upstream's reaper)", len(pairLoop), ms(mLoop), len(cmds)))
	tb.atMost("1d", "Redis commands: snapshot / raw batch", float64(oursServer)/float64(rawServer), 1,
		fmt.Sprintf("%d vs %d commands (INFO commandstats deltas; client count agrees)", oursServer, rawServer))
	tb.info("1e", "snapshot / gocraft/work Client (time)", ratioValue(median(pairGC)),
		fmt.Sprintf("gocraft WorkerPoolHeartbeats+Queues %s, %d round trips, %d commands (reads no in-progress lists or locks)",
			ms(mGC), gcCount.roundTrips, gcServer))
}

const reapPool = "deadbeefdeadbeefdeadbeef"

var reapJobTypes = []string{"send_email", "resize_image", "charge_card", "import:batch"}

// loadDeadPool writes one dead pool holding n jobs in progress over
// reapJobTypes, with lock and lock_info to match.
func loadDeadPool(t *testing.T, c redis.Conn, ns string, n int) {
	k := redisq.NewKeys(ns)
	now := time.Now().Unix()
	b := &bulk{t: t, c: c}
	b.send("SADD", k.WorkerPools(), reapPool)
	b.send("HSET", k.Heartbeat(reapPool), "heartbeat_at", now-600, "started_at", now-7200,
		"job_names", "charge_card,import:batch,resize_image,send_email", "concurrency", 10,
		"worker_ids", "aaaaaaaaaaaaaaaaaaaaaaaa", "host", "worker-001.prod.internal", "pid", 4242)
	per := n / len(reapJobTypes)
	for ji, j := range reapJobTypes {
		cnt := per
		if ji == 0 {
			cnt += n - per*len(reapJobTypes)
		}
		b.send("SADD", k.KnownJobs(), j)
		b.send("SET", k.Lock(j), cnt)
		b.send("HSET", k.LockInfo(j), reapPool, cnt)
		for i := 0; i < cnt; i += 1000 {
			args := []any{k.InProgress(j, reapPool)}
			for x := i; x < min(i+1000, cnt); x++ {
				args = append(args, jobJSON(j, strconv.Itoa(x), now-60, x))
			}
			b.send("RPUSH", args...)
		}
	}
	b.flush()
}

// 2. The reap of one dead pool's jobs: ours against upstream's loop.
func (e *env) reap() {
	t, n := e.t, e.sz.reapJobs
	c := e.dial()
	ctx := context.Background()
	loadDeadPool(t, c, "reap-up", n)
	loadDeadPool(t, c, "reap-us", n)

	// Upstream: one script call per job, then the stale locks (the project's
	// reference scripts for upstream's steps, internal/upstreamref).
	k := redisq.NewKeys("reap-up")
	requeue := redis.NewScript(upstreamref.ReenqueueKeysPerJob*len(reapJobTypes), upstreamref.ReenqueueOne)
	locks := redis.NewScript(2*len(reapJobTypes), upstreamref.ReapStaleLocks)
	var reqArgs, lockArgs []any
	for _, j := range reapJobTypes {
		reqArgs = append(reqArgs, k.InProgress(j, reapPool), k.Queue(j), k.Lock(j), k.LockInfo(j))
		lockArgs = append(lockArgs, k.Lock(j), k.LockInfo(j))
	}
	reqArgs = append(reqArgs, reapPool)
	lockArgs = append(lockArgs, reapPool)
	var upLongest time.Duration
	upCalls := 0
	upTime := timeIt(t, "upstream reap", func() error {
		for {
			t0 := time.Now()
			v, err := requeue.Do(c, reqArgs...)
			upLongest = max(upLongest, time.Since(t0))
			upCalls++
			if err != nil {
				return err
			}
			if v == nil {
				break
			}
		}
		if _, err := c.Do("DEL", k.Heartbeat(reapPool)); err != nil {
			return err
		}
		if _, err := c.Do("SREM", k.WorkerPools(), reapPool); err != nil {
			return err
		}
		_, err := locks.Do(c, lockArgs...)
		upCalls++
		return err
	})

	// Ours: plan from a snapshot, then execute in batches; SLOWLOG times
	// every script call inside Redis.
	snap, err := redisq.ReadSnapshot(ctx, c, "reap-us", model.DefaultDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := reaper.NewPlan(snap, reaper.Targets{AllDead: true})
	if err != nil {
		t.Fatal(err)
	}
	r := reaper.NewReaper(redisq.OneConn(c), "reap-us", reaper.DefaultBatch)
	var usLongest time.Duration
	usCalls := 0
	r.Observe = func(d time.Duration) { usCalls++; usLongest = max(usLongest, d) }
	for _, a := range [][]any{{"slowlog-log-slower-than", 0}, {"slowlog-max-len", 100000}} {
		if _, err := c.Do("CONFIG", append([]any{"SET"}, a...)...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Do("SLOWLOG", "RESET"); err != nil {
		t.Fatal(err)
	}
	var res reaper.Result
	usTime := timeIt(t, "workq-tui reap", func() error {
		var err error
		res, err = r.Reap(ctx, plan, nil)
		return err
	})
	slow := longestScript(t, c)
	for _, a := range [][]any{{"slowlog-log-slower-than", 10000}, {"slowlog-max-len", 128}} {
		if _, err := c.Do("CONFIG", append([]any{"SET"}, a...)...); err != nil {
			t.Fatal(err)
		}
	}
	if res.TotalMoved() != int64(n) {
		t.Fatalf("workq-tui reaped %d jobs, want %d", res.TotalMoved(), n)
	}
	for _, ns := range []string{"reap-up", "reap-us"} {
		k := redisq.NewKeys(ns)
		queued := 0
		for _, j := range reapJobTypes {
			m, _ := redis.Int(c.Do("LLEN", k.Queue(j)))
			queued += m
			if l, _ := redis.Int(c.Do("GET", k.Lock(j))); l != 0 {
				t.Fatalf("%s: lock of %s is %d after the reap", ns, j, l)
			}
		}
		if in, _ := redis.Bool(c.Do("SISMEMBER", k.WorkerPools(), reapPool)); queued != n || in {
			t.Fatalf("%s: %d jobs queued after the reap (want %d), pool still in the set: %v", ns, queued, n, in)
		}
	}
	e.tb.atLeast("2a", fmt.Sprintf("reap %d jobs: upstream loop / ours (speed-up)", n), float64(upTime)/float64(usTime), 10,
		fmt.Sprintf("ours %s in %d script calls (batch %d), upstream-style %s in %d calls (one per job)",
			ms(usTime), usCalls, reaper.DefaultBatch, ms(upTime), upCalls))
	e.tb.info("2b", "longest script call / raw snapshot batch", float64(slow)/float64(e.rawMedian),
		fmt.Sprintf("ours: longest call %s inside Redis (SLOWLOG), %s seen by the client; upstream's longest %s",
			ms(slow), ms(usLongest), ms(upLongest)))
}

// slowScripts reads the slow log: the longest EVAL/EVALSHA and how many
// there are.
func slowScripts(t *testing.T, c redis.Conn) (time.Duration, int) {
	calls := scriptCalls(t, c)
	return calls[len(calls)-1], len(calls)
}

// scriptCalls are the times of the EVAL/EVALSHA calls in the slow log,
// shortest first; the test fails when there is none.
func scriptCalls(t *testing.T, c redis.Conn) []time.Duration {
	entries, err := redis.Values(c.Do("SLOWLOG", "GET", -1))
	if err != nil {
		t.Fatal(err)
	}
	var calls []time.Duration
	for _, en := range entries {
		f, err := redis.Values(en, nil)
		if err != nil || len(f) < 4 {
			continue
		}
		us, _ := redis.Int64(f[2], nil)
		args, _ := redis.Strings(f[3], nil)
		if len(args) > 0 && strings.HasPrefix(strings.ToUpper(args[0]), "EVAL") {
			calls = append(calls, time.Duration(us)*time.Microsecond)
		}
	}
	if len(calls) == 0 {
		t.Fatal("no script call in the slow log")
	}
	slices.Sort(calls)
	return calls
}

// percentile is the p-th percentile (0 < p <= 100) of sorted: the least
// value at least p% of them do not exceed.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// longestScript is the longest EVAL/EVALSHA in the slow log (see
// slowScripts).
func longestScript(t *testing.T, c redis.Conn) time.Duration {
	longest, _ := slowScripts(t, c)
	return longest
}

// staticSource hands the screen one snapshot.
type staticSource struct{ snap *model.Snapshot }

func (s staticSource) Poll(context.Context, redisq.PollRequest) (*model.Snapshot, error) {
	return s.snap, nil
}

// 3. The screen: Update and View at 200x60 over a big snapshot, and the
// resident memory of the real program holding it.
func (e *env) screen() {
	t, sz := e.t, e.sz
	c := e.dial()
	loadNamespace(t, c, nsSpec{ns: screenNS, pools: sz.screenPools, jobTypes: sz.jobTypes, listsPerPool: 2,
		deadEvery: 40, queued: 20})
	snap, err := redisq.ReadSnapshot(context.Background(), c, screenNS, model.DefaultDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Pools) != sz.screenPools {
		t.Fatalf("screen snapshot has %d pools", len(snap.Pools))
	}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.TrueColor)
	now := snap.RedisTime.Add(time.Second)
	m := tui.New(tui.Options{Address: e.srv.Addr(), Namespace: screenNS, Interval: time.Hour,
		Now: func() time.Time { return now }, Renderer: r, Reads: tui.Reads{Poll: staticSource{snap}}})
	var model tea.Model = m
	model, _ = model.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	batch, ok := m.Init()().(tea.BatchMsg)
	if !ok || len(batch) == 0 {
		t.Fatal("Init does not start with a poll")
	}
	snapMsg := batch[0]() // the first poll; the second command is the clock
	if name := fmt.Sprintf("%T", snapMsg); name != "tui.snapshotMsg" {
		t.Fatalf("Init's first command returned a %s, not the snapshot", name)
	}
	model, _ = model.Update(snapMsg)
	if v := model.View(); !strings.Contains(v, fmt.Sprintf("%d pools", sz.screenPools)) {
		t.Fatalf("the screen does not show %d pools:\n%s", sz.screenPools, v)
	}
	keys := []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("j")}, {Type: tea.KeyRunes, Runes: []rune("k")}}
	bench := func(f func(i int)) testing.BenchmarkResult {
		return testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				f(i)
			}
		})
	}
	view := bench(func(int) { _ = model.View() })
	key := bench(func(i int) {
		model, _ = model.Update(keys[(i/50)%2])
		_ = model.View()
	})
	poll := bench(func(int) {
		model, _ = model.Update(snapMsg)
		_ = model.View()
	})
	per := func(b testing.BenchmarkResult) time.Duration { return time.Duration(b.NsPerOp()) }
	alloc := func(b testing.BenchmarkResult) string {
		return fmt.Sprintf("%d allocs, %d KB per frame", b.AllocsPerOp(), b.AllocedBytesPerOp()>>10)
	}
	e.tb.atMost("3a", "View() / 16 ms frame", float64(per(view))/float64(frame), 1,
		fmt.Sprintf("%s, %s (%d pools, 200x60)", ms(per(view)), alloc(view), sz.screenPools))
	e.tb.atMost("3b", "Update(key j/k) + View() / 16 ms frame", float64(per(key))/float64(frame), 1,
		fmt.Sprintf("%s, %s", ms(per(key)), alloc(key)))
	e.tb.atMost("3c", "Update(snapshot) + View() / 16 ms frame", float64(per(poll))/float64(frame), 1,
		fmt.Sprintf("%s, %s", ms(per(poll)), alloc(poll)))

	want := 5
	if sz.smoke {
		want = 1
	}
	rss, hwm, polls := e.screenRSS(screenRun{ns: screenNS, pools: sz.screenPools, polls: want})
	e.tb.atMost("3d", "resident memory of the screen / 100 MB", float64(hwm)/rssLimit, 1,
		fmt.Sprintf("peak %d MB (VmHWM), now %d MB (VmRSS), real binary in tmux 200x60 after %d polls of %d pools",
			hwm>>20, rss>>20, polls, sz.screenPools))
}

// screenRun is one run of the built binary for screenRSS.
type screenRun struct {
	ns    string
	pools int
	// polls is how many polls to wait for after the first screen.
	polls int
	// args are more flags of the binary.
	args []string
	// swept: wait also until the header says a full sweep has ended.
	swept bool
	// shows are texts the screen must show at the end.
	shows []string
	// tick, when set, runs every 100 ms while it waits (to keep the
	// heartbeats fresh).
	tick func()
}

// screenRSS runs the built binary in a tmux pane of 200x60 (--interval
// 500ms) against a namespace, waits for its polls (and sweep), and reads its
// memory from /proc. polls is how many polls it counted after the first
// screen.
func (e *env) screenRSS(run screenRun) (rss, hwm int64, polls int) {
	t := e.t
	dir := t.TempDir()
	argv := append([]string{e.bin, "--redis", e.srv.Addr(), "--namespace", run.ns,
		"--interval", "500ms", "--audit-log", filepath.Join(dir, "audit.log")}, run.args...)
	screen := redistest.StartTmux(t, 200, 60, nil, argv...)
	defer screen.Kill()
	tick := func() {
		if run.tick != nil {
			run.tick()
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	first := fmt.Sprintf("%d pools", run.pools)
	for time.Now().Before(deadline) {
		if s := screen.Screen(); strings.Contains(s, first) || strings.Contains(s, "EXITED ") {
			break
		}
		tick()
		time.Sleep(100 * time.Millisecond)
	}
	screen.WaitText(time.Second, first)
	pid := screen.PID()
	// Count polls by the Redis commands the pane's client sends: each poll
	// reads TIME once (a sweep too, but the first starts with the first
	// poll and the next only a sweep interval, 30s by default, after it
	// ends).
	c := e.dial()
	timeCalls := func() int64 {
		s, _ := redis.String(c.Do("INFO", "commandstats"))
		for _, l := range strings.Split(s, "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "cmdstat_time:calls="); ok {
				n, _ := strconv.ParseInt(strings.SplitN(rest, ",", 2)[0], 10, 64)
				return n
			}
		}
		return 0
	}
	start := timeCalls()
	done := func() bool {
		return timeCalls()-start >= int64(run.polls) && (!run.swept || strings.Contains(screen.Screen(), "swept "))
	}
	deadline = time.Now().Add(120 * time.Second)
	for !done() && time.Now().Before(deadline) {
		tick()
		time.Sleep(100 * time.Millisecond)
	}
	if run.swept {
		screen.WaitText(time.Second, "swept ")
	}
	screen.WaitText(time.Second, run.shows...)
	polls = int(timeCalls()-start) + 1
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read the screen's memory: %v", err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			hwm = kb << 10
		}
	}
	if rss == 0 || hwm == 0 {
		t.Fatalf("no VmRSS/VmHWM for pid %d", pid)
	}
	return rss, hwm, polls
}

// 4. The orphan scan over many unrelated keys, and the poll while it runs.
func (e *env) orphans() {
	t, sz := e.t, e.sz
	c := e.dial()
	if _, err := c.Do("DEBUG", "POPULATE", sz.noiseKeys, "noise"); err != nil {
		t.Fatalf("DEBUG POPULATE: %v", err)
	}
	keys := redisq.NewKeys(snapNS)
	ctx := context.Background()
	scanConn := e.dial()
	var longest time.Duration
	var res redisq.OrphanResult
	scanTime := timeIt(t, "orphan scan", func() error {
		s := redisq.NewOrphanScan(keys, redisq.DefaultScanCount)
		for !s.Done() {
			t0 := time.Now()
			if _, err := s.Step(ctx, scanConn); err != nil {
				return err
			}
			longest = max(longest, time.Since(t0))
		}
		var err error
		res, err = s.Finish(ctx, scanConn)
		return err
	})
	if len(res.Orphans) != 10 {
		t.Fatalf("the scan found %d orphans, want 10", len(res.Orphans))
	}

	// The poll alone, while the screen's scan runs (paced: after each step
	// it waits model.ScanPause of the step's time, so it holds Redis at most
	// a quarter of the time), and while a scan runs back to back with no
	// pause, as the one-shot snapshot command runs it. The three modes
	// take turns poll by poll, so that load from other processes hits them
	// alike; each poll's ratio is taken against the mean of the two polls
	// alone around it.
	const (
		modeOff = iota
		modeBackToBack
		modePaced
	)
	var mode, idle atomic.Int32
	var steps atomic.Int64
	stop := make(chan struct{})
	scanErr := make(chan error, 1)
	go func() {
		s := redisq.NewOrphanScan(keys, redisq.DefaultScanCount)
		for {
			select {
			case <-stop:
				scanErr <- nil
				return
			default:
			}
			m := mode.Load()
			if m == modeOff {
				idle.Store(1)
				time.Sleep(200 * time.Microsecond)
				continue
			}
			idle.Store(0)
			if s.Done() {
				if _, err := s.Finish(ctx, scanConn); err != nil {
					scanErr <- err
					return
				}
				s = redisq.NewOrphanScan(keys, redisq.DefaultScanCount)
			}
			t0 := time.Now()
			if _, err := s.Step(ctx, scanConn); err != nil {
				scanErr <- err
				return
			}
			steps.Add(1)
			if m == modePaced {
				time.Sleep(model.ScanPause(time.Since(t0)))
			}
		}
	}()
	setMode := func(m int32) {
		mode.Store(m)
		if m == modeOff {
			for idle.Load() == 0 {
				time.Sleep(100 * time.Microsecond)
			}
		} else {
			time.Sleep(5 * time.Millisecond) // the scan is under way
		}
	}
	poll := func() time.Duration {
		return timeIt(t, "poll", func() error {
			_, err := redisq.ReadSnapshot(ctx, c, snapNS, model.DefaultDeadAfter)
			return err
		})
	}
	var alone, during, paced, pairDuring, pairPaced []time.Duration
	prev := poll()
	for i := 0; i < sz.scanPolls; i++ {
		setMode(modeBackToBack)
		d := poll()
		setMode(modeOff)
		a := poll()
		setMode(modePaced)
		p := poll()
		setMode(modeOff)
		a2 := poll()
		alone, during, paced = append(alone, prev, a), append(during, d), append(paced, p)
		pairDuring = append(pairDuring, ratioOf(2*d, prev+a))
		pairPaced = append(pairPaced, ratioOf(2*p, a+a2))
		prev = a2
	}
	close(stop)
	if err := <-scanErr; err != nil {
		t.Fatal(err)
	}
	mAlone, mDuring := median(alone), median(during)
	e.tb.info("4a", fmt.Sprintf("orphan scan over %dk other keys / raw batch", sz.noiseKeys/1000), float64(scanTime)/float64(e.rawMedian),
		fmt.Sprintf("%s in %d SCAN calls of COUNT %d, longest step %s (%.1f%% of the scan); %d orphans found",
			ms(scanTime), res.Calls, redisq.DefaultScanCount, ms(longest), 100*float64(longest)/float64(scanTime), len(res.Orphans)))
	e.tb.atMost("4b", "poll during the screen's paced scan / poll alone", ratioValue(median(pairPaced)), 1.25,
		fmt.Sprintf("median of %d polls, each between two alone; %s vs %s (medians); the scan pauses %dx each step's time (model.ScanPace), on its own connection",
			len(pairPaced), ms(median(paced)), ms(mAlone), model.ScanPace))
	e.tb.info("4c", "poll during an unpaced scan / poll alone", ratioValue(median(pairDuring)),
		fmt.Sprintf("median of %d; %s; SCAN steps back to back (%d steps in all), as the one-shot snapshot command runs them next to its own read",
			len(pairDuring), ms(mDuring), steps.Load()))
}

// TestBenchSmoke runs the whole driver at tiny sizes: every line must be
// produced. Goals are not checked (tiny sizes and -race say nothing about
// speed).
// minorFaults is the minor page faults of a process that ended.
func minorFaults(cmd *exec.Cmd) int64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Minflt
	}
	return 0
}

// pageFaultCost is the time of one first touch of a fresh anonymous page:
// 64 MB mapped and written once a page, median of three.
func pageFaultCost(t *testing.T) time.Duration {
	const size = 64 << 20
	page := os.Getpagesize()
	var runs []time.Duration
	for i := 0; i < 3; i++ {
		b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		for off := 0; off < size; off += page {
			b[off] = 1
		}
		runs = append(runs, time.Since(t0)/time.Duration(size/page))
		if err := syscall.Munmap(b); err != nil {
			t.Fatal(err)
		}
	}
	return median(runs)
}

func TestBenchSmoke(t *testing.T) {
	tb := runBench(t, smokeSizes)
	var b strings.Builder
	tb.write(&b)
	t.Log("\n" + b.String())
	ids := map[string]bool{}
	for _, l := range tb.lines {
		if ids[l.id] {
			t.Errorf("line id %s is used twice (%q)", l.id, l.what)
		}
		ids[l.id] = true
		if !(l.ratio > 0) {
			t.Errorf("line %s %q has ratio %v", l.id, l.what, l.ratio)
		}
	}
	for _, id := range []string{"1a", "1b", "1c", "1d", "1e", "1f", "1g", "1h", "1i", "1j", "2a", "2b", "3a", "3b", "3c", "3d", "4a", "4b", "4c", "5a", "5b", "5c", "5d", "5e", "5f", "5g", "5h", "5i", "5j", "6a", "6b", "6c", "6d", "6e", "6f", "7a", "7b", "7c", "7d", "8a", "8b", "9a", "9b", "9c", "9d", "10a", "10b"} {
		if !ids[id] {
			t.Errorf("line %s missing from the table", id)
		}
	}
}
