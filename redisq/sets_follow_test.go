package redisq

import (
	"context"
	"fmt"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
)

// TestFollowSetPage: a filtered top page read again after members left,
// came in (of the filter and not) and one moved is the page a full
// filtered read gives, with its count, over a read-only connection.
func TestFollowSetPage(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	keys := NewKeys("work")
	key := SetKey(keys, model.SetDead)
	for i := range 20 {
		setsDo(t, c, "ZADD", key, 1700000000+i, setsJob(fmt.Sprintf("m%02d", i), "mail", "boom", `{}`))
	}
	for i := range 10 {
		setsDo(t, c, "ZADD", key, 1700000100+i, setsJob(fmt.Sprintf("s%02d", i), "sms", "boom", `{}`))
	}
	ctx := context.Background()
	ro := ReadOnlyConn(c)
	f := SetFilter{Job: "mail"}
	o := PageOptions{Limit: 5}
	prev, err := FilterSetPage(ctx, ro, keys, model.SetDead, f, o, ScanOptions{})
	if err != nil || prev.Total != 20 || len(prev.Jobs) != 5 || prev.Jobs[0].Job.ID != "m19" {
		t.Fatalf("first page: %+v, %v", prev, err)
	}
	setsDo(t, c, "ZREM", key, setsJob("m17", "mail", "boom", `{}`))
	setsDo(t, c, "ZADD", key, 1700000200, setsJob("m20", "mail", "boom", `{}`))
	setsDo(t, c, "ZADD", key, 1700000201, setsJob("m21", "mail", "boom", `{}`))
	setsDo(t, c, "ZADD", key, 1700000202, setsJob("s10", "sms", "boom", `{}`))
	setsDo(t, c, "ZADD", key, 1700000001.5, setsJob("m15", "mail", "boom", `{}`)) // moved down
	got, err := FollowSetPage(ctx, ro, keys, model.SetDead, f, prev, o)
	if err != nil {
		t.Fatal(err)
	}
	want, err := FilterSetPage(ctx, ro, keys, model.SetDead, f, o, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(p SetPage) string {
		var out []string
		for _, sj := range p.Jobs {
			out = append(out, sj.Job.ID+"@"+sj.ScoreText)
		}
		return fmt.Sprint(out)
	}
	if ids(got) != ids(want) || got.Total != want.Total || got.Total != 21 {
		t.Errorf("followed %s (%d), a full read %s (%d)", ids(got), got.Total, ids(want), want.Total)
	}

	// A page further down, or oldest first, reads only what it shows.
	o = PageOptions{Limit: 5, Offset: 5}
	prev, err = FilterSetPage(ctx, ro, keys, model.SetDead, f, o, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setsDo(t, c, "ZADD", key, 1700000300, setsJob("m22", "mail", "boom", `{}`))
	setsDo(t, c, "ZREM", key, string(prev.Jobs[2].Raw))
	got, err = FollowSetPage(ctx, ro, keys, model.SetDead, f, prev, o)
	if err != nil || len(got.Jobs) != 4 || got.Total != prev.Total-1 || got.Offset != 5 {
		t.Errorf("lower page: %s total %d, %v", ids(got), got.Total, err)
	}
}
