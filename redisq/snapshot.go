package redisq

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// Conns hands out connections; *redis.Pool (for example Dialer.Pool())
// satisfies it, and OneConn wraps a single connection.
type Conns interface {
	GetContext(ctx context.Context) (redis.Conn, error)
}

// OneConn makes one connection usable as Conns: every GetContext returns it,
// and closing what GetContext returned does not close it. It is for callers
// that hold a connection of their own (tests, a reaper inside one session).
// Like the connection itself, it is for one goroutine at a time.
func OneConn(c redis.Conn) Conns { return oneConn{c} }

type oneConn struct{ c redis.Conn }

func (o oneConn) GetContext(context.Context) (redis.Conn, error) { return noClose{o.c}, nil }

type noClose struct{ redis.Conn }

func (noClose) Close() error { return nil }

func (c noClose) DoContext(ctx context.Context, cmd string, args ...any) (any, error) {
	return redis.DoContext(c.Conn, ctx, cmd, args...)
}

func (c noClose) ReceiveContext(ctx context.Context) (any, error) {
	return redis.ReceiveContext(c.Conn, ctx)
}

func (c noClose) DoWithTimeout(d time.Duration, cmd string, args ...any) (any, error) {
	return redis.DoWithTimeout(c.Conn, d, cmd, args...)
}

func (c noClose) ReceiveWithTimeout(d time.Duration) (any, error) {
	return redis.ReceiveWithTimeout(c.Conn, d)
}

// Client reads one gocraft/work namespace.
type Client struct {
	conns     Conns
	keys      Keys
	namespace string
	deadAfter time.Duration
	// where names the Redis in errors ("" when unknown); closer closes the
	// pool the client made.
	where  string
	closer func() error
}

// NewDialerClient returns a client that takes its connections from a pool of
// the dialer's (connections are made when first needed). Its errors name the
// address. Close it when done.
func NewDialerClient(d *Dialer, namespace string, deadAfter time.Duration) *Client {
	p := d.Pool()
	c := NewClient(p, namespace, deadAfter)
	c.where = d.Endpoint().String()
	c.closer = p.Close
	return c
}

// Close closes the connections the client made itself (NewDialerClient); it
// does nothing otherwise.
func (c *Client) Close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer()
}

// wrap makes sure an error names the Redis it came from.
func (c *Client) wrap(err error) error {
	if err == nil || c.where == "" || strings.Contains(err.Error(), c.where) {
		return err
	}
	return fmt.Errorf("redis at %s: %w", c.where, err)
}

// NewClient returns a client of a namespace; deadAfter is the cut-off of
// model.Classify (model.DefaultDeadAfter when not positive).
func NewClient(conns Conns, namespace string, deadAfter time.Duration) *Client {
	if deadAfter <= 0 {
		deadAfter = model.DefaultDeadAfter
	}
	return &Client{conns: conns, keys: NewKeys(namespace), namespace: namespace, deadAfter: deadAfter}
}

// Keys is the key schema of the client's namespace.
func (c *Client) Keys() Keys { return c.keys }

// Namespace is the namespace as given.
func (c *Client) Namespace() string { return c.namespace }

// DeadAfter is the cut-off the client classifies with.
func (c *Client) DeadAfter() time.Duration { return c.deadAfter }

// Snapshot reads the namespace (see ReadSnapshot) on a connection of its own.
func (c *Client) Snapshot(ctx context.Context) (*model.Snapshot, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	snap, err := ReadSnapshot(ctx, conn, c.namespace, c.deadAfter)
	return snap, c.wrap(err)
}

// ScanOrphans runs a whole orphan scan (see OrphanScan) on a connection of
// its own; count is the SCAN COUNT hint (DefaultScanCount when not positive)
// and progress, when not nil, is called after every SCAN call.
func (c *Client) ScanOrphans(ctx context.Context, count int, progress func(ScanProgress)) (OrphanResult, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return OrphanResult{}, c.wrap(err)
	}
	defer conn.Close()
	res, err := ScanOrphans(ctx, conn, c.keys, count, progress)
	return res, c.wrap(err)
}

// PeekInProgress reads the first n jobs of a pool's in-progress list (index 0
// is the job the pool took last) and parses them loosely.
func (c *Client) PeekInProgress(ctx context.Context, poolID, job string, n int) ([]Job, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	jobs, err := PeekList(ctx, conn, c.keys.InProgress(job, poolID), n)
	return jobs, c.wrap(err)
}

