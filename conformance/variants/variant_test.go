package variants_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gocraft/work"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/conformance/variants"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

type snapshotVariant struct {
	Variant *struct {
		Name     string   `json:"name"`
		Evidence []string `json:"evidence"`
	} `json:"variant"`
	Findings []struct {
		Kind   string `json:"kind"`
		Detail string `json:"detail"`
	} `json:"findings"`
}

// TestSnapshotNamesTheVariant: snapshot --json names the build that wrote
// a namespace from what it left: master or gojek from the recordings,
// Harbor from its keys beside v0.5.1's; a namespace v0.5.1 wrote reads as
// before, without a variant.
func TestSnapshotNamesTheVariant(t *testing.T) {
	runCLI := cliIn(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	for _, b := range builds {
		variants.Load(t, c, variants.Read(t, b+"-dead.json"), false)
	}
	// v0.5.1 itself: a unique job, enqueued by the real library.
	e := work.NewEnqueuer("plain", gcstate.RedisPool(t, srv.Addr()))
	if _, err := e.EnqueueUnique("sync_account", work.Q{"account": "7"}); err != nil {
		t.Fatal(err)
	}
	// Harbor's job service: v0.5.1's keys and its own, by their published
	// names (src/jobservice/common/rds/keys.go), under its namespace.
	const harbor = "{harbor_job_service_namespace}"
	he := work.NewEnqueuer(harbor, gcstate.RedisPool(t, srv.Addr()))
	if _, err := he.Enqueue("GARBAGE_COLLECTION", work.Q{"redis_url_reg": "redis://redis:6379/1"}); err != nil {
		t.Fatal(err)
	}
	redistest.Do(t, c, "ZADD", harbor+":period:policies", 1, `{"id":"a1b2","job_name":"SCHEDULER","cron_spec":"0 0 * * * *"}`)

	for _, tc := range []struct{ ns, want string }{
		{"shop", "master-or-gojek"}, {"fleet", "master-or-gojek"}, {harbor, "harbor"}, {"plain", ""},
	} {
		t.Run(tc.ns, func(t *testing.T) {
			out, stderr, _ := runCLI("--redis", srv.Addr(), "-n", tc.ns, "snapshot", "--json")
			var got snapshotVariant
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("snapshot --json: %v\n%s\n%s", err, out, stderr)
			}
			switch {
			case tc.want == "" && got.Variant != nil:
				t.Errorf("variant %+v for a namespace v0.5.1 wrote, want none", got.Variant)
			case tc.want == "" && strings.Contains(out, `"variant"`):
				t.Errorf("the JSON of a v0.5.1 namespace changed: %s", out)
			case tc.want != "" && (got.Variant == nil || got.Variant.Name != tc.want || len(got.Variant.Evidence) == 0):
				t.Errorf("variant %+v, want %s with its evidence", got.Variant, tc.want)
			}
		})
	}
}

// TestOtherLayoutNotEmpty: a namespace that holds keys of another queue's
// layout (taylorchu/work's <ns>:job:<id> hashes and <ns>:queue:<id> sorted
// sets) is said as such, not as an empty namespace.
func TestOtherLayoutNotEmpty(t *testing.T) {
	runCLI := cliIn(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	redistest.Do(t, c, "HSET", "other:job:5f3a", "id", "5f3a", "payload", "e30=")
	redistest.Do(t, c, "ZADD", "other:queue:mail", 1700000000, "5f3a")
	out, stderr, code := runCLI("--redis", srv.Addr(), "-n", "other", "snapshot")
	if code == 0 || !strings.Contains(out+stderr, "keys under other, but not gocraft/work's layout") {
		t.Fatalf("snapshot: exit %d\n%s\n%s", code, out, stderr)
	}
	if strings.Contains(out+stderr, "no gocraft/work keys in this namespace") {
		t.Errorf("said as empty:\n%s\n%s", out, stderr)
	}
}
