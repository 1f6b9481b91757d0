// ReadSnapshot: the whole namespace in a few pipelined round trips, as
// named steps (the sets, the heartbeats and job types, the workers'
// observations, the job types only heartbeats name, the re-read of drifted
// counters).

package redisq

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/model"
)

// ReadSnapshot reads a whole namespace in at most three round trips whatever
// the number of pools, job types and workers, and classifies it with
// model.Analyze(snap, deadAfter):
//
//  1. TIME, SMEMBERS <ns>:worker_pools, SMEMBERS <ns>:known_jobs, ZCARD of
//     <ns>:retry, <ns>:scheduled and <ns>:dead;
//  2. HGETALL of every pool's heartbeat, and per job type of known_jobs:
//     LLEN and LINDEX -1 of the queue, GET lock, HGETALL lock_info, LLEN of
//     every pool's in-progress list, GET max_concurrency, EXISTS paused;
//  3. HGETALL of the observation `<ns>:worker:<worker>` of every worker
//     the heartbeats' worker_ids name, and the commands of round trip 2 for
//     job types that heartbeats' job_names name and known_jobs lacks (none
//     when gocraft/work itself wrote the data); skipped when there are
//     neither. It goes out as soon as the heartbeats are read, while the
//     job types' replies of round trip 2 are still arriving, so it adds a
//     flush but little waiting.
//
// A pipeline is not atomic: a job fetched or finished by a live pool between
// two of its commands would look like drift. The commands that take part in
// the drift check (lock, lock_info and the in-progress lengths of one job
// type) are therefore sent next to each other, and when some job type still
// shows drift, a fourth round trip re-reads just those commands for just
// those job types; the re-read values are kept, and only drift that shows
// again is reported. Even so, a pool that registers between round trips 1
// and 2 can show as drift once: confirm drift with a second snapshot. A
// worker's observation is read after its pool's heartbeat, so a job that
// ended in between shows the worker idle.
//
// "Now" is Redis's TIME. A Redis ACL user without +time (TIME is not in
// @read) gets the local clock and a warning. A key of the wrong type, a
// malformed heartbeat or a queued job that is not JSON gives that item a
// warning and never fails the snapshot; other error replies (NOAUTH, NOPERM
// on a key, ...) and connection errors do.
func ReadSnapshot(ctx context.Context, conn redis.Conn, namespace string, deadAfter time.Duration) (*model.Snapshot, error) {
	rd := &snapshotReader{ctx: ctx, conn: conn, keys: NewKeys(namespace), deadAfter: deadAfter,
		snap: &model.Snapshot{Namespace: namespace}}
	if err := rd.readSets(); err != nil {
		return nil, err
	}
	sent, err := rd.sendHeartbeatsAndKnownJobs()
	if err != nil {
		return nil, err
	}
	if sent == 0 {
		rd.snap.JobTypes, rd.snap.Workers = []model.JobType{}, []model.Worker{}
		model.Analyze(rd.snap, deadAfter)
		return rd.snap, nil
	}
	if err := rd.readHeartbeats(sent); err != nil {
		return nil, err
	}
	third, err := rd.sendRoundTrip3()
	if err != nil {
		return nil, err
	}
	if err := rd.readKnownJobTypes(); err != nil {
		drain(rd.ctx, rd.conn, third)
		return nil, err
	}
	if err := rd.readObservations(); err != nil {
		return nil, err
	}
	if err := rd.readUnregisteredJobTypes(); err != nil {
		return nil, err
	}
	return rd.finish(deadAfter)
}

// finish puts the pools and job types read into the snapshot, classifies
// them, and re-reads the job types whose drift may be transient (see
// rereadDrifted): the last step of ReadSnapshot and ReadSweep.
func (rd *snapshotReader) finish(deadAfter time.Duration) (*model.Snapshot, error) {
	rd.ps.flush()
	rd.snap.JobTypes = rd.jobTypes
	model.Analyze(rd.snap, deadAfter)
	if err := rd.rereadDrifted(); err != nil {
		return nil, err
	}
	if err := rd.readLeaked(); err != nil {
		return nil, err
	}
	return rd.snap, nil
}

