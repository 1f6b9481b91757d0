package sentinel_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/redisq/sentinel"
)

// A screen finds the master, follows failovers while it runs, and checks
// again right before a write.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := sentinel.New(sentinel.Config{
		Addrs:      []string{"10.0.0.1:26379", "10.0.0.2:26379", "10.0.0.3:26379"},
		MasterName: "jobs",
		Timeout:    2 * time.Second,
		DialData: func(ctx context.Context, addr string) (redis.Conn, error) {
			return redis.DialContext(ctx, "tcp", addr)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	master, err := c.Master(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	w := sentinel.NewWatcher(c, master)
	go w.Run(ctx)

	// At every poll: ask too, in case a +switch-master was missed, and read
	// from w.Master().
	if _, _, err := w.Check(ctx); err != nil {
		fmt.Println(err)
	}
	select {
	case ev := <-w.Events():
		fmt.Println(ev) // failover: old -> new
	default:
	}

	// Right before a write: the connection the check was made on.
	conn, addr, err := c.DialMasterForWrite(ctx)
	if err != nil {
		fmt.Println(err) // refused: no write
		return
	}
	defer conn.Close()
	fmt.Println("writing to", addr)
}
