package cli

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// A requeue of dead jobs says that it takes them out of the only record
// of the failures, and names the timeline command that keeps one: pasted
// (split by bash), it runs on the same Redis and namespace, and its window
// reaches deaths older than the timeline's default 6 hours.
func TestRequeueDeadNamesTimelineRecord(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now, err := redis.Int64s(c.Do("TIME"))
	if err != nil {
		t.Fatal(err)
	}
	sec := now[0]
	redistest.Do(t, c, "SADD", "shop:known_jobs", "mail")
	redistest.Do(t, c, "SADD", "shop:worker_pools", "p1")
	redistest.Do(t, c, "HSET", "shop:worker_pools:p1", "job_names", "mail", "heartbeat_at", sec)
	for i, age := range []int64{30 * 3600, 600} { // one death 30 h ago, one 10 min ago
		redistest.Do(t, c, "ZADD", "shop:dead", sec-age, `{"name":"mail","id":"d`+string(rune('0'+i))+`","t":1,"args":{},"err":"x","failed_at":`+strconv.FormatInt(sec-age, 10)+`}`)
	}
	out, stderr, code := runCLI(t, input{}, "--redis="+srv.Addr(), "-n", "shop", "jobs", "dead", "requeue", "--all", "--dry-run")
	if code != 0 || !strings.Contains(out, "the timeline no longer shows them") {
		t.Fatalf("dry run: exit %d: %s\n%s", code, stderr, out)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " timeline --json") {
			line = strings.TrimSpace(strings.TrimSuffix(l, "> timeline.json"))
		}
	}
	words, err := exec.Command("bash", "-c", `printf '%s\0' `+line).Output()
	if err != nil {
		t.Fatalf("bash reading %q: %v", line, err)
	}
	argv := strings.Split(strings.TrimSuffix(string(words), "\x00"), "\x00")
	if argv[0] != "workq-tui" {
		t.Fatalf("%q: no program name", line)
	}
	tl, stderr, code := runCLI(t, input{}, argv[1:]...)
	if code != 0 {
		t.Fatalf("pasted %q: exit %d: %s", argv, code, stderr)
	}
	var v struct {
		Buckets []struct {
			Deaths int64 `json:"deaths"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(tl), &v); err != nil {
		t.Fatalf("pasted %q: %v\n%.400s", argv, err, tl)
	}
	var dead int64
	for _, b := range v.Buckets {
		dead += b.Deaths
	}
	if dead != 2 {
		t.Fatalf("pasted %q: the timeline counts %d deaths, want both\n%.600s", argv, dead, tl)
	}
}
