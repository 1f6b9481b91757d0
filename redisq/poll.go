// ReadPoll: the screen's regular poll, whose cost grows with pools + job
// types + jobs in progress rather than pools x job types. It reads the
// in-progress lists only where jobs can be, and the workers' observations
// only when asked.

package redisq

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// PollRequest says what a poll reads besides what it reads anyway: more
// in-progress lists, and the workers' observations.
type PollRequest struct {
	// Open is the pool shown in the screen's detail view: all its lists
	// are read.
	Open string
	// JobTypes are job types whose every pool's list is read (the screen
	// passes those the last sweep found drifted, whose lists lock_info
	// does not describe).
	JobTypes []string
	// Known are heartbeats read before, by pool ID. gocraft/work writes
	// every field but heartbeat_at once per pool ID (a pool that starts
	// again has a new ID), so of these pools a poll reads heartbeat_at
	// alone and takes the other fields from here; a pool whose
	// heartbeat_at is then missing or unreadable is read whole.
	Known map[string]model.Heartbeat
	// Workers asks for every worker's observation (one HGETALL per worker
	// a heartbeat names, as ReadSnapshot reads them); the screen asks while
	// it shows them. Without it the snapshot's Workers is nil: not read.
	// A poll that read them has a non-nil Workers, empty when there are
	// none.
	Workers bool
	// NoDrift leaves the drift to the sweep (the screen asks while it
	// sweeps): no job type is reported drifted, no drift is re-read, and
	// the snapshot has no drift finding.
	NoDrift bool
}