// snapshotReader is one ReadSnapshot in progress: each method is one step.
type snapshotReader struct {
	ctx       context.Context
	conn      redis.Conn
	keys      Keys
	deadAfter time.Duration
	snap      *model.Snapshot

	poolIDs  []string // the members of worker_pools, sorted
	known    []string // the members of known_jobs, sorted, distinct
	extra    []string // job names only heartbeats name, sorted
	ps       *poolSet
	jobTypes []model.JobType
	// replies holds one job type's replies at a time (6 + len(poolIDs)),
	// reused by every job type of round trips 2 and 3.
	replies []reply
}

// readSets is round trip 1: Redis's clock, the two sets and the sizes of
// the three job sets.
func (rd *snapshotReader) readSets() error {
	keys, snap := rd.keys, rd.snap
	rt1, err := pipeline(rd.ctx, rd.conn, []cmd{
		{"TIME", nil},
		{"SMEMBERS", []any{keys.WorkerPools()}},
		{"SMEMBERS", []any{keys.KnownJobs()}},
		{"ZCARD", []any{SetKey(keys, model.SetRetry)}},
		{"ZCARD", []any{SetKey(keys, model.SetScheduled)}},
		{"ZCARD", []any{SetKey(keys, model.SetDead)}},
	})
	if err != nil {
		return err
	}
	now, err := timeReply(rt1[0])
	switch {
	case err == nil:
		snap.RedisTime = now
	case isNoPerm(rt1[0].err):
		snap.RedisTime = time.Now()
		snap.Warnings = append(snap.Warnings, "TIME was refused (the Redis user lacks +time): ages use the local clock")
	default:
		if ferr := fatalReply(rt1[0], "redis TIME"); ferr != nil {
			return ferr
		}
		return err
	}
	poolIDs, w, err := setMembers(rt1[1], keys.WorkerPools())
	if err != nil {
		return err
	}
	snap.Warnings = append(snap.Warnings, w...)
	known, w, err := setMembers(rt1[2], keys.KnownJobs())
	if err != nil {
		return err
	}
	snap.Warnings = append(snap.Warnings, w...)
	sort.Strings(poolIDs)
	sort.Strings(known)
	rd.poolIDs, rd.known = poolIDs, slices.Compact(known)
	return rd.readSetSizes(rt1[3:])
}

// readSetSizes reads the ZCARD replies of round trip 1 (retry, scheduled,
// dead) into snap.Sets; a key of another type counts 0 with a warning.
func (rd *snapshotReader) readSetSizes(r []reply) error {
	sets := rd.snap.Sets
	dst := []*int64{&sets.Retry, &sets.Scheduled, &sets.Dead}
	for i, set := range []model.SetName{model.SetRetry, model.SetScheduled, model.SetDead} {
		key := SetKey(rd.keys, set)
		if isWrongType(r[i].err) {
			rd.snap.Warnings = append(rd.snap.Warnings, fmt.Sprintf("%s is not a sorted set (%v)", key, r[i].err))
			continue
		}
		if err := fatalReply(r[i], key); err != nil {
			return err
		}
		n, err := intReply(r[i])
		if err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		*dst[i] = n
	}
	rd.snap.Sets = sets
	return nil
}

