package redisq

// This file owns what a queue page says of gocraft/work master's and
// gojek/work's ByKey stand-ins: the job a worker runs when it takes one
// is the job in its unique key (a refused enqueue rewrote it with its own
// job, new id and new arguments), not the stand-in's bytes.

import (
	"context"
	"errors"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
)

// ReadRunsAs reads, in one round trip, the unique key of each job of the
// page that names one (`unique_key`), and sets RunsAs where the key holds
// another job than the stand-in: the one that will run. A key absent,
// of another type, or holding "1" or the stand-in's own id says
// nothing.
func ReadRunsAs(ctx context.Context, conn redis.Conn, page *QueuePage) error {
	var idx []int
	for i := range page.Jobs {
		if page.Jobs[i].UniqueKey != "" {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	for _, i := range idx {
		if err := conn.Send("GET", page.Jobs[i].UniqueKey); err != nil {
			return fmt.Errorf("read unique keys: %w", err)
		}
	}
	if err := conn.Flush(); err != nil {
		return fmt.Errorf("read unique keys: %w", err)
	}
	for _, i := range idx {
		v, err := redis.Bytes(redis.ReceiveContext(conn, ctx))
		var re redis.Error
		switch {
		case errors.Is(err, redis.ErrNil), errors.As(err, &re):
			continue
		case err != nil:
			return fmt.Errorf("read unique keys: %w", err)
		}
		held := model.ParseJob(string(v))
		if held.ParseErr != nil || held.ID == "" || held.ID == page.Jobs[i].ID {
			continue
		}
		page.Jobs[i].RunsAs = &held
	}
	return nil
}
