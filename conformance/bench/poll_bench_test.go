package bench_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// pollNS is the namespace of the screen's regular poll: 2 jobs in progress
// per pool, 1% of the pools dead.
const pollNS = "poll"

// pollSizes are the namespaces of section 5: the screen's cheap poll
// against the full raw batch.
type pollSizes struct {
	pools, jobTypes int
	// cpuPolls is how many polls (and raw batches) the Redis CPU is
	// summed over; delayPolls how many polls are timed with and without
	// the paced sweep.
	cpuPolls, delayPolls int
}

// pollNamespace loads a poll namespace and returns it with a function
// that rewrites the live pools' heartbeats (the bench calls it between
// measurements, outside them, so the live pools stay alive and the dead
// stay dead).
func (e *env) pollNamespace(ns string, ps pollSizes) (loaded, func()) {
	t := e.t
	c := e.dial()
	l := loadNamespace(t, c, nsSpec{ns: ns, pools: ps.pools, jobTypes: ps.jobTypes, listsPerPool: 2, deadEvery: 100, queued: 50})
	snap, err := redisq.ReadSnapshot(context.Background(), c, ns, model.DefaultDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, p := range snap.Pools {
		if p.Status != model.StatusDead {
			live = append(live, p.ID)
		}
	}
	k := redisq.NewKeys(ns)
	refresh := func() {
		now := time.Now().Unix()
		b := &bulk{t: t, c: c}
		for _, id := range live {
			b.send("HSET", k.Heartbeat(id), "heartbeat_at", now)
		}
		b.flush()
	}
	return l, refresh
}

// scanWalk walks the namespace's in-progress keys as the orphan scan does,
// with nothing else: the raw floor of the scan.
func scanWalk(c redis.Conn, ns string) error {
	cursor := "0"
	for {
		vs, err := redis.Values(c.Do("SCAN", cursor, "MATCH", ns+":jobs:*:inprogress", "COUNT", redisq.DefaultScanCount))
		if err != nil {
			return err
		}
		if cursor, err = redis.String(vs[0], nil); err != nil {
			return err
		}
		if cursor == "0" {
			return nil
		}
	}
}

// 5. The screen's regular poll (redisq.Poller, as the screen runs it on
// every view but Workers: without the workers' observations): commands and
// Redis CPU against the full raw batch (rawCommands: every read of the
// snapshot, the observations included), at 1,000 x 20 and (full run)
// 10,000 x 50; the poll on the Workers view, which reads the
// observations; and the poll while the paced sweep runs.
func (e *env) poll() {
	small := pollSizes{pools: 1000, jobTypes: 20, cpuPolls: 50, delayPolls: 20}
	big := pollSizes{pools: 10000, jobTypes: 50, cpuPolls: 30}
	if e.sz.smoke {
		small = pollSizes{pools: 200, jobTypes: 4, cpuPolls: 4, delayPolls: 3}
		big = pollSizes{pools: 300, jobTypes: 5, cpuPolls: 2}
	}
	e.pollCost("5a", "5b", pollNS, small, 0.35)
	e.sweepDelay(small)
	// 5c's goal keeps the margin of 5b's (0.35x for about 0.24x): the
	// poll's Redis CPU at this size measured 0.10x to 0.12x over runs of
	// the same reads, and a goal of 0.10x flipped between them.
	e.pollCost("", "5c", pollNS+"-big", big, 0.15)
}

// pollCost adds the commands line (cmdID, when not empty) and the Redis
// CPU line of one namespace size.
func (e *env) pollCost(cmdID, cpuID, ns string, ps pollSizes, cpuGoal float64) {
	t := e.t
	c := e.dial()
	ctx := context.Background()
	l, refresh := e.pollNamespace(ns, ps)
	cmds := rawCommands(ns, l)
	raw := func() error { return runBatch(c, cmds) }
	// The screen's poller: after the first poll it reads heartbeat_at
	// alone of the heartbeats it knows (each whole once every 16 polls).
	poller := redisq.NewPoller(redisq.NewClient(redisq.OneConn(c), ns, 0))
	var snap *model.Snapshot
	poll := func() error {
		var err error
		snap, err = poller.Poll(ctx, redisq.PollRequest{})
		return err
	}
	refresh()
	timeIt(t, "poll", poll)
	var inProg int64
	for _, p := range snap.Pools {
		inProg += p.InProgressTotal()
	}
	if dead := len(snap.DeadPools()); dead != ps.pools/100 || inProg != int64(l.inProg) {
		t.Fatalf("poll read %d dead pools, %d jobs in progress; loaded %d, %d", dead, inProg, ps.pools/100, l.inProg)
	}
	before := serverCalls(t, c)
	timeIt(t, "poll", poll)
	pollCalls := serverCalls(t, c) - before
	if snap.Workers != nil {
		t.Fatal("the regular poll read the workers without being asked")
	}
	before = serverCalls(t, c)
	timeIt(t, "raw batch", raw)
	rawCalls := serverCalls(t, c) - before
	// The poll of the Workers view: the same, and the observations.
	refresh()
	before = serverCalls(t, c)
	timeIt(t, "poll with workers", func() error {
		var err error
		snap, err = poller.Poll(ctx, redisq.PollRequest{Workers: true})
		return err
	})
	workersCalls := serverCalls(t, c) - before
	if len(snap.Workers) != len(l.workerIDs) {
		t.Fatalf("the poll of the Workers view read %d workers; loaded %d", len(snap.Workers), len(l.workerIDs))
	}

	// Redis CPU over cpuPolls of each, in blocks A B B A, the heartbeats
	// rewritten before each run (outside the measure).
	cpuConn := e.dial()
	var cpuPoll, cpuRaw time.Duration
	block := max(1, ps.cpuPolls/2)
	for _, x := range []struct {
		f   func() error
		acc *time.Duration
	}{{raw, &cpuRaw}, {poll, &cpuPoll}, {poll, &cpuPoll}, {raw, &cpuRaw}} {
		for i := 0; i < block; i++ {
			refresh()
			s0 := serverCPU(t, cpuConn)
			timeIt(t, "cpu run", x.f)
			*x.acc += serverCPU(t, cpuConn) - s0
			if dead := len(snap.DeadPools()); dead != ps.pools/100 {
				t.Fatalf("a poll saw %d dead pools, want %d: the heartbeats were not kept fresh", dead, ps.pools/100)
			}
		}
	}
	n := time.Duration(2 * block)
	size := fmt.Sprintf("%d pools x %d job types, 2 jobs in progress per pool, %d dead", ps.pools, ps.jobTypes, ps.pools/100)
	if cmdID != "" {
		e.tb.atMost(cmdID, "Redis commands: regular poll / raw batch", float64(pollCalls)/float64(rawCalls), 0.25,
			fmt.Sprintf("%s: %d vs %d commands (INFO commandstats); the raw batch reads the %d workers' observations, the poll (any view but Workers) does not",
				size, pollCalls, rawCalls, len(l.workerIDs)))
		e.tb.info("5i", "Redis commands: poll of the Workers view / raw batch", float64(workersCalls)/float64(rawCalls),
			fmt.Sprintf("%s: %d vs %d commands (INFO commandstats); the regular poll and one HGETALL per worker, only while the Workers view is shown",
				size, workersCalls, rawCalls))
	}
	e.tb.atMost(cpuID, "Redis CPU: regular poll / raw batch", float64(cpuPoll)/float64(cpuRaw), cpuGoal,
		fmt.Sprintf("%s: %s vs %s per run (INFO used_cpu_sys+used_cpu_user over %d of each)", size, ms(cpuPoll/n), ms(cpuRaw/n), 2*block))
}

// sweepDelay adds the line of the poll during the paced sweep against the
// poll alone (like 4b for the orphan scan).
func (e *env) sweepDelay(ps pollSizes) {
	t := e.t
	c := e.dial()
	sweepConn := e.dial()
	ctx := context.Background()
	_, refresh := e.pollNamespace(pollNS+"-sweep", ps)
	var on, idle atomic.Int32
	var sweeps atomic.Int64
	stop := make(chan struct{})
	sweepErr := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				sweepErr <- nil
				return
			default:
			}
			if on.Load() == 0 {
				idle.Store(1)
				time.Sleep(200 * time.Microsecond)
				continue
			}
			idle.Store(0)
			if _, err := redisq.ReadSweep(ctx, sweepConn, pollNS+"-sweep", model.DefaultDeadAfter, model.ScanPause); err != nil {
				sweepErr <- err
				return
			}
			sweeps.Add(1)
		}
	}()
	set := func(v int32) {
		on.Store(v)
		if v == 0 {
			for idle.Load() == 0 {
				time.Sleep(100 * time.Microsecond)
			}
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
	poller := redisq.NewPoller(redisq.NewClient(redisq.OneConn(c), pollNS+"-sweep", 0))
	poll := func() time.Duration {
		return timeIt(t, "poll", func() error {
			_, err := poller.Poll(ctx, redisq.PollRequest{})
			return err
		})
	}
	refresh()
	var alone, during, pairs []time.Duration
	prev := poll()
	for i := 0; i < ps.delayPolls; i++ {
		refresh()
		set(1)
		d := poll()
		set(0)
		a := poll()
		alone, during = append(alone, prev, a), append(during, d)
		pairs = append(pairs, ratioOf(2*d, prev+a))
		prev = a
	}
	close(stop)
	if err := <-sweepErr; err != nil {
		t.Fatal(err)
	}
	e.tb.atMost("5d", "regular poll during the paced sweep / poll alone", ratioValue(median(pairs)), 1.25,
		fmt.Sprintf("median of %d polls, each between two alone; %s vs %s (medians); %d sweeps, each pausing %dx each step's time, on its own connection",
			len(pairs), ms(median(during)), ms(median(alone)), sweeps.Load(), model.ScanPace))
}