// sendHeartbeatsAndKnownJobs sends round trip 2: every heartbeat, and the
// commands of every job type in known_jobs (gocraft/work adds each pool's
// job names there when the pool starts, so this is nearly always all of
// them). The commands are sent as they are built and the replies read one
// job type at a time into one reused slice, so that memory does not grow
// with pools x job types beyond the snapshot itself. It returns how many
// commands were sent (and flushed).
func (rd *snapshotReader) sendHeartbeatsAndKnownJobs() (int, error) {
	rd.snap.Pools = make([]model.Pool, len(rd.poolIDs))
	for i, id := range rd.poolIDs {
		rd.snap.Pools[i].ID = id
	}
	sent := 0
	hb := newKeyBuf(rd.keys.Heartbeat(""), rd.poolIDs, "")
	for _, id := range rd.poolIDs {
		if err := rd.conn.Send("HGETALL", hb.arg(id)...); err != nil {
			drain(rd.ctx, rd.conn, sent)
			return 0, fmt.Errorf("send HGETALL: %w", err)
		}
		sent++
	}
	for _, job := range rd.known {
		n, err := sendJobType(rd.conn, rd.keys, job, rd.poolIDs)
		sent += n
		if err != nil {
			drain(rd.ctx, rd.conn, sent)
			return 0, err
		}
	}
	if sent == 0 {
		return 0, nil
	}
	if err := rd.conn.Flush(); err != nil {
		return 0, fmt.Errorf("send to redis: %w", err)
	}
	return sent, nil
}

// readHeartbeats reads the heartbeat replies of round trip 2 (sent commands
// in all) into the pools.
func (rd *snapshotReader) readHeartbeats(sent int) error {
	rt2 := make([]reply, len(rd.poolIDs))
	if err := receiveInto(rd.ctx, rd.conn, rt2); err != nil {
		return err
	}
	names := map[string]string{} // job names, shared by all heartbeats
	for i, id := range rd.poolIDs {
		p := &rd.snap.Pools[i]
		if err := fatalReply(rt2[i], rd.keys.Heartbeat(id)); err != nil {
			drain(rd.ctx, rd.conn, sent-len(rd.poolIDs))
			return err
		}
		p.Heartbeat, p.Warnings = parseHeartbeat(rt2[i])
		if p.Heartbeat != nil {
			internStrings(p.Heartbeat.JobNames, names)
		}
	}
	rd.ps = alignedPools(rd.snap, rd.poolIDs)
	return nil
}

// readKnownJobTypes reads the job type replies of round trip 2.
func (rd *snapshotReader) readKnownJobTypes() error {
	per := 6 + len(rd.poolIDs)
	rd.replies = make([]reply, per)
	rd.jobTypes = make([]model.JobType, 0, len(rd.known))
	for i, job := range rd.known {
		rd.jobTypes = append(rd.jobTypes, model.JobType{Name: job})
		if err := readJobType(rd.ctx, rd.conn, rd.keys, &rd.jobTypes[i], rd.ps, rd.replies); err != nil {
			drain(rd.ctx, rd.conn, (len(rd.known)-i-1)*per)
			return err
		}
	}
	return nil
}

// sendRoundTrip3 sends round trip 3 as soon as the heartbeats are read,
// while the job types' replies of round trip 2 are still arriving: HGETALL
// of the observation of every worker the heartbeats name, and the commands
// of the job types that heartbeats name and known_jobs lacks. It sends
// nothing when there are neither. It returns how many replies it made due.
func (rd *snapshotReader) sendRoundTrip3() (int, error) {
	pending := len(rd.known) * (6 + len(rd.poolIDs)) // round trip 2's job types
	rd.snap.Workers = poolWorkers(rd.snap.Pools)
	rd.extra = unregisteredJobNames(rd.snap.Pools, rd.known)
	if len(rd.snap.Workers) == 0 && len(rd.extra) == 0 {
		return 0, nil
	}
	sent, err := sendObservations(rd.conn, rd.keys, rd.snap.Workers)
	for _, job := range rd.extra {
		if err != nil {
			break
		}
		var n int
		n, err = sendJobType(rd.conn, rd.keys, job, rd.poolIDs)
		sent += n
	}
	if err == nil {
		if err = rd.conn.Flush(); err != nil {
			err = fmt.Errorf("send to redis: %w", err)
		}
	}
	if err != nil {
		drain(rd.ctx, rd.conn, pending+sent)
		return 0, err
	}
	return sent, nil
}

