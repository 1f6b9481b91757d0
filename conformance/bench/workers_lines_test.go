package bench_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

const workersNS = "benchworkers"

// TestBenchWorkers is the workers line of `make bench` on its own: the
// snapshot of pools x job types with 10 workers each, half of them busy,
// against the raw pipelined batch of the same reads, the observations
// included.

// workers adds line 1i: the snapshot of a namespace whose pools name 10
// workers each, half of them busy (an observation hash each, as
// gocraft/work writes it), against the raw batch of every read the
// snapshot makes, HGETALL of every observation included.
func (e *env) workers() {
	t, sz := e.t, e.sz
	c := e.dial()
	l := loadNamespace(t, c, nsSpec{ns: workersNS, pools: sz.pools, jobTypes: sz.jobTypes, listsPerPool: sz.jobTypes, queued: 50})
	loadObservations(t, c, redisq.NewKeys(workersNS), l)
	workerIDs := l.workerIDs
	ctx := context.Background()
	cmds := rawCommands(workersNS, l)

	var snap *model.Snapshot
	ours := func() error {
		var err error
		snap, err = redisq.ReadSnapshot(ctx, c, workersNS, model.DefaultDeadAfter)
		return err
	}
	raw := func() error { return runBatch(c, cmds) }
	timeIt(t, "warm-up", raw)
	timeIt(t, "warm-up", ours)
	busy := 0
	for _, w := range snap.Workers {
		if w.Busy {
			busy++
		}
	}
	if len(snap.Workers) != len(workerIDs) || busy != len(workerIDs)/2 || len(snap.Pools) != sz.pools {
		t.Fatalf("snapshot read %d workers (%d busy) of %d pools; loaded %d (%d busy) of %d",
			len(snap.Workers), busy, len(snap.Pools), len(workerIDs), len(workerIDs)/2, sz.pools)
	}

	// A B B A rounds, the ratio taken within each (see the snapshot
	// section).
	var tRaw, tOurs, pair []time.Duration
	for i := 0; i < sz.rounds; i++ {
		r1 := timeIt(t, "raw batch", raw)
		o1 := timeIt(t, "snapshot", ours)
		o2 := timeIt(t, "snapshot", ours)
		r2 := timeIt(t, "raw batch", raw)
		tRaw, tOurs = append(tRaw, r1, r2), append(tOurs, o1, o2)
		pair = append(pair, ratioOf(o1+o2, r1+r2))
	}
	var count counter
	if _, err := redisq.ReadSnapshot(ctx, &countingConn{Conn: c, n: &count}, workersNS, model.DefaultDeadAfter); err != nil {
		t.Fatal(err)
	}
	e.tb.atMost("1i", "snapshot with workers in process / raw batch with the observations", ratioValue(median(pair)), 1.3,
		fmt.Sprintf("median of %d paired rounds; %d pools x %d job types, %d workers (%d busy); ours %s in %d round trips, %d commands; raw %s in 1, %d commands",
			len(pair), sz.pools, sz.jobTypes, len(workerIDs), busy, ms(median(tOurs)), count.roundTrips, count.commands, ms(median(tRaw)), len(cmds)))
}

// loadObservations writes an observation for every other worker the
// heartbeats name, as gocraft/work's observer does (HSET and EXPIRE).
func loadObservations(t *testing.T, c redis.Conn, k redisq.Keys, l loaded) {
	t.Helper()
	b := &bulk{t: t, c: c}
	now := time.Now().Unix()
	for i, id := range l.workerIDs {
		if i%2 != 0 {
			continue
		}
		job := l.jobNames[i%len(l.jobNames)]
		key := k.Prefix() + "worker:" + id
		b.send("HSET", key, "job_name", job, "job_id", fmt.Sprintf("%024x", i), "started_at", now-int64(i%900),
			"args", fmt.Sprintf(`{"account_id":%d,"email":"user%d@example.com","template":"welcome_v2"}`, 100000+i, i))
		b.send("EXPIRE", key, 86400)
	}
	b.flush()
}
