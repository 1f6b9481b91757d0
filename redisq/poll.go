// ReadPoll: the screen's regular poll, whose cost grows with pools + job
// types + jobs in progress rather than pools x job types. It reads the
// in-progress lists only where jobs can be.

package redisq

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// PollRequest says which in-progress lists a poll reads besides those it
// reads anyway.
type PollRequest struct {
	// Open is the pool shown in the screen's detail view: all its lists
	// are read.
	Open string
	// JobTypes are job types whose every pool's list is read (the screen
	// passes those the last sweep found drifted, whose lists lock_info
	// does not describe).
	JobTypes []string
}

// ReadPoll reads a namespace like ReadSnapshot, except the in-progress
// lists: gocraft/work's fetch script records in lock_info, in the same
// atomic step that moves a job into a pool's in-progress list, which pools
// hold jobs of each type. So a poll reads the LLEN of a (pool, job type)
// list only where it can be non-empty:
//
//   - the pools lock_info names with a count above 0;
//   - every list of a pool that is dead or late (with or without a
//     heartbeat), whose lists a reap would move;
//   - every list of req.Open and of the job types in req.JobTypes, and of
//     job types that heartbeats name and known_jobs lacks (read as
//     ReadSnapshot reads them).
//
// Lists it does not read are taken as empty, which they are unless the
// counters have drifted. Its round trips: TIME and the sets; the
// heartbeats and six commands per job type; the lists chosen (plus the
// rare round trips of ReadSnapshot for unregistered and drifted job types).
//
// Drift: a list lock_info does not name is not read, so the in-progress
// side of the drift check is known only for job types whose lists were all
// read. For the others a poll reports drift only when lock and the
// lock_info total disagree (both read in full); the full check is the
// sweep's (ReadSweep). A drift seen is re-read before it is reported, as
// ReadSnapshot does, and the lists of a job type re-read that way are then
// all read.
func ReadPoll(ctx context.Context, conn redis.Conn, namespace string, deadAfter time.Duration, req PollRequest) (*model.Snapshot, error) {
	rd := &snapshotReader{ctx: ctx, conn: conn, keys: NewKeys(namespace), deadAfter: deadAfter,
		snap: &model.Snapshot{Namespace: namespace}}
	if err := rd.readSets(); err != nil {
		return nil, err
	}
	sent, err := rd.sendHeartbeatsAndCounters()
	if err != nil {
		return nil, err
	}
	if sent == 0 {
		rd.snap.JobTypes = []model.JobType{}
		model.Analyze(rd.snap, deadAfter)
		return rd.snap, nil
	}
	if err := rd.readHeartbeats(sent); err != nil {
		return nil, err
	}
	if err := rd.readJobTypeCounters(); err != nil {
		return nil, err
	}
	full := map[string]bool{}
	for _, job := range req.JobTypes {
		full[job] = true
	}
	rd.replies = make([]reply, 6+len(rd.poolIDs))
	if err := rd.readUnregisteredJobTypes(); err != nil {
		return nil, err
	}
	for _, jt := range rd.jobTypes {
		if _, known := slices.BinarySearch(rd.known, jt.Name); !known {
			full[jt.Name] = true
		}
	}
	rd.ps.flush()
	if err := rd.readChosenLists(req.Open, full); err != nil {
		return nil, err
	}
	rd.snap.JobTypes = rd.jobTypes
	model.Analyze(rd.snap, deadAfter)
	pollDrift(rd.snap, full)
	if err := rd.rereadDrifted(); err != nil {
		return nil, err
	}
	for _, jt := range rd.snap.JobTypes {
		if jt.Drift {
			full[jt.Name] = true // rereadDrifted read all its lists
		}
	}
	pollDrift(rd.snap, full)
	return rd.snap, nil
}

// pollDrift sets the drift of the job types whose lists were not all read
// from what was read in full (lock against the lock_info total), and lists
// the findings again.
func pollDrift(snap *model.Snapshot, full map[string]bool) {
	for i := range snap.JobTypes {
		jt := &snap.JobTypes[i]
		if !full[jt.Name] {
			jt.Drift = jt.Lock != jt.LockInfoTotal
		}
	}
	snap.Findings = model.Findings(snap)
}

