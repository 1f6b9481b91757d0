package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// healthKinds runs snapshot --json (and the table, and --strict) and
// returns the kinds of its Redis health findings; the plain snapshot must
// exit 0 whatever they are, and --strict 3 exactly when there are some.
func healthKinds(t *testing.T, in input, args ...string) []string {
	t.Helper()
	out, errOut, code := runCLI(t, in, append([]string{"snapshot", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("snapshot --json: exit %d, %q %q", code, out, errOut)
	}
	var got struct {
		Findings []struct{ Kind, Subject, Detail string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	var kinds []string
	for _, f := range got.Findings {
		if strings.HasPrefix(f.Kind, "redis_") || f.Kind == "dead_set" {
			kinds = append(kinds, f.Kind)
		}
	}
	table, _, code := runCLI(t, in, append([]string{"snapshot"}, args...)...)
	if code != ExitOK {
		t.Fatalf("snapshot: exit %d", code)
	}
	for _, k := range kinds {
		if !strings.Contains(table, k) {
			t.Errorf("the table lacks the finding %s:\n%s", k, table)
		}
	}
	_, _, code = runCLI(t, in, append([]string{"snapshot", "--strict"}, args...)...)
	if want := map[bool]int{true: ExitFindings, false: ExitOK}[len(kinds) > 0]; code != want {
		t.Errorf("snapshot --strict with %v: exit %d, want %d", kinds, code, want)
	}
	return kinds
}

func TestSnapshotHealthFindings(t *testing.T) {
	k := redisq.NewKeys("work")
	tests := []struct {
		name  string
		setup func(srv *redistest.Server)
		want  string
	}{
		{"noeviction and AOF on", func(srv *redistest.Server) {
			srv.Do("CONFIG", "SET", "appendonly", "yes")
			srv.Do("CONFIG", "SET", "maxmemory-policy", "noeviction")
		}, ""},
		{"allkeys-lru", func(srv *redistest.Server) {
			srv.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
		}, "redis_eviction_policy"},
		{"no persistence after a write", func(srv *redistest.Server) {
			srv.Do("CONFIG", "SET", "appendonly", "no")
			srv.Do("CONFIG", "SET", "save", "")
			srv.Do("SADD", k.KnownJobs(), "after_the_switch")
		}, "redis_not_persisted"},
		{"memory above 90% of maxmemory", func(srv *redistest.Server) {
			info := redisq.ParseInfo(string(srv.Do("INFO", "memory").([]byte)))
			used, err := strconv.ParseInt(info["used_memory"], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			srv.Do("CONFIG", "SET", "maxmemory", used*100/95)
		}, "redis_memory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			srv.Do("SADD", k.KnownJobs(), "send_email")
			tc.setup(srv)
			got := strings.Join(healthKinds(t, input{}, "--redis="+srv.Addr()), ",")
			if got != tc.want {
				t.Errorf("health findings %q, want %q", got, tc.want)
			}
		})
	}
}

// An ACL user that may not run INFO gets one "not readable" finding and an
// otherwise normal snapshot.
func TestSnapshotHealthWithoutINFO(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	srv.Do("SADD", k.KnownJobs(), "send_email")
	srv.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	srv.Do("ACL", "SETUSER", "noinfo", "on", ">noinfo-pw-1", "~*", "&*", "+@all", "-info")
	in := input{getenv: func(k string) string {
		if k == "REDIS_PASSWORD" {
			return "noinfo-pw-1"
		}
		return ""
	}}
	kinds := healthKinds(t, in, "--redis="+srv.Addr(), "--user=noinfo")
	if strings.Join(kinds, ",") != "redis_health_unreadable" {
		t.Errorf("findings %v, want one redis_health_unreadable", kinds)
	}
	out, _, code := runCLI(t, in, "snapshot", "--wide", "--redis="+srv.Addr(), "--user=noinfo")
	if code != ExitOK || strings.Count(out, "not readable with this user") != 1 || !strings.Contains(out, "send_email") {
		t.Errorf("exit %d, want one not-readable line and the job types:\n%s", code, out)
	}
}