// ReadPoll reads a namespace like ReadSnapshot, except the workers'
// observations, read only with req.Workers (see PollRequest.Workers), and
// the in-progress lists: gocraft/work's fetch script records in lock_info, in the same
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
// readChosenLists); with req.Workers, one for the observations; plus the
// rare round trips of ReadSnapshot for unregistered and drifted job types.
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
	sent, err := rd.sendHeartbeatsAndCounters(req.Known)
	if err != nil {
		return nil, err
	}
	if sent == 0 {
		rd.snap.JobTypes = []model.JobType{}
		if req.Workers {
			rd.snap.Workers = []model.Worker{}
		}
		model.Analyze(rd.snap, deadAfter)
		return rd.snap, nil
	}
	again, err := rd.readPollHeartbeats(sent, req.Known)
	if err != nil {
		return nil, err
	}
	if err := rd.readJobTypeCounters(); err != nil {
		return nil, err
	}
	if err := rd.rereadHeartbeats(again); err != nil {
		return nil, err
	}
	full := map[string]bool{}
	for _, job := range req.JobTypes {
		full[job] = true
	}
	rd.replies = make([]reply, 6+len(rd.poolIDs))
	if err := rd.sendUnregisteredJobTypes(); err != nil {
		return nil, err
	}
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
	if req.Workers {
		// One more round trip, only when heartbeats name workers.
		ws, err := ReadWorkers(ctx, conn, rd.keys, rd.snap.Pools, rd.snap.RedisTime)
		if err != nil {
			return nil, err
		}
		rd.snap.Workers = ws
	}
	rd.snap.JobTypes = rd.jobTypes
	model.Analyze(rd.snap, deadAfter)
	if req.NoDrift {
		for i := range rd.snap.JobTypes {
			rd.snap.JobTypes[i].Drift = false
		}
		rd.snap.Findings = model.Findings(rd.snap)
		return rd.snap, nil
	}
	pollDrift(rd.snap, full)
	var reread []string
	for _, jt := range rd.snap.JobTypes {
		if jt.Drift {
			reread = append(reread, jt.Name)
		}
	}
	if err := rd.rereadDrifted(); err != nil {
		return nil, err
	}
	for _, job := range reread {
		full[job] = true // rereadDrifted read all its lists
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
func (rd *snapshotReader) sendHeartbeatsAndCounters(known map[string]model.Heartbeat) (int, error) {
	rd.snap.Pools = make([]model.Pool, len(rd.poolIDs))
	for i, id := range rd.poolIDs {
		rd.snap.Pools[i].ID = id
	}
	sent := 0
	hb := newKeyBuf(rd.keys.Heartbeat(""), rd.poolIDs, "")
	for _, id := range rd.poolIDs {
		var err error
		if _, ok := known[id]; ok {
			err = rd.conn.Send("HGET", append(hb.arg(id), "heartbeat_at")...)
		} else {
			err = rd.conn.Send("HGETALL", hb.arg(id)...)
		}
		if err != nil {
			drain(rd.ctx, rd.conn, sent)
			return 0, fmt.Errorf("send heartbeat read: %w", err)
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

// readPollHeartbeats reads the heartbeat replies of the poll's second
// round trip (sent commands in all). A known pool's heartbeat is its known
// one with the heartbeat_at read. It returns the positions of the known
// pools whose heartbeat_at is missing or not a whole number (the hash gone,
// or rewritten by something else than gocraft/work), to be read whole
// (rereadHeartbeats) once the rest of the round trip is read.
func (rd *snapshotReader) readPollHeartbeats(sent int, known map[string]model.Heartbeat) ([]int, error) {
	r := make([]reply, len(rd.poolIDs))
	if err := receiveInto(rd.ctx, rd.conn, r); err != nil {
		return nil, err
	}
	names := map[string]string{}
	var again []int
	for i, id := range rd.poolIDs {
		p := &rd.snap.Pools[i]
		if err := fatalReply(r[i], rd.keys.Heartbeat(id)); err != nil {
			drain(rd.ctx, rd.conn, sent-len(rd.poolIDs))
			return nil, err
		}
		if k, ok := known[id]; ok {
			b, isBytes := r[i].v.([]byte)
			n, err := parseIntBytes(b)
			if r[i].err != nil || !isBytes || err != nil {
				again = append(again, i)
				continue
			}
			hb := k
			hb.HeartbeatAt = n
			p.Heartbeat = &hb
			continue
		}
		p.Heartbeat, p.Warnings = parseHeartbeat(r[i])
		if p.Heartbeat != nil {
			internStrings(p.Heartbeat.JobNames, names)
		}
	}
	rd.ps = alignedPools(rd.snap, rd.poolIDs)
	return again, nil
}

// rereadHeartbeats reads whole, in one round trip, the heartbeats of the
// pools at positions again.
func (rd *snapshotReader) rereadHeartbeats(again []int) error {
	if len(again) == 0 {
		return nil
	}
	cmds := make([]cmd, len(again))
	for j, i := range again {
		cmds[j] = cmd{"HGETALL", []any{rd.keys.Heartbeat(rd.poolIDs[i])}}
	}
	r, err := pipeline(rd.ctx, rd.conn, cmds)
	if err != nil {
		return err
	}
	for j, i := range again {
		if err := fatalReply(r[j], rd.keys.Heartbeat(rd.poolIDs[i])); err != nil {
			return err
		}
		p := &rd.snap.Pools[i]
		p.Heartbeat, p.Warnings = parseHeartbeat(r[j])
	}
	return nil
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
	// The screen's help says what its polls cost Redis.
	cost := &model.ReadCost{}
	snap, err := ReadPoll(ctx, metered(conn, cost), c.namespace, c.deadAfter, req)
	if snap != nil {
		snap.Cost = cost
	}
	return snap, c.wrap(err)
}

// wholeEvery is how many polls of a Poller pass between two whole reads of
// one pool's heartbeat; the pools are spread over the polls.
const wholeEvery = 16

// Poller is the screen's poll source: ReadPoll on a Client, remembering
// the heartbeats it read so that the next polls read heartbeat_at alone
// (PollRequest.Known). Each pool's heartbeat is still read whole once
// every wholeEvery polls, a sixteenth of the pools at each poll.
type Poller struct {
	client *Client
	seed   maphash.Seed

	mu    sync.Mutex
	polls int
	known map[string]model.Heartbeat
}

// NewPoller returns a Poller reading through c.
func NewPoller(c *Client) *Poller { return &Poller{client: c, seed: maphash.MakeSeed()} }

// Poll reads the namespace (see ReadPoll); req.Known is the Poller's.
func (p *Poller) Poll(ctx context.Context, req PollRequest) (*model.Snapshot, error) {
	p.mu.Lock()
	p.polls++
	turn := uint64(p.polls % wholeEvery)
	req.Known = make(map[string]model.Heartbeat, len(p.known))
	for id, hb := range p.known {
		if maphash.String(p.seed, id)%wholeEvery != turn {
			req.Known[id] = hb
		}
	}
	p.mu.Unlock()
	snap, err := p.client.Poll(ctx, req)
	if err != nil {
		return nil, err
	}
	known := make(map[string]model.Heartbeat, len(snap.Pools))
	for _, pl := range snap.Pools {
		if hb := pl.Heartbeat; hb != nil && !hb.HeartbeatAtMissing && !hb.HeartbeatAtMalformed && len(pl.Warnings) == 0 {
			known[pl.ID] = *hb
		}
	}
	p.mu.Lock()
	p.known = known
	p.mu.Unlock()
	return snap, nil
}
