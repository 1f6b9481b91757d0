package variants_test

import (
	"strings"
	"testing"

	"github.com/gocraft/work"

	"github.com/workq-tui/workq-tui/conformance/gcstate"
	"github.com/workq-tui/workq-tui/internal/redistest"
)

// TestHarborPeriodicRunWarned: a run of a Harbor periodic policy in
// scheduled (Harbor enqueues it there itself, id the policy's, args with
// _job_kind_periodic_) gets the same warning on delete and run-now as a
// gocraft/work periodic job: it comes back. A plain scheduled job does not.
func TestHarborPeriodicRunWarned(t *testing.T) {
	runCLI := cliIn(t)
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	const ns = "{harbor_job_service_namespace}"
	e := work.NewEnqueuer(ns, gcstate.RedisPool(t, srv.Addr()))
	plain, err := e.EnqueueIn("GARBAGE_COLLECTION", 3600, work.Q{"redis_url_reg": "redis://redis:6379/1"})
	if err != nil {
		t.Fatal(err)
	}
	const policy = "9c7d0bd0b1b7d7d4e07cbb8c"
	run := `{"name":"SCAN_ALL","id":"` + policy + `","t":1796640000,"args":{"_job_kind_periodic_":true,"redis_url_reg":"redis://redis:6379/1"}}`
	redistest.Do(t, c, "ZADD", ns+":scheduled", 1796643600, run)
	redistest.Do(t, c, "SADD", ns+":known_jobs", "SCAN_ALL")
	redistest.Do(t, c, "ZADD", ns+":period:policies", 1, `{"id":"`+policy+`","job_name":"SCAN_ALL","cron_spec":"0 0 * * * *"}`)
	for _, action := range []string{"delete", "requeue"} {
		flags := []string{"--dry-run"}
		if action == "requeue" {
			flags = append(flags, "--force") // no pool serves the job here
		}
		out, stderr, code := runCLI(append([]string{"--redis", srv.Addr(), "-n", ns, "jobs", "scheduled", action, policy}, flags...)...)
		if code != 0 || !strings.Contains(out+stderr, "1 Harbor periodic run(s)") {
			t.Errorf("%s %s: exit %d\n%s\n%s", action, policy, code, out, stderr)
		}
		out, stderr, _ = runCLI(append([]string{"--redis", srv.Addr(), "-n", ns, "jobs", "scheduled", action, plain.ID}, flags...)...)
		if strings.Contains(out+stderr, "Harbor periodic") {
			t.Errorf("%s %s (a plain job): warned\n%s\n%s", action, plain.ID, out, stderr)
		}
	}
}
