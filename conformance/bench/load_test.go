package bench_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/redisq"
)

// bulk sends commands pipelined, reading the replies every few thousand
// commands: a fast bulk load (redis-cli --pipe style) over one connection.
type bulk struct {
	t       testing.TB
	c       redis.Conn
	pending int
}

func (b *bulk) send(cmd string, args ...any) {
	if err := b.c.Send(cmd, args...); err != nil {
		b.t.Fatalf("bulk %s: %v", cmd, err)
	}
	b.pending++
	if b.pending >= 5000 {
		b.flush()
	}
}

func (b *bulk) flush() {
	if err := b.c.Flush(); err != nil {
		b.t.Fatalf("bulk flush: %v", err)
	}
	for ; b.pending > 0; b.pending-- {
		if _, err := b.c.Receive(); err != nil {
			b.t.Fatalf("bulk load: %v", err)
		}
	}
}

// nsSpec is a gocraft/work namespace to load.
type nsSpec struct {
	ns       string
	pools    int
	jobTypes int
	// listsPerPool is how many of a pool's job types hold an in-progress
	// list (each with one job); jobTypes gives pools x jobTypes lists.
	listsPerPool int
	// deadEvery makes every n-th pool dead (heartbeat 10 minutes old).
	deadEvery int
	// queued is the length of every queue.
	queued int
	// orphans is how many in-progress lists of pools not in the set to add.
	orphans int
}

// loaded is what was written: pool IDs and job names sorted, as the
// snapshot reads them, and the worker IDs the heartbeats name, in pool
// order.
type loaded struct {
	poolIDs   []string
	jobNames  []string
	workerIDs []string
	inProg    int
}

var jobWords = []string{"send_email", "resize_image", "charge_card", "sync_crm", "render_pdf",
	"index_doc", "notify_push", "export_csv", "import:batch", "webhook", "thumbnail", "reconcile",
	"geo_lookup", "dedupe", "billing:invoice", "archive", "transcode", "score_lead", "sitemap", "cleanup"}

func jobName(i int) string {
	if i < len(jobWords) {
		return jobWords[i]
	}
	return fmt.Sprintf("%s_%d", jobWords[i%len(jobWords)], i/len(jobWords))
}

func hexID(r *rand.Rand) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 24)
	for i := range b {
		b[i] = digits[r.Intn(16)]
	}
	return string(b)
}

func jobJSON(name string, id string, t int64, i int) string {
	return fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":{"account_id":%d,"email":"user%d@example.com","template":"welcome_v2","attempt":1}}`,
		name, id, t, 100000+i, i)
}

// loadNamespace writes a realistic gocraft/work namespace: heartbeats with
// every field gocraft writes, in-progress lists with real job JSON, lock
// and lock_info consistent with them, queues, a max_concurrency and a
// paused job type.
func loadNamespace(t testing.TB, c redis.Conn, s nsSpec) loaded {
	t.Helper()
	k := redisq.NewKeys(s.ns)
	r := rand.New(rand.NewSource(int64(len(s.ns))*7919 + int64(s.pools)))
	now := time.Now().Unix()
	b := &bulk{t: t, c: c}
	var out loaded
	for j := 0; j < s.jobTypes; j++ {
		out.jobNames = append(out.jobNames, jobName(j))
	}
	names := append([]string(nil), out.jobNames...)
	sort.Strings(names)
	joined := strings.Join(names, ",")
	for _, n := range out.jobNames {
		b.send("SADD", k.KnownJobs(), n)
	}
	locks := make([]int, s.jobTypes)
	lockInfo := make([][]any, s.jobTypes)
	workersOf := make(map[string][]string, s.pools)
	for p := 0; p < s.pools; p++ {
		id := hexID(r)
		out.poolIDs = append(out.poolIDs, id)
		beat := now - int64(r.Intn(5))
		if s.deadEvery > 0 && p%s.deadEvery == s.deadEvery-1 {
			beat = now - 600
		}
		workers := make([]string, 10)
		for w := range workers {
			workers[w] = hexID(r)
		}
		sort.Strings(workers)
		workersOf[id] = workers
		b.send("SADD", k.WorkerPools(), id)
		b.send("HSET", k.Heartbeat(id), "heartbeat_at", beat, "started_at", now-int64(3600+r.Intn(86400)),
			"job_names", joined, "concurrency", 10, "worker_ids", strings.Join(workers, ","),
			"host", fmt.Sprintf("worker-%03d.prod.internal", p%500), "pid", 1000+r.Intn(60000))
		for l := 0; l < s.listsPerPool; l++ {
			j := (p + l) % s.jobTypes
			name := out.jobNames[j]
			b.send("LPUSH", k.InProgress(name, id), jobJSON(name, hexID(r), now-int64(r.Intn(300)), p))
			locks[j]++
			lockInfo[j] = append(lockInfo[j], id, 1)
			out.inProg++
		}
	}
	for j, name := range out.jobNames {
		b.send("SET", k.Lock(name), locks[j])
		if len(lockInfo[j]) > 0 {
			b.send("HSET", append([]any{k.LockInfo(name)}, lockInfo[j]...)...)
		}
		for q := 0; q < s.queued; q++ {
			b.send("LPUSH", k.Queue(name), jobJSON(name, hexID(r), now-int64(s.queued-q), q))
		}
		if j%5 == 1 {
			b.send("SET", k.MaxConcurrency(name), 5000)
		}
		if j == 3 {
			b.send("SET", k.Paused(name), "1")
		}
	}
	for o := 0; o < s.orphans; o++ {
		name := out.jobNames[o%s.jobTypes]
		b.send("RPUSH", k.InProgress(name, hexID(r)), jobJSON(name, hexID(r), now-3600, o))
	}
	b.flush()
	sort.Strings(out.poolIDs)
	sort.Strings(out.jobNames)
	for _, id := range out.poolIDs {
		out.workerIDs = append(out.workerIDs, workersOf[id]...)
	}
	return out
}

