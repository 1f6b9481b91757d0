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
// heartbeats and six commands per job type; for each job type with lists
// chosen, lock, lock_info and those lists next to each other (see
// readChosenLists); plus the rare round trips of ReadSnapshot for
// unregistered and drifted job types.
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

// pollAttempts is how many times a poll reads a job type's chosen lists
// before it reads all of them: a pool that takes its first job of a type
// between two reads is read the next time.
const pollAttempts = 3

// readChosenLists reads the lists ReadPoll chooses. For each job type with
// any, it sends GET lock, HGETALL lock_info and the chosen lists' LLEN
// next to each other, as ReadSnapshot does, and takes lock and lock_info
// from there: a job fetched or finished after the first read of lock_info
// is then counted in the lists and in lock_info alike. A job type whose
// re-read lock_info names a pool whose list was not read is read again
// (and after pollAttempts, with every pool's list).
func (rd *snapshotReader) readChosenLists(open string, full map[string]bool) error {
	every := make([]bool, len(rd.poolIDs))
	for pi, p := range rd.ps.pools {
		every[pi] = p.ID == open || model.Classify(p.Heartbeat, rd.snap.RedisTime, rd.deadAfter) != model.StatusAlive
	}
	var pending []*model.JobType
	for i := range rd.jobTypes {
		if _, known := slices.BinarySearch(rd.known, rd.jobTypes[i].Name); known {
			pending = append(pending, &rd.jobTypes[i]) // unregistered ones were read with every pool
		}
	}
	for attempt := 1; len(pending) > 0; attempt++ {
		type group struct {
			jt  *model.JobType
			ids []string
			pis []int
		}
		var groups []group
		sent := 0
		for _, jt := range pending {
			g := group{jt: jt}
			for pi, id := range rd.ps.ids {
				if attempt >= pollAttempts || every[pi] || full[jt.Name] || jt.LockInfo[id] > 0 {
					g.ids, g.pis = append(g.ids, id), append(g.pis, pi)
				}
			}
			if len(g.ids) == 0 {
				continue // no jobs of this type anywhere as lock_info said
			}
			n, err := sendCounters(rd.conn, rd.keys, jt.Name, g.ids)
			sent += n
			if err != nil {
				drain(rd.ctx, rd.conn, sent)
				return err
			}
			groups = append(groups, g)
		}
		if len(groups) == 0 {
			return nil
		}
		if err := rd.conn.Flush(); err != nil {
			return fmt.Errorf("send to redis: %w", err)
		}
		pending = pending[:0]
		r := make([]reply, 0, 2+len(rd.poolIDs))
		for gi, g := range groups {
			r = r[:2+len(g.ids)]
			if err := receiveInto(rd.ctx, rd.conn, r); err != nil {
				return err
			}
			if err := fatalReplies(r, g.jt.Name); err != nil {
				rest := 0
				for _, h := range groups[gi+1:] {
					rest += 2 + len(h.ids)
				}
				drain(rd.ctx, rd.conn, rest)
				return err
			}
			if !rd.applyChosen(g.jt, g.pis, r) && attempt < pollAttempts {
				pending = append(pending, g.jt)
			}
		}
	}
	return nil
}

// applyChosen takes a job type's lock and lock_info from r (the replies of
// sendCounters for the pools at positions pis) and its pools' lists and
// lock_info fields. It reports whether every pool of the set that
// lock_info names with a count above 0 was read.
func (rd *snapshotReader) applyChosen(jt *model.JobType, pis []int, r []reply) bool {
	job := jt.Name
	jt.Warnings = dropPrefixed(jt.Warnings, counterWarning)
	var err error
	jt.Lock, err = intReply(r[0])
	if err != nil {
		jt.Warnings = append(jt.Warnings, fmt.Sprintf("%s%s: %v", counterWarning, rd.keys.Lock(job), err))
	}
	none := alignedPools(rd.snap, nil)
	li, w := lockInfo(r[1], rd.keys.LockInfo(job), none, &pendingCounters{job: job})
	for _, x := range w {
		jt.Warnings = append(jt.Warnings, counterWarning+x)
	}
	jt.LockInfo = li
	read := make([]bool, len(rd.ps.ids))
	for _, pi := range pis {
		read[pi] = true
	}
	complete := true
	for pi, p := range rd.ps.pools {
		delete(p.InProgress, job)
		delete(p.LockInfo, job)
		key := rd.keys.InProgress(job, p.ID)
		p.Warnings = dropPrefixed(p.Warnings, key+": ")
		if n, ok := li[p.ID]; ok {
			if p.LockInfo == nil {
				p.LockInfo = map[string]int64{}
			}
			p.LockInfo[job] = n
			if n > 0 && !read[pi] {
				complete = false
			}
		}
	}
	for i, pi := range pis {
		p := rd.ps.pools[pi]
		n, err := intReply(r[2+i])
		if err != nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s: %v", rd.keys.InProgress(job, p.ID), err))
			continue
		}
		if n > 0 {
			if p.InProgress == nil {
				p.InProgress = map[string]int64{}
			}
			p.InProgress[job] = n
		}
	}
	return complete
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
