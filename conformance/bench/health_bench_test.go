package bench_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// healthSizes are the namespace of section 9: the regular poll's
// namespace and a dead set of dead members, recent of them in the last
// hour; runs is how many polls of each kind are timed.
type healthSizes struct {
	pools, jobTypes, dead, recent, runs int
	// polls is how many polls of each kind 9a and 9b take: a poll's
	// share of the job health is a few milliseconds of a 20 ms poll,
	// which the median of 15 could not tell apart from a busy moment.
	polls int
}

// loadDeadSet fills ns's dead set with n members, the recent first of
// them spread over the last hour, the others over the month before.
func (e *env) loadDeadSet(ns string, n, recent int, jobs []string) {
	c := e.dial()
	b := &bulk{t: e.t, c: c}
	now := time.Now()
	k := redisq.NewKeys(ns)
	args := []any{k.Dead()}
	for i := 0; i < n; i++ {
		at := now.Add(-time.Hour - time.Duration(i)*2*time.Second)
		if i < recent {
			at = now.Add(-time.Duration(i) * time.Hour / time.Duration(recent))
		}
		job := jobs[i%len(jobs)]
		args = append(args, at.Unix(), fmt.Sprintf(`{"name":%q,"id":"%024x","t":%d,"args":{"account_id":%d},"fails":4,"err":"upstream %d: timeout after %ds","failed_at":%d}`,
			job, i, at.Unix()-30, i, 500+i%4, 1+i%30, at.Unix()))
		if len(args) > 2000 {
			b.send("ZADD", args...)
			args = []any{k.Dead()}
		}
	}
	if len(args) > 1 {
		b.send("ZADD", args...)
	}
	b.flush()
}