// cmd is one command of a raw batch.
type cmd struct {
	name string
	args []any
}

// rawCommands are exactly the read commands a snapshot needs, with the keys
// known in advance: the physical limit is sending them all at once. They
// are the full raw batch every "raw batch" line compares with: TIME, the
// two sets and the sizes of the three job sets, every heartbeat, every job type's counters and in-progress
// lists, and the observation of every worker the heartbeats name (HGETALL
// <ns>:worker:<id>, as the snapshot reads them).
func rawCommands(ns string, l loaded) []cmd {
	k := redisq.NewKeys(ns)
	cmds := []cmd{{"TIME", nil}, {"SMEMBERS", []any{k.WorkerPools()}}, {"SMEMBERS", []any{k.KnownJobs()}},
		{"ZCARD", []any{k.Retry()}}, {"ZCARD", []any{k.Scheduled()}}, {"ZCARD", []any{k.Dead()}}}
	for _, id := range l.poolIDs {
		cmds = append(cmds, cmd{"HGETALL", []any{k.Heartbeat(id)}})
	}
	for _, j := range l.jobNames {
		cmds = append(cmds, cmd{"LLEN", []any{k.Queue(j)}}, cmd{"LINDEX", []any{k.Queue(j), -1}},
			cmd{"GET", []any{k.Lock(j)}}, cmd{"HGETALL", []any{k.LockInfo(j)}})
		for _, id := range l.poolIDs {
			cmds = append(cmds, cmd{"LLEN", []any{k.InProgress(j, id)}})
		}
		cmds = append(cmds, cmd{"GET", []any{k.MaxConcurrency(j)}}, cmd{"EXISTS", []any{k.Paused(j)}})
	}
	for _, id := range l.workerIDs {
		cmds = append(cmds, cmd{"HGETALL", []any{k.Prefix() + "worker:" + id}})
	}
	return cmds
}

// runBatch sends every command, flushes once and reads every reply.
func runBatch(c redis.Conn, cmds []cmd) error {
	for _, cm := range cmds {
		if err := c.Send(cm.name, cm.args...); err != nil {
			return err
		}
	}
	if err := c.Flush(); err != nil {
		return err
	}
	for range cmds {
		if _, err := c.Receive(); err != nil {
			return err
		}
	}
	return nil
}

// runLoop sends one command per round trip, as upstream's reaper reads.
func runLoop(c redis.Conn, cmds []cmd) error {
	for _, cm := range cmds {
		if _, err := c.Do(cm.name, cm.args...); err != nil {
			return err
		}
	}
	return nil
}

// counter counts what a client sends: commands, and round trips (a write
// followed by a wait for replies). The connections of one read (a scan on
// a connection of its own beside the snapshot) count into it at once.
type counter struct {
	mu                   sync.Mutex
	commands, roundTrips int
}

func (n *counter) add(commands, roundTrips int) {
	n.mu.Lock()
	n.commands += commands
	n.roundTrips += roundTrips
	n.mu.Unlock()
}

// countingConn wraps a connection and counts into a counter.
type countingConn struct {
	redis.Conn
	n       *counter
	pending int
}

func (c *countingConn) Send(name string, args ...any) error {
	c.n.add(1, 0)
	c.pending++
	return c.Conn.Send(name, args...)
}

func (c *countingConn) Flush() error {
	if c.pending > 0 {
		c.n.add(0, 1)
		c.pending = 0
	}
	return c.Conn.Flush()
}

func (c *countingConn) count(name string) {
	if name != "" {
		c.n.add(1, 0)
	}
	if name != "" || c.pending > 0 {
		c.n.add(0, 1)
		c.pending = 0
	}
}

func (c *countingConn) Do(name string, args ...any) (any, error) {
	c.count(name)
	return c.Conn.Do(name, args...)
}

func (c *countingConn) DoContext(ctx context.Context, name string, args ...any) (any, error) {
	c.count(name)
	return redis.DoContext(c.Conn, ctx, name, args...)
}

func (c *countingConn) DoWithTimeout(d time.Duration, name string, args ...any) (any, error) {
	c.count(name)
	return redis.DoWithTimeout(c.Conn, d, name, args...)
}

func (c *countingConn) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

func (c *countingConn) ReceiveWithTimeout(d time.Duration) (any, error) {
	return redis.ReceiveWithTimeout(c.Conn, d)
}

// serverCalls is the number of commands Redis has run (INFO commandstats),
// leaving out INFO, CONFIG and SLOWLOG, which only the bench sends.
func serverCalls(t testing.TB, c redis.Conn) int64 {
	t.Helper()
	s, err := redis.String(c.Do("INFO", "commandstats"))
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	var total int64
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		name, rest, ok := strings.Cut(line, ":calls=")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		switch {
		case name == "cmdstat_info", strings.HasPrefix(name, "cmdstat_config"), strings.HasPrefix(name, "cmdstat_slowlog"):
			continue
		}
		var n int64
		if _, err := fmt.Sscanf(rest, "%d", &n); err != nil {
			continue // not a count: nothing to add
		}
		total += n
	}
	return total
}
