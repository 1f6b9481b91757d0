package redisq_test

import (
	"context"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestFarDeadlines: a --timeout as long as a Go duration holds, and a
// context deadline centuries away (past 2262, where nanoseconds since 1970
// leave an int64), are far deadlines, never deadlines already passed.
func TestFarDeadlines(t *testing.T) {
	srv := redistest.Start(t)
	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), Timeout: time.Duration(1<<63 - 1)})
	if err != nil {
		t.Fatal(err)
	}
	pool := d.Pool()
	defer pool.Close()
	for _, far := range []time.Time{time.Now().AddDate(300, 0, 0), time.Now().AddDate(5000, 0, 0), time.Now().Add(time.Hour)} {
		ctx, cancel := context.WithDeadline(context.Background(), far)
		c, err := pool.GetContext(ctx)
		if err != nil {
			cancel()
			t.Fatalf("deadline %s: get: %v", far.Format(time.RFC3339), err)
		}
		for i := 0; i < 20; i++ {
			if _, err := redis.DoContext(c, ctx, "PING"); err != nil {
				t.Fatalf("deadline %s: PING %d: %v", far.Format(time.RFC3339), i, err)
			}
		}
		c.Close()
		cancel()
	}
}