// 9. Job health: the screen's poll followed by the tracker's read (the
// dead members new since the last poll, the retry members of the last
// minutes) and the judgement, against the poll alone, in Redis commands
// and in time; and the first read, which takes the hour's history,
// against a raw ZRANGEBYSCORE of that hour.
func (e *env) health() {
	t := e.t
	sz := healthSizes{pools: 1000, jobTypes: 20, dead: 1_000_000, recent: 10_000, runs: 15, polls: 61}
	if e.sz.smoke {
		sz = healthSizes{pools: 200, jobTypes: 4, dead: 20_000, recent: 1000, runs: 3, polls: 3}
	}
	const ns = "health"
	ctx := context.Background()
	l, refresh := e.pollNamespace(ns, pollSizes{pools: sz.pools, jobTypes: sz.jobTypes})
	e.loadDeadSet(ns, sz.dead, sz.recent, l.jobNames)
	c := e.dial()
	client := redisq.NewClient(redisq.OneConn(c), ns, 0)
	limits := model.DefaultHealthLimits()

	// 9c: the first read against the raw range of the history, A-B-B-A.
	// Each side is timed with the collector off and collected after,
	// untimed, and the bytes it allocated are 9d: the two sides allocate
	// 2.7 and 3.2 MB, both about the room a collection leaves in a small
	// heap, so that with the collector on, the side that crossed it paid a
	// whole cycle (10 of 10 first reads, 1 of 10 raw ranges, about 6 ms of
	// a 12 ms read): a threshold, not a cost. A process pays for what it
	// allocates in proportion to the bytes, which 9d holds to its goal.
	since := time.Now().Add(-limits.History()).Unix()
	var raws, firsts []time.Duration
	var rawBytes, firstBytes uint64
	timed := func(name string, read func() error) (time.Duration, uint64) {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		gc := debug.SetGCPercent(-1)
		d := timeIt(t, name, read)
		debug.SetGCPercent(gc)
		runtime.ReadMemStats(&after)
		return d, after.TotalAlloc - before.TotalAlloc
	}
	rawRead := func() {
		d, b := timed("raw range", func() error {
			_, err := c.Do("ZRANGEBYSCORE", redisq.NewKeys(ns).Dead(), since, "+inf", "WITHSCORES")
			return err
		})
		raws, rawBytes = append(raws, d), rawBytes+b
	}
	firstRead := func() {
		d, b := timed("first health read", func() error {
			snap := &model.Snapshot{Namespace: ns, RedisTime: time.Now()}
			return client.AssessJobs(ctx, redisq.NewHealthTracker(ns, limits), snap)
		})
		firsts, firstBytes = append(firsts, d), firstBytes+b
	}
	for i := 0; i < max(2, 2*sz.runs/3); i++ {
		rawRead()
		firstRead()
		firstRead()
		rawRead()
	}

	// 9a, 9b: polls with and without the job health, alternating, a few
	// new deaths between them.
	poller := redisq.NewPoller(client)
	tracker := redisq.NewHealthTracker(ns, limits)
	plain := func() error { _, err := poller.Poll(ctx, redisq.PollRequest{}); return err }
	judged := func() error {
		snap, err := poller.Poll(ctx, redisq.PollRequest{})
		if err != nil {
			return err
		}
		return client.AssessJobs(ctx, tracker, snap)
	}
	refresh()
	timeIt(t, "warm poll", judged)
	newDeaths := func() {
		args := []any{redisq.NewKeys(ns).Dead()}
		now := time.Now().Unix()
		for i := 0; i < 10; i++ {
			args = append(args, now, fmt.Sprintf(`{"name":%q,"id":"new%d-%d","t":%d,"args":{},"fails":4,"err":"boom","failed_at":%d}`, l.jobNames[0], now, i, now, now))
		}
		if _, err := c.Do("ZADD", args...); err != nil {
			t.Fatal(err)
		}
	}
	var plainT, judgedT []time.Duration
	var plainCalls, judgedCalls int64
	for i := 0; i < sz.polls; i++ {
		refresh()
		newDeaths()
		before := serverCalls(t, c)
		plainT = append(plainT, timeIt(t, "poll", plain))
		plainCalls += serverCalls(t, c) - before
		refresh()
		newDeaths()
		before = serverCalls(t, c)
		judgedT = append(judgedT, timeIt(t, "poll with job health", judged))
		judgedCalls += serverCalls(t, c) - before
	}
	size := fmt.Sprintf("%d pools x %d job types, dead set %d (%d in the last hour), 10 new deaths a poll", sz.pools, sz.jobTypes, sz.dead, sz.recent)
	e.tb.atMost("9a", "Redis commands: poll with job health / poll", float64(judgedCalls)/float64(plainCalls), 1.15,
		fmt.Sprintf("%s: %d vs %d commands over %d polls of each (INFO commandstats)", size, judgedCalls, plainCalls, sz.polls))
	e.tb.atMost("9b", "time: poll with job health / poll", median(judgedT).Seconds()/median(plainT).Seconds(), 1.15,
		fmt.Sprintf("%s: medians %s vs %s over %d polls of each, alternating", size, ms(median(judgedT)), ms(median(plainT)), sz.polls))
	e.tb.atMost("9c", "time: first job health read / raw ZRANGEBYSCORE of the hour", median(firsts).Seconds()/median(raws).Seconds(), 1.3,
		fmt.Sprintf("%s: medians %s vs %s over %d of each, the collector off during each read (9d); the first read also takes the retry set", size, ms(median(firsts)), ms(median(raws)), len(raws)))
	e.tb.atMost("9d", "bytes allocated: first job health read / raw ZRANGEBYSCORE of the hour", float64(firstBytes)/float64(rawBytes), 1.3,
		fmt.Sprintf("%s a read vs %s (runtime.MemStats.TotalAlloc around each read of 9c): what the first read leaves to the collector beyond the reply's", mb(firstBytes/uint64(len(firsts))), mb(rawBytes/uint64(len(raws)))))
}

// mb writes a count of bytes in megabytes.
func mb(n uint64) string { return fmt.Sprintf("%.2f MB", float64(n)/(1<<20)) }