// unregisteredJobNames are the job names heartbeats name and known (sorted)
// lacks, sorted.
func unregisteredJobNames(pools []model.Pool, known []string) []string {
	var extra []string
	for _, p := range pools {
		if p.Heartbeat == nil {
			continue
		}
		for _, n := range p.Heartbeat.JobNames {
			if _, found := slices.BinarySearch(known, n); !found && !slices.Contains(extra, n) {
				extra = append(extra, n)
			}
		}
	}
	sort.Strings(extra)
	return extra
}

// readObservations reads the observation replies of round trip 3 into the
// workers.
func (rd *snapshotReader) readObservations() error {
	if err := readObservations(rd.ctx, rd.conn, rd.keys, rd.snap.Workers); err != nil {
		drain(rd.ctx, rd.conn, len(rd.extra)*(6+len(rd.poolIDs)))
		return err
	}
	return nil
}

// readUnregisteredJobTypes reads the job type replies of round trip 3.
// sendUnregisteredJobTypes sends, on their own, the commands of the job
// types that heartbeats name and known_jobs lacks: the reads that do not
// fold them into round trip 3 (the screen's poll and sweep) call it before
// readUnregisteredJobTypes.
func (rd *snapshotReader) sendUnregisteredJobTypes() error {
	rd.extra = unregisteredJobNames(rd.snap.Pools, rd.known)
	sent := 0
	for _, job := range rd.extra {
		n, err := sendJobType(rd.conn, rd.keys, job, rd.poolIDs)
		sent += n
		if err != nil {
			drain(rd.ctx, rd.conn, sent)
			return err
		}
	}
	if sent == 0 {
		return nil
	}
	if err := rd.conn.Flush(); err != nil {
		return fmt.Errorf("send to redis: %w", err)
	}
	return nil
}

func (rd *snapshotReader) readUnregisteredJobTypes() error {
	if len(rd.extra) == 0 {
		return nil
	}
	per := len(rd.replies)
	for i, job := range rd.extra {
		rd.jobTypes = append(rd.jobTypes, model.JobType{Name: job})
		if err := readJobType(rd.ctx, rd.conn, rd.keys, &rd.jobTypes[len(rd.jobTypes)-1], rd.ps, rd.replies); err != nil {
			drain(rd.ctx, rd.conn, (len(rd.extra)-i-1)*per)
			return err
		}
	}
	sort.Slice(rd.jobTypes, func(i, j int) bool { return rd.jobTypes[i].Name < rd.jobTypes[j].Name })
	return nil
}

// rereadDrifted is round trip 4, only when drift shows: it re-reads the
// counters of the drifted job types, starts their counters afresh from the
// re-read, and classifies the snapshot again.
func (rd *snapshotReader) rereadDrifted() error {
	snap, keys, poolIDs := rd.snap, rd.keys, rd.poolIDs
	var drifted []string
	for _, jt := range snap.JobTypes {
		if jt.Drift {
			drifted = append(drifted, jt.Name)
		}
	}
	if len(drifted) == 0 {
		return nil
	}
	per := 2 + len(poolIDs)
	cmds := make([]cmd, 0, len(drifted)*per)
	for _, job := range drifted {
		cmds = append(cmds, countersCmds(keys, job, poolIDs)...)
	}
	rt4, err := pipeline(rd.ctx, rd.conn, cmds)
	if err != nil {
		return err
	}
	ps := alignedPools(snap, poolIDs) // Analyze has sorted the pools
	for i, job := range drifted {
		r := rt4[i*per : (i+1)*per]
		if err := fatalReplies(r, job); err != nil {
			return err
		}
		jt, _ := snap.JobType(job)
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
	model.Analyze(snap, rd.deadAfter)
	return nil
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
		if j := model.ParseJob(raw); j.ParseErr != nil {
			jt.Warnings = append(jt.Warnings, fmt.Sprintf("oldest queued job: %v", j.ParseErr))
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
