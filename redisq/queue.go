package redisq

// This file owns the reading of a job type's queue, one page at a time, in
// the order gocraft/work will run its jobs.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// MaxQueuePage is the most jobs one page read returns.
const MaxQueuePage = 1000

// DefaultQueuePage is the page size of the screen and the command line.
const DefaultQueuePage = 20

// ErrBadPage: a page's offset or limit is out of range.
var ErrBadPage = errors.New("bad page")

// QueuePage is one page of a queue, in run order.
type QueuePage struct {
	JobName string `json:"job_name"`
	Key     string `json:"key"`
	// Length is the queue's LLEN, read in the same round trip as the jobs
	// (but not atomically with them: a pool may take a job in between).
	Length int64 `json:"length"`
	// Offset is the run-order position of the first job asked for (0 is
	// the job that runs next); Limit how many were asked for.
	Offset int         `json:"offset"`
	Limit  int         `json:"limit"`
	Jobs   []QueuedJob `json:"jobs"`
}

// QueuedJob is one job of a page.
type QueuedJob struct {
	// Position is the job's place in run order: 0 runs next.
	Position int64
	model.Job
	// RunsAs is, for a stand-in of gocraft/work master's
	// EnqueueUniqueByKey, the job its unique key holds when that is
	// another: the one a worker runs when it takes the stand-in (see
	// ReadRunsAs); nil otherwise.
	RunsAs *model.Job
}

// MarshalJSON writes the job as the command line's --json shows it: args
// as the raw JSON value stored (null when absent), and for a member that is
// not a JSON job its raw text and why it could not be read.
func (q QueuedJob) MarshalJSON() ([]byte, error) {
	out := struct {
		Position   int64           `json:"position"`
		ID         string          `json:"id"`
		Name       string          `json:"name"`
		EnqueuedAt *int64          `json:"enqueued_at"`
		Args       json.RawMessage `json:"args"`
		// unique and unique_key as the sets' --json gives them.
		Unique    bool        `json:"unique"`
		UniqueKey string      `json:"unique_key,omitempty"`
		Raw       *string     `json:"raw,omitempty"`
		Error     string      `json:"error,omitempty"`
		RunsAs    *runsAsJSON `json:"runs_as,omitempty"`
	}{Position: q.Position, ID: q.ID, Name: q.Name, Args: q.Args, Unique: q.Unique, UniqueKey: q.UniqueKey}
	if r := q.RunsAs; r != nil {
		out.RunsAs = &runsAsJSON{ID: r.ID, Args: r.Args}
		if len(out.RunsAs.Args) == 0 {
			out.RunsAs.Args = json.RawMessage("null")
		}
	}
	if q.EnqueuedAt != 0 {
		t := q.EnqueuedAt
		out.EnqueuedAt = &t
	}
	if len(out.Args) == 0 {
		out.Args = json.RawMessage("null")
	}
	if q.ParseErr != nil {
		out.Error = q.ParseErr.Error()
		if q.ID == "" && q.Name == "" && len(q.Job.Args) == 0 {
			raw := q.Raw
			out.Raw = &raw
		}
	}
	return json.Marshal(out)
}

// QueueRange is the LRANGE start and stop that hold run-order positions
// offset to offset+limit-1 of a queue. gocraft/work pushes on the left
// and takes from the right, so position p is list index -(p+1): the page
// is the list from -(offset+limit) to -(offset+1), read right to left.
// Redis clamps a start before the list's head, so a short last page needs
// no length.
func QueueRange(offset, limit int) (start, stop int64) {
	return -int64(offset) - int64(limit), -int64(offset) - 1
}

func checkPage(offset, limit int) error {
	switch {
	case limit < 1 || limit > MaxQueuePage:
		return fmt.Errorf("limit %d: %w (want 1 to %d)", limit, ErrBadPage, MaxQueuePage)
	case offset < 0:
		return fmt.Errorf("offset %d: %w (want 0 or more)", offset, ErrBadPage)
	case int64(offset) > math.MaxInt64/2:
		return fmt.Errorf("offset %d: %w (too large)", offset, ErrBadPage)
	}
	return nil
}

// ReadQueuePage reads jobs offset to offset+limit-1 of job's queue in run
// order, and the queue's length, in one round trip: LLEN and one LRANGE,
// nothing else. Every member is parsed loosely (ParseJob): one that is not
// JSON keeps its raw text and never fails the page. A queue key holding
// something other than a list is an error.
func ReadQueuePage(ctx context.Context, conn redis.Conn, keys Keys, job string, offset, limit int) (QueuePage, error) {
	page := QueuePage{JobName: job, Key: keys.Queue(job), Offset: offset, Limit: limit}
	if err := checkPage(offset, limit); err != nil {
		return page, fmt.Errorf("read queue %s: %w", job, err)
	}
	start, stop := QueueRange(offset, limit)
	if err := conn.Send("LLEN", page.Key); err != nil {
		return page, fmt.Errorf("read queue %s: %w", job, err)
	}
	if err := conn.Send("LRANGE", page.Key, start, stop); err != nil {
		// LLEN is buffered; read its reply so the connection stays usable.
		drain(ctx, conn, 1)
		return page, fmt.Errorf("read queue %s: %w", job, err)
	}
	if err := conn.Flush(); err != nil {
		return page, fmt.Errorf("read queue %s: %w", job, err)
	}
	replies := make([]reply, 2)
	if err := receiveInto(ctx, conn, replies); err != nil {
		return page, fmt.Errorf("read queue %s: %w", job, err)
	}
	for _, r := range replies {
		if isWrongType(r.err) {
			return page, fmt.Errorf("read queue %s: %s holds a value that is not a list", job, page.Key)
		}
		if r.err != nil {
			return page, fmt.Errorf("read queue %s: %w", job, r.err)
		}
	}
	n, err := redis.Int64(replies[0].v, nil)
	if err != nil {
		return page, fmt.Errorf("read queue %s: length: %w", job, err)
	}
	raws, err := redis.Strings(replies[1].v, nil)
	if err != nil {
		return page, fmt.Errorf("read queue %s: jobs: %w", job, err)
	}
	page.Length = n
	page.Jobs = make([]QueuedJob, len(raws))
	for i, raw := range raws {
		// raws[len-1] is index -(offset+1): the first in run order.
		at := len(raws) - 1 - i
		page.Jobs[at] = QueuedJob{Position: int64(offset + at), Job: model.ParseJob(raw)}
	}
	return page, nil
}

// QueuePage reads one page of a job type's queue (see ReadQueuePage) on a
// connection of its own, with the job each stand-in runs as
// (ReadRunsAs).
func (c *Client) QueuePage(ctx context.Context, job string, offset, limit int) (QueuePage, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return QueuePage{}, c.wrap(err)
	}
	defer conn.Close()
	page, err := ReadQueuePage(ctx, conn, c.keys, job, offset, limit)
	if err == nil {
		// The job a stand-in runs as: one round trip, only when a job
		// of the page names a unique key.
		err = ReadRunsAs(ctx, conn, &page)
	}
	return page, c.wrap(err)
}

// runsAsJSON is the job a stand-in runs as, in --json: the one its
// unique key holds.
type runsAsJSON struct {
	ID   string          `json:"id"`
	Args json.RawMessage `json:"args"`
}
