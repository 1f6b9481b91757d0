package sets_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// queryIDs are the ids of the members of set that the query text selects
// (the first thousand), sorted: what workq-tui's --where reads.
func queryIDs(t *testing.T, c redis.Conn, keys redisq.Keys, set model.SetName, text string) []string {
	t.Helper()
	q, err := model.ParseQuery(text, model.QueryClock{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	p, err := redisq.FilterSetPage(context.Background(), c, keys, set, redisq.SetFilter{Query: q}, redisq.PageOptions{Limit: 1000}, redisq.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sj := range p.Jobs {
		out = append(out, sj.Job.ID)
	}
	sort.Strings(out)
	return out
}

// keptIDs are the ids of the jobs keep takes, sorted: the same filter over
// gocraft/work's own pages.
func keptIDs[J any](jobs []J, id func(J) string, keep func(J) bool) []string {
	var out []string
	for _, j := range jobs {
		if keep(j) {
			out = append(out, id(j))
		}
	}
	sort.Strings(out)
	return out
}
