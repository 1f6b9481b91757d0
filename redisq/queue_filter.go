package redisq

// This file owns the filtered listing of a queue: the jobs a query matches,
// in run order, read in LRANGE steps from the head (the right end), never
// the whole list at once.

import (
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// QueueChunk is how many jobs one LRANGE of a queue walk reads.
const QueueChunk = 1000

// FilterQueuePage walks job's queue in run order for the jobs q matches and
// returns the page offset..offset+limit-1 of them; Length is how many
// matched (the walk goes to the end). Positions are those of the step that
// read each job: a pool taking jobs during the walk shifts the ones after.
func FilterQueuePage(ctx context.Context, conn redis.Conn, keys Keys, job string, q *model.Query, offset, limit int) (QueuePage, error) {
	page := QueuePage{JobName: job, Key: keys.Queue(job), Offset: offset, Limit: limit, Jobs: []QueuedJob{}}
	if err := checkPage(offset, limit); err != nil {
		return page, fmt.Errorf("read queue %s: %w", job, err)
	}
	err := WalkQueue(ctx, conn, page.Key, func(pos int64, raw []byte) {
		j := model.ParseJob(string(raw))
		if j.ParseErr != nil && j.ID == "" && j.Name == "" {
			return
		}
		if !q.MatchQueueJob(&j.JobFields) {
			return
		}
		if page.Length >= int64(offset) && len(page.Jobs) < limit {
			page.Jobs = append(page.Jobs, QueuedJob{Position: pos, Job: j})
		}
		page.Length++
	})
	if err != nil {
		return page, fmt.Errorf("read queue %s: %w", job, err)
	}
	return page, nil
}

// WalkQueue hands each job of a list to each in run order (the right end
// first) with its position, QueueChunk jobs a call.
func WalkQueue(ctx context.Context, conn redis.Conn, key string, each func(pos int64, raw []byte)) error {
	for pos := int64(0); ; pos += QueueChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		start, stop := QueueRange(int(pos), QueueChunk)
		raws, err := redis.ByteSlices(redis.DoContext(conn, ctx, "LRANGE", key, start, stop))
		if isWrongType(err) {
			return fmt.Errorf("%s holds a value that is not a list", key)
		}
		if err != nil {
			return err
		}
		// LRANGE returns left to right: the job that runs next is last.
		for i := len(raws) - 1; i >= 0; i-- {
			each(pos+int64(len(raws)-1-i), raws[i])
		}
		if len(raws) < QueueChunk {
			return nil
		}
	}
}

// QueueFilterPage reads one page of the jobs q matches in job's queue (see
// FilterQueuePage) on a connection of its own, with the job each
// stand-in runs as (ReadRunsAs).
func (c *Client) QueueFilterPage(ctx context.Context, job string, q *model.Query, offset, limit int) (QueuePage, error) {
	conn, err := c.conns.GetContext(ctx)
	if err != nil {
		return QueuePage{}, c.wrap(err)
	}
	defer conn.Close()
	page, err := FilterQueuePage(ctx, conn, c.keys, job, q, offset, limit)
	if err == nil {
		err = ReadRunsAs(ctx, conn, &page)
	}
	return page, c.wrap(err)
}
