package bench_test

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

const (
	explainNS  = "benchexplain"
	timelineNS = "benchtimeline"
)

// countingConns hands out connections of a pool that count into one
// counter.
type countingConns struct {
	p *redis.Pool
	n *counter
}

func (cc countingConns) GetContext(ctx context.Context) (redis.Conn, error) {
	c, err := cc.p.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: cc.n}, nil
}

// explainBench adds line 8a: explain of one job type (ReadExplain and
// the checks, as the command runs them) at pools x job types,
// half the workers busy, 2,000 jobs in retry and 2,000 deaths of the last
// hour, against the raw reads of the same keys: the snapshot's raw batch
// and the set facts' three ZRANGEBYSCOREs in one pipeline, beside a raw
// SCAN MATCH walk of the in-progress pattern (then the lengths of the lists
// of pools not in the set) and one of the job type's unique prefix, each on
// a connection of its own as explain takes them.
func (e *env) explainBench() {
	t, sz := e.t, e.sz
	c := e.dial()
	defer c.Close()
	l := loadNamespace(t, c, nsSpec{ns: explainNS, pools: sz.pools, jobTypes: sz.jobTypes, listsPerPool: sz.jobTypes,
		deadEvery: 50, queued: 50, orphans: 10})
	k := redisq.NewKeys(explainNS)
	loadObservations(t, c, k, l)
	now := time.Now().Unix()
	b := &bulk{t: t, c: c}
	for i := 0; i < 2000; i++ {
		name := l.jobNames[i%len(l.jobNames)]
		b.send("ZADD", k.Retry(), now+int64(i), fmt.Sprintf(`{"name":%q,"id":"r%023d","t":%d,"args":{"i":%d},"fails":1,"err":"timeout after %d ms","failed_at":%d}`, name, i, now-60, i, i, now-60))
		b.send("ZADD", k.Dead(), now-int64(i%3000), fmt.Sprintf(`{"name":%q,"id":"d%023d","t":%d,"args":{"i":%d},"fails":25,"err":"connection refused: 10.0.%d.1","failed_at":%d}`, name, i, now-3600, i, i%250, now-int64(i%3000)))
	}
	b.flush()
	job := l.jobNames[1]
	ctx := context.Background()
	pool := &redis.Pool{MaxIdle: 4, Dial: func() (redis.Conn, error) { return redis.Dial("tcp", e.srv.Addr()) }}
	defer pool.Close()
	cl := redisq.NewClient(pool, explainNS, model.DefaultDeadAfter)

	var x model.Explanation
	ours := func() error {
		rd, err := cl.ReadExplain(ctx, []string{job}, redisq.DefaultScanCount)
		if err != nil {
			return err
		}
		f := rd.Facts
		f.Unique, f.UniqueScanned = rd.Unique[job], true
		x = model.Explain(rd.Snap, f, job)
		return nil
	}
	from := now - int64(redisq.ExplainDeadWindow/time.Second)
	cmds := append(rawCommands(explainNS, l),
		cmd{"ZRANGEBYSCORE", []any{k.Retry(), "-inf", "+inf", "WITHSCORES", "LIMIT", 0, redisq.ExplainSetLimit}},
		cmd{"ZRANGEBYSCORE", []any{k.Scheduled(), "-inf", "+inf", "WITHSCORES", "LIMIT", 0, redisq.ExplainSetLimit}},
		cmd{"ZREVRANGEBYSCORE", []any{k.Dead(), "+inf", from, "WITHSCORES", "LIMIT", 0, redisq.ExplainSetLimit}})
	inSet := map[string]bool{}
	for _, id := range l.poolIDs {
		inSet[id] = true
	}
	raw := func() error {
		var wg sync.WaitGroup
		errs := make([]error, 3)
		wg.Add(2)
		go func() {
			defer wg.Done()
			pc := pool.Get()
			defer pc.Close()
			keys, err := rawScan(pc, k.InProgressPattern())
			if err != nil {
				errs[1] = err
				return
			}
			lens := []cmd{{"SMEMBERS", []any{k.WorkerPools()}}, {"SMEMBERS", []any{k.KnownJobs()}}}
			for _, key := range keys {
				if _, id, ok := k.ParseInProgress(key); ok && !inSet[id] {
					lens = append(lens, cmd{"LLEN", []any{key}})
				}
			}
			errs[1] = runBatch(pc, lens)
		}()
		go func() {
			defer wg.Done()
			pc := pool.Get()
			defer pc.Close()
			_, errs[2] = rawScan(pc, k.UniquePrefix(job)+"*")
		}()
		pc := pool.Get()
		errs[0] = runBatch(pc, cmds)
		pc.Close()
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	timeIt(t, "warm-up", raw)
	timeIt(t, "warm-up", ours)
	if x.Job != job || len(x.Facts) == 0 {
		t.Fatalf("explain %s read nothing: %+v", job, x)
	}

	var tRaw, tOurs, pair []time.Duration
	for i := 0; i < sz.rounds; i++ {
		r1 := timeIt(t, "raw reads", raw)
		o1 := timeIt(t, "explain", ours)
		o2 := timeIt(t, "explain", ours)
		r2 := timeIt(t, "raw reads", raw)
		tRaw, tOurs = append(tRaw, r1, r2), append(tOurs, o1, o2)
		pair = append(pair, ratioOf(o1+o2, r1+r2))
	}
	// Round trips: the snapshot's, and the facts' read beside it, as
	// ReadExplain reads them; then every connection of a whole read.
	var main, facts, all counter
	snap, err := redisq.ReadSnapshot(ctx, &countingConn{Conn: c, n: &main}, explainNS, model.DefaultDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := redisq.ReadExplainFacts(ctx, &countingConn{Conn: c, n: &facts}, k, snap.RedisTime); err != nil {
		t.Fatal(err)
	}
	if _, err := redisq.NewClient(countingConns{p: pool, n: &all}, explainNS, model.DefaultDeadAfter).ReadExplain(ctx, []string{job}, redisq.DefaultScanCount); err != nil {
		t.Fatal(err)
	}
	// Three round trips plus the observations': the snapshot's two, its
	// third (the observations), and the set facts' one beside them.
	if main.roundTrips+facts.roundTrips > 4 || facts.roundTrips != 1 {
		t.Errorf("explain's snapshot took %d round trips and its facts %d, want at most 3 plus the observations'", main.roundTrips, facts.roundTrips)
	}
	e.tb.atMost("8a", "explain of one job type in process / raw reads of the same keys", ratioValue(median(pair)), 1.3,
		fmt.Sprintf("median of %d paired rounds; %d pools x %d job types, %d workers, 2,000 retry, 2,000 dead; snapshot in %d round trips (the observations' included) and the set facts in %d beside it, %d in all with the two scans, %d commands; ours %s, raw %s (%d commands in 1 batch beside the 2 scans)",
			len(pair), sz.pools, sz.jobTypes, len(l.workerIDs), main.roundTrips, facts.roundTrips, all.roundTrips, all.commands, ms(median(tOurs)), ms(median(tRaw)), len(cmds)))
}

// rawScan walks the keyspace with SCAN MATCH pattern COUNT 1000 and returns
// the keys.
func rawScan(c redis.Conn, pattern string) ([]string, error) {
	var keys []string
	cursor := "0"
	for {
		r, err := redis.Values(c.Do("SCAN", cursor, "MATCH", pattern, "COUNT", redisq.DefaultScanCount))
		if err != nil {
			return nil, err
		}
		ks, err := redis.Strings(r[1], nil)
		if err != nil {
			return nil, err
		}
		keys = append(keys, ks...)
		if cursor, err = redis.String(r[0], nil); err != nil {
			return nil, err
		}
		if cursor == "0" {
			return keys, nil
		}
	}
}

// timelineBench adds line 8b: `timeline --since 6h` over a dead set of
// deadJobs members of which a tenth lie in the window, against a raw walk
// of the window: the same ZRANGEBYSCORE ... LIMIT pages, each starting at
// the last score read, the members left unparsed.
func (e *env) timelineBench() {
	t, sz := e.t, e.sz
	c := e.dial()
	defer c.Close()
	total := 1000000
	if sz.smoke {
		total = 20000
	}
	inWindow := total / 10
	k := redisq.NewKeys(timelineNS)
	now := time.Now().Unix()
	const since = 6 * time.Hour
	win := int64(since / time.Second)
	r := rand.New(rand.NewSource(7))
	errs := []string{"connection refused: 10.0.%d.1", "timeout after %d ms", "card %d declined", "rate limited"}
	b := &bulk{t: t, c: c}
	args := []any{k.Dead()}
	for i := 0; i < total; i++ {
		// The window's deaths, ten minutes inside it (the measurements
		// end well within those ten minutes); the rest over the week
		// before it.
		score := now - 60 - r.Int63n(win-660)
		if i >= inWindow {
			score = now - win - 600 - r.Int63n(7*86400)
		}
		name := jobName(i % 20)
		msg := fmt.Sprintf(errs[i%len(errs)], i%500)
		args = append(args, score, fmt.Sprintf(`{"name":%q,"id":"%024x","t":%d,"args":{"account_id":%d,"attempt":25},"fails":25,"err":%q,"failed_at":%d}`,
			name, i, score-3600, 100000+i, msg, score))
		if len(args) > 200 {
			b.send("ZADD", args...)
			args = []any{k.Dead()}
		}
	}
	if len(args) > 1 {
		b.send("ZADD", args...)
	}
	b.flush()
	if n, err := redis.Int(c.Do("ZCARD", k.Dead())); err != nil || n != total {
		t.Fatalf("loaded %d dead jobs (%v), want %d", n, err, total)
	}
	ctx := context.Background()
	var tl *model.Timeline
	ours := func() error {
		var err error
		tl, err = redisq.ReadTimeline(ctx, c, timelineNS, model.DefaultDeadAfter, since, 5*time.Minute, nil)
		return err
	}
	walked := 0
	raw := func() error {
		from, to := now-win, now
		walked = 0
		min, skip := strconv.FormatInt(from, 10), 0
		for {
			vals, err := redis.Values(c.Do("ZRANGEBYSCORE", k.Dead(), min, to, "WITHSCORES", "LIMIT", skip, redisq.TimelineStep))
			if err != nil {
				return err
			}
			walked += len(vals) / 2
			if len(vals)/2 < redisq.TimelineStep {
				return nil
			}
			last := string(vals[len(vals)-1].([]byte))
			same := 0
			for i := len(vals) - 1; i > 0 && string(vals[i].([]byte)) == last; i -= 2 {
				same++
			}
			if last == min {
				skip += same
			} else {
				min, skip = last, same
			}
		}
	}
	timeIt(t, "warm-up", raw)
	timeIt(t, "warm-up", ours)
	deaths := 0
	for _, bk := range tl.Buckets {
		deaths += bk.Deaths
	}
	if deaths != inWindow || walked != inWindow {
		t.Fatalf("timeline counted %d deaths, the raw walk read %d; %d lie in the window", deaths, walked, inWindow)
	}
	// As many rounds as the snapshot's (25): the line is within a few
	// hundredths of its goal, where a median of 5 moves with one slow
	// walk of either side.
	rounds := max(3, sz.rounds)
	var tRaw, tOurs, pair []time.Duration
	for i := 0; i < rounds; i++ {
		r1 := timeIt(t, "raw walk", raw)
		o1 := timeIt(t, "timeline", ours)
		o2 := timeIt(t, "timeline", ours)
		r2 := timeIt(t, "raw walk", raw)
		tRaw, tOurs = append(tRaw, r1, r2), append(tOurs, o1, o2)
		pair = append(pair, ratioOf(o1+o2, r1+r2))
	}
	// This process's CPU time per walk, both sides: what parsing adds.
	cpu := func(f func() error) time.Duration {
		before := processCPU(t)
		for i := 0; i < 3; i++ {
			timeIt(t, "cpu", f)
		}
		return (processCPU(t) - before) / 3
	}
	cpuOurs, cpuRaw := cpu(ours), cpu(raw)
	var n counter
	if _, err := redisq.ReadTimeline(ctx, &countingConn{Conn: c, n: &n}, timelineNS, model.DefaultDeadAfter, since, 5*time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	e.tb.atMost("8b", "timeline --since 6h in process / raw ZRANGEBYSCORE walk of the window", ratioValue(median(pair)), 1.3,
		fmt.Sprintf("median of %d paired rounds; %d dead jobs, %d in the window; ours %s in %d round trips, %s CPU; raw %s, %s CPU",
			len(pair), total, inWindow, ms(median(tOurs)), n.roundTrips, ms(cpuOurs), ms(median(tRaw)), ms(cpuRaw)))
	if _, err := c.Do("DEL", k.Dead()); err != nil {
		t.Fatal(err)
	}
}
