package cli

// This file gives the screen the search of `workq-tui find`: the same
// redisq.Find, on a connection of its own for each search (a paced scan of
// the unique keys may take a while and must not hold the polls' pool).

import (
	"context"
	"fmt"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

type screenFinder struct {
	dial func(ctx context.Context) (redis.Conn, error)
	keys redisq.Keys
}

// ScreenFinder is the screen's find of namespace, dialling with dial.
func ScreenFinder(dial func(ctx context.Context) (redis.Conn, error), namespace string) tui.Finder {
	return screenFinder{dial: dial, keys: redisq.NewKeys(namespace)}
}

func (f screenFinder) Find(ctx context.Context, spec redisq.FindSpec) ([]redisq.Place, error) {
	c, err := f.dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	defer c.Close()
	return redisq.Find(ctx, c, f.keys, spec)
}