// sendHeartbeatsAndCounters sends the poll's second round trip: every
// heartbeat, and per job type of known_jobs the commands of sendJobType
// without the in-progress lists. It returns how many commands were sent.
func (rd *snapshotReader) sendHeartbeatsAndCounters() (int, error) {
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
		n, err := sendJobType(rd.conn, rd.keys, job, nil)
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

// readJobTypeCounters reads the job type replies of the poll's second
// round trip, and puts each lock_info field of a pool in the set in that
// pool's LockInfo, as ReadSnapshot does.
func (rd *snapshotReader) readJobTypeCounters() error {
	const per = 6
	r := make([]reply, per)
	none := alignedPools(rd.snap, nil)
	rd.jobTypes = make([]model.JobType, 0, len(rd.known))
	for i, job := range rd.known {
		rd.jobTypes = append(rd.jobTypes, model.JobType{Name: job})
		if err := readJobType(rd.ctx, rd.conn, rd.keys, &rd.jobTypes[i], none, r); err != nil {
			drain(rd.ctx, rd.conn, (len(rd.known)-i-1)*per)
			return err
		}
	}
	none.pending = nil
	for _, jt := range rd.jobTypes {
		for id, n := range jt.LockInfo {
			pi, ok := rd.ps.index[id]
			if !ok {
				continue
			}
			p := rd.ps.pools[pi]
			if p.LockInfo == nil {
				p.LockInfo = map[string]int64{}
			}
			p.LockInfo[jt.Name] = n
		}
	}
	return nil
}

// readChosenLists reads the LLEN of the lists ReadPoll chooses, in one
// round trip; lists of job types in full were read already (full job types
// of req.JobTypes are read here, with every pool).
func (rd *snapshotReader) readChosenLists(open string, full map[string]bool) error {
	type pair struct {
		job string
		pi  int
	}
	every := make([]bool, len(rd.poolIDs))
	for pi, p := range rd.ps.pools {
		every[pi] = p.ID == open || model.Classify(p.Heartbeat, rd.snap.RedisTime, rd.deadAfter) != model.StatusAlive
	}
	var pairs []pair
	for _, jt := range rd.jobTypes {
		if _, known := slices.BinarySearch(rd.known, jt.Name); !known {
			continue // read with every pool already
		}
		for pi, id := range rd.ps.ids {
			if every[pi] || full[jt.Name] || jt.LockInfo[id] > 0 {
				pairs = append(pairs, pair{jt.Name, pi})
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	for i, pr := range pairs {
		if err := rd.conn.Send("LLEN", rd.keys.InProgress(pr.job, rd.ps.ids[pr.pi])); err != nil {
			drain(rd.ctx, rd.conn, i)
			return fmt.Errorf("send LLEN: %w", err)
		}
	}
	if err := rd.conn.Flush(); err != nil {
		return fmt.Errorf("send to redis: %w", err)
	}
	r := make([]reply, len(pairs))
	if err := receiveInto(rd.ctx, rd.conn, r); err != nil {
		return err
	}
	for i, pr := range pairs {
		key := rd.keys.InProgress(pr.job, rd.ps.ids[pr.pi])
		if err := fatalReply(r[i], key); err != nil {
			return err
		}
		p := rd.ps.pools[pr.pi]
		n, err := intReply(r[i])
		if err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %v", key, err))
			continue
		}
		if n > 0 {
			if p.InProgress == nil {
				p.InProgress = map[string]int64{}
			}
			p.InProgress[pr.job] = n
		}
	}
	return nil
}

// Poll reads the namespace with ReadPoll on a connection of its own.
func (c *Client) Poll(ctx context.Context, req PollRequest) (*model.Snapshot, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return nil, c.wrap(err)
	}
	defer conn.Close()
	snap, err := ReadPoll(ctx, conn, c.namespace, c.deadAfter, req)
	return snap, c.wrap(err)
}
