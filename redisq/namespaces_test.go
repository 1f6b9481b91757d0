package redisq

import (
	"context"
	"reflect"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestFindNamespaces(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	redistest.Do(t, c, "SADD", "work:known_jobs", "mail")
	redistest.Do(t, c, "SADD", "inc3:worker_pools", "p1")
	redistest.Do(t, c, "SADD", "inc3:known_jobs", "mail")
	redistest.Do(t, c, "SADD", "a:b:known_jobs", "x")
	// Keys the pattern lets through that are not a namespace's.
	for _, k := range []string{"known_jobs", "work:jobs:send_posts", "work:worker_pools:p1_pools", "cache:user_jobs"} {
		redistest.Do(t, c, "SET", k, "1")
	}
	for i := range 3000 {
		redistest.Do(t, c, "SET", "noise:"+strconv.Itoa(i), "1")
	}
	redistest.Do(t, c, "SELECT", "1")
	redistest.Do(t, c, "SADD", "otherdb:known_jobs", "x")
	redistest.Do(t, c, "SELECT", "0")

	got, err := FindNamespaces(context.Background(), c, 0, func(time.Duration) time.Duration { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a:b", "inc3", "work"}; !reflect.DeepEqual(got.Namespaces, want) || got.Partial || got.Skipped != "" {
		t.Errorf("found %+v, want namespaces %q", got, want)
	}

	// A keyspace larger than the bound is not walked.
	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	got, err = FindNamespaces(context.Background(), c, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Skipped == "" || len(got.Namespaces) != 0 {
		t.Errorf("a keyspace over the bound: %+v", got)
	}
	info, _ := redis.String(redistest.Do(t, c, "INFO", "commandstats"), nil)
	if regexp.MustCompile(`cmdstat_scan:`).MatchString(info) {
		t.Errorf("SCAN sent on a keyspace over the bound")
	}
}

// TestNamespaceSearchCost measures the Redis time of a search (INFO
// commandstats, the server's own count) over a keyspace of 200,000 keys and
// logs it per key and for a keyspace of NamespaceSearchMaxKeys, the
// numbers its bound is chosen from. It checks the pacing by a ratio: the
// search waits three times each call's duration (as the client saw it,
// never less than Redis's time), so it takes at least four times the
// Redis time it costs.
func TestNamespaceSearchCost(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 200,000 keys")
	}
	srv := redistest.Start(t, redistest.DebugArgs()...)
	c := srv.Dial()
	const keys = 200_000
	redistest.Do(t, c, "DEBUG", "POPULATE", keys, "work:jobs:mail:lock")
	redistest.Do(t, c, "SADD", "inc3:known_jobs", "mail")
	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	start := time.Now()
	got, err := FindNamespaces(context.Background(), c, 0, func(d time.Duration) time.Duration { return 3 * d })
	wall := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Namespaces, []string{"inc3"}) {
		t.Fatalf("found %+v", got)
	}
	info, _ := redis.String(redistest.Do(t, c, "INFO", "commandstats"), nil)
	m := regexp.MustCompile(`cmdstat_scan:calls=(\d+),usec=(\d+)`).FindStringSubmatch(info)
	if m == nil {
		t.Fatalf("no SCAN in INFO commandstats:\n%s", info)
	}
	calls, _ := strconv.Atoi(m[1])
	usec, _ := strconv.ParseFloat(m[2], 64)
	perKey := usec / keys
	t.Logf("%d SCAN calls, %.0f ms of Redis time for %d keys: %.3f µs a key, %.0f ms for %d keys; wall %s",
		calls, usec/1000, keys, perKey, perKey*NamespaceSearchMaxKeys/1000, NamespaceSearchMaxKeys, wall.Round(time.Millisecond))
	if ratio := wall.Seconds() / (usec / 1e6); ratio < 4 {
		t.Errorf("the search took %.1f times its Redis time, want at least 4 (paced)", ratio)
	}
}