// PeekList reads the first n items of a list of jobs (LRANGE key 0 n-1) and
// parses each loosely: an item that is not a job keeps its raw text and a
// parse error.
func PeekList(ctx context.Context, conn redis.Conn, key string, n int) ([]Job, error) {
	if n <= 0 {
		return nil, nil
	}
	raws, err := redis.Strings(redis.DoContext(conn, ctx, "LRANGE", key, 0, n-1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	jobs := make([]Job, len(raws))
	for i, r := range raws {
		jobs[i] = ParseJob(r)
	}
	return jobs, nil
}

// Job is a gocraft/work job as stored in a list, parsed loosely.
type Job struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// EnqueuedAt is `t` (unix seconds), 0 when missing.
	EnqueuedAt int64 `json:"t"`
	// Args is the `args` object as it was stored.
	Args json.RawMessage `json:"args,omitempty"`
	// Raw is the whole stored item.
	Raw string `json:"-"`
	// Err is set when the item is not a JSON object or `t` is missing or not
	// a number.
	Err error `json:"-"`
}

// ParseJob reads a stored job. It never fails: what cannot be read is in Err.
func ParseJob(raw string) Job {
	j := Job{Raw: raw}
	var v struct {
		ID   any             `json:"id"`
		Name any             `json:"name"`
		T    json.RawMessage `json:"t"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		j.Err = fmt.Errorf("not a JSON object: %w", err)
		return j
	}
	j.ID, _ = v.ID.(string)
	j.Name, _ = v.Name.(string)
	j.Args = v.Args
	if len(v.T) == 0 || string(v.T) == "null" {
		j.Err = errors.New("no enqueue time (t)")
		return j
	}
	t, err := parseJSONSeconds(v.T)
	if err != nil {
		j.Err = fmt.Errorf("enqueue time (t) %s is not a number", truncate(string(v.T), 40))
		return j
	}
	j.EnqueuedAt = t
	return j
}

// parseJSONSeconds reads a JSON number of seconds (gocraft writes an
// integer; a float is accepted and truncated).
func parseJSONSeconds(b json.RawMessage) (int64, error) {
	if len(b) > 0 && b[0] == '"' {
		return 0, errors.New("a string, not a number")
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, err
	}
	if i, err := n.Int64(); err == nil {
		return i, nil
	}
	f, err := n.Float64()
	if err != nil {
		return 0, err
	}
	return int64(f), nil
}

// ReadSnapshot reads a whole namespace in at most three round trips whatever
// the number of pools and job types, and classifies it with
// model.Analyze(snap, deadAfter):
//
//  1. TIME, SMEMBERS <ns>:worker_pools, SMEMBERS <ns>:known_jobs;
//  2. HGETALL of every pool's heartbeat, and per job type of known_jobs:
//     LLEN and LINDEX -1 of the queue, GET lock, HGETALL lock_info, LLEN of
//     every pool's in-progress list, GET max_concurrency, EXISTS paused;
//  3. the same per job type for job types that heartbeats' job_names name
//     and known_jobs lacks (skipped when there are none, as there are when
//     gocraft/work itself wrote the data).
//
// A pipeline is not atomic: a job fetched or finished by a live pool between
// two of its commands would look like drift. The commands that take part in
// the drift check (lock, lock_info and the in-progress lengths of one job
// type) are therefore sent next to each other, and when some job type still
// shows drift, a fourth round trip re-reads just those commands for just
// those job types; the re-read values are kept, and only drift that shows
// again is reported. Even so, a pool that registers between round trips 1
// and 2 can show as drift once: confirm drift with a second snapshot.
//
// "Now" is Redis's TIME. A Redis ACL user without +time (TIME is not in
// @read) gets the local clock and a warning. A key of the wrong type, a
// malformed heartbeat or a queued job that is not JSON gives that item a
// warning and never fails the snapshot; other error replies (NOAUTH, NOPERM
// on a key, ...) and connection errors do.
func ReadSnapshot(ctx context.Context, conn redis.Conn, namespace string, deadAfter time.Duration) (*model.Snapshot, error) {
	keys := NewKeys(namespace)
	snap := &model.Snapshot{Namespace: namespace}

	// Round trip 1.
	rt1, err := pipeline(ctx, conn, []cmd{
		{"TIME", nil},
		{"SMEMBERS", []any{keys.WorkerPools()}},
		{"SMEMBERS", []any{keys.KnownJobs()}},
	})
	if err != nil {
		return nil, err
	}
	now, err := redisTime(rt1[0])
	switch {
	case err == nil:
		snap.RedisTime = now
	case isNoPerm(rt1[0].err):
		snap.RedisTime = time.Now()
		snap.Warnings = append(snap.Warnings, "TIME was refused (the Redis user lacks +time): ages use the local clock")
	default:
		return nil, fatalReply(rt1[0], "redis TIME")
	}
	poolIDs, w, err := setMembers(rt1[1], keys.WorkerPools())
	if err != nil {
		return nil, err
	}
	snap.Warnings = append(snap.Warnings, w...)
	known, w, err := setMembers(rt1[2], keys.KnownJobs())
	if err != nil {
		return nil, err
	}
	snap.Warnings = append(snap.Warnings, w...)
	sort.Strings(poolIDs)

	// Round trip 2: every heartbeat, and the commands of every job type in
	// known_jobs (gocraft/work adds each pool's job names there when the pool
	// starts, so this is nearly always all of them). The commands are sent
	// as they are built and the replies read one job type at a time into
	// one reused slice, so that memory does not grow with pools x job types
	// beyond the snapshot itself.
	snap.Pools = make([]model.Pool, len(poolIDs))
	for i, id := range poolIDs {
		snap.Pools[i].ID = id
	}
	sort.Strings(known)
	known = slices.Compact(known)
	sent := 0
	hb := newKeyBuf(keys.Heartbeat(""), poolIDs, "")
	for _, id := range poolIDs {
		if err := conn.Send("HGETALL", hb.arg(id)...); err != nil {
			drain(ctx, conn, sent)
			return nil, fmt.Errorf("send HGETALL: %w", err)
		}
		sent++
	}
	for _, job := range known {
		n, err := sendJobType(conn, keys, job, poolIDs)
		sent += n
		if err != nil {
			drain(ctx, conn, sent)
			return nil, err
		}
	}
	if sent == 0 {
		snap.JobTypes = []model.JobType{}
		model.Analyze(snap, deadAfter)
		return snap, nil
	}
	if err := conn.Flush(); err != nil {
		return nil, fmt.Errorf("send to redis: %w", err)
	}
	rt2 := make([]reply, len(poolIDs))
	if err := receiveInto(ctx, conn, rt2); err != nil {
		return nil, err
	}
	names := map[string]string{} // job names, shared by all heartbeats
	for i, id := range poolIDs {
		p := &snap.Pools[i]
		if err := fatalReply(rt2[i], keys.Heartbeat(id)); err != nil {
			drain(ctx, conn, sent-len(poolIDs))
			return nil, err
		}
		p.Heartbeat, p.Warnings = parseHeartbeat(rt2[i])
		if p.Heartbeat != nil {
			internStrings(p.Heartbeat.JobNames, names)
		}
	}
	ps := alignedPools(snap, poolIDs)
	per := 6 + len(poolIDs)
	r := make([]reply, per)
	jobTypes := make([]model.JobType, 0, len(known))
	for i, job := range known {
		jobTypes = append(jobTypes, model.JobType{Name: job})
		if err := readJobType(ctx, conn, keys, &jobTypes[i], ps, r); err != nil {
			drain(ctx, conn, (len(known)-i-1)*per)
			return nil, err
		}
	}

	// Round trip 3, only for job types that heartbeats name and known_jobs
	// lacks.
	var extra []string
	for _, p := range snap.Pools {
		if p.Heartbeat == nil {
			continue
		}
		for _, n := range p.Heartbeat.JobNames {
			if _, found := slices.BinarySearch(known, n); !found && !slices.Contains(extra, n) {
				extra = append(extra, n)
			}
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		sent := 0
		for _, job := range extra {
			n, err := sendJobType(conn, keys, job, poolIDs)
			sent += n
			if err != nil {
				drain(ctx, conn, sent)
				return nil, err
			}
		}
		if err := conn.Flush(); err != nil {
			return nil, fmt.Errorf("send to redis: %w", err)
		}
		for i, job := range extra {
			jobTypes = append(jobTypes, model.JobType{Name: job})
			if err := readJobType(ctx, conn, keys, &jobTypes[len(jobTypes)-1], ps, r); err != nil {
				drain(ctx, conn, (len(extra)-i-1)*per)
				return nil, err
			}
		}
		sort.Slice(jobTypes, func(i, j int) bool { return jobTypes[i].Name < jobTypes[j].Name })
	}
	ps.flush()
	snap.JobTypes = jobTypes
	model.Analyze(snap, deadAfter)

	// Round trip 4, only when drift shows: re-read the counters of the
	// drifted job types.
	var drifted []string
	for _, jt := range snap.JobTypes {
		if jt.Drift {
			drifted = append(drifted, jt.Name)
		}
	}
	if len(drifted) == 0 {
		return snap, nil
	}
	per = 2 + len(poolIDs)
	cmds := make([]cmd, 0, len(drifted)*per)
	for _, job := range drifted {
		cmds = append(cmds, countersCmds(keys, job, poolIDs)...)
	}
	rt4, err := pipeline(ctx, conn, cmds)
	if err != nil {
		return nil, err
	}
	ps = alignedPools(snap, poolIDs) // Analyze has sorted the pools
	for i, job := range drifted {
		r := rt4[i*per : (i+1)*per]
		if err := fatalReplies(r, job); err != nil {
			return nil, err
		}
		jt, _ := snap.JobType(job)
		// Start this job type's counters afresh from the re-read.
		jt.Warnings = dropPrefixed(jt.Warnings, counterWarning)
		for pi := range snap.Pools {
			p := &snap.Pools[pi]
			delete(p.InProgress, job)
			delete(p.LockInfo, job)
			p.Warnings = dropPrefixed(p.Warnings, keys.InProgress(job, p.ID)+": ")
		}
		applyCounters(keys, jt, ps, r)
	}
	ps.flush()
	model.Analyze(snap, deadAfter)
	return snap, nil
}

// sendJobType sends the commands of one job type: LLEN and LINDEX -1 of the
// queue, the counters (countersCmds), GET max_concurrency, EXISTS paused. It
// returns how many were sent.
func sendJobType(conn redis.Conn, keys Keys, job string, poolIDs []string) (int, error) {
	sent, err := sendCmds(conn, cmd{"LLEN", []any{keys.Queue(job)}}, cmd{"LINDEX", []any{keys.Queue(job), -1}})
	if err != nil {
		return sent, err
	}
	n, err := sendCounters(conn, keys, job, poolIDs)
	sent += n
	if err != nil {
		return sent, err
	}
	n, err = sendCmds(conn, cmd{"GET", []any{keys.MaxConcurrency(job)}}, cmd{"EXISTS", []any{keys.Paused(job)}})
	return sent + n, err
}

// readJobType reads the replies of sendJobType into r (6 + len(poolIDs)
// long) and fills jt and the pools' entries for it. It fails on a reply
// that makes the snapshot untrustworthy (see fatalReply), after reading all
// of this job type's replies.
func readJobType(ctx context.Context, conn redis.Conn, keys Keys, jt *model.JobType, ps *poolSet, r []reply) error {
	if err := receiveInto(ctx, conn, r); err != nil {
		return err
	}
	job := jt.Name
	per := len(r)
	if err := fatalReplies(r, job); err != nil {
		return err
	}
	var err error
	jt.Queued, err = intReply(r[0])
	if err != nil {
		jt.Warnings = append(jt.Warnings, fmt.Sprintf("queue %s: %v", keys.Queue(job), err))
	}
	if r[1].err != nil {
		jt.Warnings = append(jt.Warnings, fmt.Sprintf("queue %s: %v", keys.Queue(job), r[1].err))
	} else if r[1].v != nil {
		raw, _ := redis.String(r[1].v, nil)
		if j := ParseJob(raw); j.Err != nil {
			jt.Warnings = append(jt.Warnings, fmt.Sprintf("oldest queued job: %v", j.Err))
		} else {
			jt.OldestEnqueuedAt = j.EnqueuedAt
		}
	}
	applyCounters(keys, jt, ps, r[2:2+2+len(ps.ids)])
	jt.MaxConcurrency, err = intReply(r[per-2])
	if err != nil {
		jt.Warnings = append(jt.Warnings, fmt.Sprintf("%s: %v", keys.MaxConcurrency(job), err))
	}
	paused, err := intReply(r[per-1])
	if err != nil {
		jt.Warnings = append(jt.Warnings, fmt.Sprintf("%s: %v", keys.Paused(job), err))
	}
	jt.Paused = paused > 0
	return nil
}

// countersCmds are the commands of the drift check for one job type, next to
// each other: GET lock, HGETALL lock_info, LLEN of each pool's list.
func countersCmds(keys Keys, job string, poolIDs []string) []cmd {
	cmds := make([]cmd, 0, 2+len(poolIDs))
	cmds = append(cmds, cmd{"GET", []any{keys.Lock(job)}}, cmd{"HGETALL", []any{keys.LockInfo(job)}})
	for _, id := range poolIDs {
		cmds = append(cmds, cmd{"LLEN", []any{keys.InProgress(job, id)}})
	}
	return cmds
}

const counterWarning = "counter: "

// applyCounters fills a job type's lock and lock_info from the replies of
// countersCmds, and keeps its pools' lock_info and in-progress entries in ps
// until ps.flush puts them in the pools' maps: knowing how many entries each
// pool gets, flush makes each map once at its size, where growing them entry
// by entry made as much garbage as the replies themselves (1,000 pools x 20
// job types), and a map sized for every job type would waste memory at
// 10,000 pools holding jobs of a few.
func applyCounters(keys Keys, jt *model.JobType, ps *poolSet, r []reply) {
	job := jt.Name
	var err error
	jt.Lock, err = intReply(r[0])
	if err != nil {
		jt.Warnings = append(jt.Warnings, fmt.Sprintf("%s%s: %v", counterWarning, keys.Lock(job), err))
	}
	pc := pendingCounters{job: job, inProg: make([]int64, len(ps.ids)), lockInfo: make([]int64, len(ps.ids)), hasLockInfo: make([]bool, len(ps.ids))}
	li, w := lockInfo(r[1], keys.LockInfo(job), ps, &pc)
	for _, x := range w {
		jt.Warnings = append(jt.Warnings, counterWarning+x)
	}
	jt.LockInfo = li
	for pi, id := range ps.ids {
		n, err := intReply(r[2+pi])
		if err != nil {
			p := ps.pools[pi]
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %v", keys.InProgress(job, id), err))
			continue
		}
		pc.inProg[pi] = n
		if n > 0 {
			ps.nIP[pi]++
		}
	}
	ps.pending = append(ps.pending, pc)
}

// poolSet is the pools of a snapshot in the order of ids (the sorted pool
// IDs), with the counters applyCounters keeps for them and, by pool
// position, how many in-progress and lock_info entries they add (counted as
// the replies come in, while Redis is still answering, so that flush has
// less to do once the last reply is read).
type poolSet struct {
	ids      []string
	pools    []*model.Pool
	index    map[string]int
	pending  []pendingCounters
	nIP, nLI []int32
}

// pendingCounters are one job type's entries for the pools' maps, by pool
// position: in-progress lengths (0: none) and lock_info fields.
type pendingCounters struct {
	job         string
	inProg      []int64
	lockInfo    []int64
	hasLockInfo []bool
}

// flush puts the pending entries in the pools' maps, each map made at most
// once and at its size.
func (ps *poolSet) flush() {
	for pi, p := range ps.pools {
		nIP, nLI := ps.nIP[pi], ps.nLI[pi]
		ps.nIP[pi], ps.nLI[pi] = 0, 0
		if nIP > 0 && p.InProgress == nil {
			p.InProgress = make(map[string]int64, nIP)
		}
		if nLI > 0 && p.LockInfo == nil {
			p.LockInfo = make(map[string]int64, nLI)
		}
		for i := range ps.pending {
			pc := &ps.pending[i]
			if n := pc.inProg[pi]; n > 0 {
				p.InProgress[pc.job] = n
			}
			if pc.hasLockInfo[pi] {
				p.LockInfo[pc.job] = pc.lockInfo[pi]
			}
		}
	}
	ps.pending = ps.pending[:0]
}

// internStrings replaces each string of ss by an equal one kept in seen
// (adding it when new), so that the job names of thousands of heartbeats
// share one copy each and do not keep each heartbeat's job_names field
// alive.
func internStrings(ss []string, seen map[string]string) {
	for i, s := range ss {
		if v, ok := seen[s]; ok {
			ss[i] = v
			continue
		}
		v := strings.Clone(s)
		seen[v] = v
		ss[i] = v
	}
}

// alignedPools returns the pools of snap in the order of poolIDs.
func alignedPools(snap *model.Snapshot, poolIDs []string) *poolSet {
	ps := &poolSet{ids: poolIDs, pools: make([]*model.Pool, len(poolIDs)), index: make(map[string]int, len(poolIDs)),
		nIP: make([]int32, len(poolIDs)), nLI: make([]int32, len(poolIDs))}
	for i, id := range poolIDs {
		ps.index[id] = i
	}
	for i := range snap.Pools {
		if pi, ok := ps.index[snap.Pools[i].ID]; ok {
			ps.pools[pi] = &snap.Pools[i]
		}
	}
	return ps
}

// sendCounters sends countersCmds without building them first; it returns
// how many commands were sent.
func sendCounters(conn redis.Conn, keys Keys, job string, poolIDs []string) (int, error) {
	n, err := sendCmds(conn, cmd{"GET", []any{keys.Lock(job)}}, cmd{"HGETALL", []any{keys.LockInfo(job)}})
	if err != nil {
		return n, err
	}
	kb := newKeyBuf(keys.Queue(job)+":", poolIDs, ":inprogress")
	for _, id := range poolIDs {
		if err := conn.Send("LLEN", kb.arg(id)...); err != nil {
			return n, fmt.Errorf("send LLEN: %w", err)
		}
		n++
	}
	return n, nil
}

// keyBuf builds prefix+id+suffix keys in one reused buffer, for commands
// that take one key each (LLEN and HGETALL of every pool): Send writes the
// command out before it returns and keeps nothing, so the next key may
// overwrite the last. The key goes to Send as a []byte held in an interface
// made again only when the key's length changes (never, when all pool IDs
// are as long, as gocraft/work's are), so that building and sending 20,000
// keys allocates nothing per key.
type keyBuf struct {
	prefix, suffix string
	buf            []byte
	args           []any
}

func newKeyBuf(prefix string, ids []string, suffix string) *keyBuf {
	longest := 0
	for _, id := range ids {
		longest = max(longest, len(id))
	}
	return &keyBuf{prefix: prefix, suffix: suffix, buf: make([]byte, 0, len(prefix)+longest+len(suffix)), args: make([]any, 1)}
}

// arg is the argument list of a command on the key of id, valid until the
// next call.
func (k *keyBuf) arg(id string) []any {
	b := append(append(append(k.buf[:0], k.prefix...), id...), k.suffix...)
	if prev, ok := k.args[0].([]byte); !ok || len(prev) != len(b) {
		k.args[0] = b // the buffer is long enough for every key: b is k.buf's array
	}
	return k.args
}

func sendCmds(conn redis.Conn, cmds ...cmd) (int, error) {
	for i, c := range cmds {
		if err := conn.Send(c.name, c.args...); err != nil {
			return i, fmt.Errorf("send %s: %w", c.name, err)
		}
	}
	return len(cmds), nil
}

// dropPrefixed drops the warnings that start with prefix.
func dropPrefixed(ws []string, prefix string) []string {
	var out []string
	for _, w := range ws {
		if !strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}

// cmd is one command of a pipeline.
type cmd struct {
	name string
	args []any
}

// reply is one reply of a pipeline: a value, or the error reply of that
// command alone.
type reply struct {
	v   any
	err error
}

// pipeline sends the commands, flushes once and reads every reply: one round
// trip. A per-command error reply (redis.Error) is kept in its reply; any
// other error (connection, timeout, refused by a read-only connection) fails
// the whole pipeline.
func pipeline(ctx context.Context, conn redis.Conn, cmds []cmd) ([]reply, error) {
	for _, c := range cmds {
		if err := conn.Send(c.name, c.args...); err != nil {
			return nil, fmt.Errorf("send %s: %w", c.name, err)
		}
	}
	if err := conn.Flush(); err != nil {
		return nil, fmt.Errorf("send to redis: %w", err)
	}
	out := make([]reply, len(cmds))
	if err := receiveInto(ctx, conn, out); err != nil {
		return nil, err
	}
	return out, nil
}

// receiveInto reads len(out) replies. A per-command error reply is kept in
// its reply; any other error fails the whole read.
//
// redigo's ReceiveContext starts a goroutine for every reply; here only the
// first reply (the wait for Redis to start answering) is read that way, so
// that cancelling ctx ends the wait. The others are read with the time left
// until ctx's deadline (the connection's own read timeout without one), and
// ctx is checked between replies.
func receiveInto(ctx context.Context, conn redis.Conn, out []reply) error {
	cwt, _ := conn.(redis.ConnWithTimeout)
	dl, hasDeadline := ctx.Deadline()
	for i := range out {
		var v any
		var err error
		switch {
		case i == 0 || cwt == nil:
			v, err = redis.ReceiveContext(conn, ctx)
		case i%256 == 0 && ctx.Err() != nil:
			err = ctx.Err()
		case hasDeadline:
			left := time.Until(dl)
			if left <= 0 {
				err = context.DeadlineExceeded
				break
			}
			v, err = cwt.ReceiveWithTimeout(left)
		default:
			v, err = conn.Receive()
		}
		if err != nil && !isErrorReply(err) {
			return fmt.Errorf("read from redis: %w", err)
		}
		out[i] = reply{v: v, err: err}
	}
	return nil
}

// isErrorReply reports whether err is an error reply of one command (as
// opposed to a connection error). A function of its own, so that the
// target of errors.As is not allocated for every reply.
func isErrorReply(err error) bool {
	var re redis.Error
	return errors.As(err, &re)
}

// drain reads and drops n replies still due on conn after an early return,
// so that the connection can be used again; errors end it quietly.
func drain(ctx context.Context, conn redis.Conn, n int) {
	if n <= 0 {
		return
	}
	if err := conn.Flush(); err != nil {
		return
	}
	buf := make([]reply, min(n, 1024))
	for n > 0 {
		k := min(n, len(buf))
		if receiveInto(ctx, conn, buf[:k]) != nil {
			return
		}
		n -= k
	}
}

func isWrongTypeErr(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(string(re), "WRONGTYPE")
}

func isNoPerm(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(string(re), "NOPERM")
}

// fatalReply turns an error reply other than WRONGTYPE into an error: the
// snapshot cannot be trusted when Redis refuses to answer (NOAUTH, NOPERM,
// LOADING, ...).
func fatalReply(r reply, what string) error {
	if r.err == nil || isWrongTypeErr(r.err) {
		return nil
	}
	msg := r.err.Error()
	switch {
	case strings.HasPrefix(msg, "NOAUTH"):
		return fmt.Errorf("read %s: authentication required: set REDIS_PASSWORD or --password-file (%s)", what, msg)
	case strings.HasPrefix(msg, "NOPERM"):
		return fmt.Errorf("read %s: the Redis user may not read it (%s)", what, msg)
	}
	return fmt.Errorf("read %s: %w", what, r.err)
}

func fatalReplies(rs []reply, what string) error {
	for _, r := range rs {
		if r.err == nil {
			continue
		}
		if err := fatalReply(r, "job type "+what); err != nil {
			return err
		}
	}
	return nil
}

func redisTime(r reply) (time.Time, error) {
	if r.err != nil {
		return time.Time{}, r.err
	}
	parts, err := redis.Int64s(r.v, nil)
	if err != nil || len(parts) != 2 {
		return time.Time{}, fmt.Errorf("redis TIME: unexpected reply %v", r.v)
	}
	return time.Unix(parts[0], parts[1]*1000), nil
}

// setMembers reads an SMEMBERS reply; a key of the wrong type is a warning.
func setMembers(r reply, key string) ([]string, []string, error) {
	if r.err != nil {
		if isWrongTypeErr(r.err) {
			return nil, []string{fmt.Sprintf("%s is not a set (%v)", key, r.err)}, nil
		}
		return nil, nil, fatalReply(r, key)
	}
	m, err := redis.Strings(r.v, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", key, err)
	}
	return m, nil, nil
}

// intReply reads an integer reply or a string holding an integer; nil is 0.
func intReply(r reply) (int64, error) {
	if r.err != nil {
		return 0, r.err
	}
	switch v := r.v.(type) {
	case nil:
		return 0, nil
	case int64:
		return v, nil
	case []byte:
		n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a whole number", truncate(string(v), 40))
		}
		return n, nil
	}
	return 0, fmt.Errorf("unexpected reply %T", r.v)
}

// lockInfo reads an HGETALL of lock_info; fields that are not numbers are
// left out with a warning. The reply is read field by field, without an
// intermediate map of strings.
//
// Fields that are pool IDs of ps share those strings rather than allocating
// their own: every job type's lock_info names the same pools.
//
// The fields of ps's pools also go into pc by pool position (counted in
// ps.nLI), so that nothing looks them up in the map again.
func lockInfo(r reply, key string, ps *poolSet, pc *pendingCounters) (map[string]int64, []string) {
	if r.err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", key, r.err)}
	}
	vs, err := redis.Values(r.v, nil)
	if err == nil && len(vs)%2 != 0 {
		err = errors.New("redigo: StringMap expects even number of values result")
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v", key, err)}
	}
	if len(vs) == 0 {
		return nil, nil
	}
	var warnings []string
	out := make(map[string]int64, len(vs)/2)
	for i := 0; i < len(vs); i += 2 {
		fb, ok1 := vs[i].([]byte)
		vb, ok2 := vs[i+1].([]byte)
		if !ok1 || !ok2 {
			for pi, has := range pc.hasLockInfo { // nothing of this reply is kept
				if has {
					ps.nLI[pi]--
					pc.lockInfo[pi], pc.hasLockInfo[pi] = 0, false
				}
			}
			return nil, []string{fmt.Sprintf("%s: unexpected reply", key)}
		}
		var f string
		pi, inSet := ps.index[string(fb)]
		if inSet {
			f = ps.ids[pi]
		} else {
			f = string(fb)
		}
		n, err := parseIntBytes(vb)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s field %s: %q is not a whole number", key, f, truncate(string(vb), 40)))
			continue
		}
		out[f] = n
		if inSet {
			if !pc.hasLockInfo[pi] {
				ps.nLI[pi]++
			}
			pc.lockInfo[pi], pc.hasLockInfo[pi] = n, true
		}
	}
	sort.Strings(warnings)
	return out, warnings
}

// parseIntBytes is strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
// without a string for the common case (a plain decimal).
func parseIntBytes(b []byte) (int64, error) {
	if len(b) > 0 && len(b) <= 18 {
		var n int64
		neg := b[0] == '-'
		digits := b
		if neg {
			digits = b[1:]
		}
		ok := len(digits) > 0
		for _, c := range digits {
			if c < '0' || c > '9' {
				ok = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if ok {
			if neg {
				n = -n
			}
			return n, nil
		}
	}
	return strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
}

// parseHeartbeat reads an HGETALL of a heartbeat hash: nil when the hash is
// missing. A hash of the wrong type or an unreadable heartbeat_at leaves the
// age unknown (HeartbeatAtMalformed), so the pool is never classed dead from
// data that could not be read.
func parseHeartbeat(r reply) (*model.Heartbeat, []string) {
	if r.err != nil {
		return &model.Heartbeat{HeartbeatAtMalformed: true}, []string{fmt.Sprintf("heartbeat: %v", r.err)}
	}
	f, err := heartbeatFields(r.v)
	if err != nil {
		return &model.Heartbeat{HeartbeatAtMalformed: true}, []string{fmt.Sprintf("heartbeat: %v", err)}
	}
	if f.n == 0 {
		return nil, nil
	}
	hb := &model.Heartbeat{
		Host:      string(f.val[hbHost]),
		JobNames:  model.SplitList(string(f.val[hbJobNames])),
		WorkerIDs: model.SplitList(string(f.val[hbWorkerIDs])),
	}
	var warnings []string
	num := func(field int, name string, dst *int64) {
		if !f.has[field] {
			return
		}
		v := f.val[field]
		n, err := parseIntBytes(v)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("heartbeat %s %q is not a whole number", name, truncate(string(v), 40)))
			return
		}
		*dst = n
	}
	if !f.has[hbAt] {
		hb.HeartbeatAtMissing = true
	} else if n, err := parseIntBytes(f.val[hbAt]); err != nil {
		hb.HeartbeatAtMalformed = true
		warnings = append(warnings, fmt.Sprintf("heartbeat heartbeat_at %q is not a whole number", truncate(string(f.val[hbAt]), 40)))
	} else {
		hb.HeartbeatAt = n
	}
	num(hbStarted, "started_at", &hb.StartedAt)
	num(hbPID, "pid", &hb.PID)
	num(hbConcurrency, "concurrency", &hb.Concurrency)
	return hb, warnings
}

// The heartbeat fields parseHeartbeat reads.
const (
	hbAt = iota
	hbStarted
	hbHost
	hbPID
	hbConcurrency
	hbJobNames
	hbWorkerIDs
	hbFieldCount
)

// hbFields are a heartbeat's fields as read: n fields in all, val and has
// for the ones parseHeartbeat reads.
type hbFields struct {
	n   int
	val [hbFieldCount][]byte
	has [hbFieldCount]bool
}

// heartbeatFields reads an HGETALL reply without building a map of strings
// (10,000 heartbeats are 10,000 maps per poll otherwise). A reply
// redis.StringMap would refuse is refused with its error.
func heartbeatFields(v any) (hbFields, error) {
	var f hbFields
	vs, ok := v.([]any)
	if ok && len(vs)%2 == 0 {
		for i := 0; i < len(vs); i += 2 {
			k, ok1 := vs[i].([]byte)
			val, ok2 := vs[i+1].([]byte)
			if !ok1 || !ok2 {
				return heartbeatFieldsSlow(v)
			}
			f.n++
			if idx := hbFieldIndex(k); idx >= 0 {
				f.val[idx], f.has[idx] = val, true
			}
		}
		return f, nil
	}
	return heartbeatFieldsSlow(v)
}

// heartbeatFieldsSlow is heartbeatFields through redis.StringMap, for any
// reply that is not a flat list of bulk strings.
func heartbeatFieldsSlow(v any) (hbFields, error) {
	var f hbFields
	m, err := redis.StringMap(v, nil)
	if err != nil {
		return f, err
	}
	for k, val := range m {
		f.n++
		if idx := hbFieldIndex([]byte(k)); idx >= 0 {
			f.val[idx], f.has[idx] = []byte(val), true
		}
	}
	return f, nil
}

// hbFieldIndex is the index in hbFields of a field parseHeartbeat reads, -1
// for any other.
func hbFieldIndex(name []byte) int {
	switch string(name) {
	case "heartbeat_at":
		return hbAt
	case "started_at":
		return hbStarted
	case "host":
		return hbHost
	case "pid":
		return hbPID
	case "concurrency":
		return hbConcurrency
	case "job_names":
		return hbJobNames
	case "worker_ids":
		return hbWorkerIDs
	}
	return -1
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// RawPeeker gives the raw payloads of a pool's in-progress jobs, as the
// screen shows them (it parses and cleans them itself).
type RawPeeker struct{ Client *Client }

// PeekInProgress returns the raw text of the first n jobs of the list.
func (p RawPeeker) PeekInProgress(ctx context.Context, poolID, job string, n int) ([]string, error) {
	jobs, err := p.Client.PeekInProgress(ctx, poolID, job, n)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(jobs))
	for i, j := range jobs {
		out[i] = j.Raw
	}
	return out, nil
}
