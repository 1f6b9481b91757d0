package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// jobsState fills namespace work: known and served job names, a dead set
// with jobs of two types (one with terminal controls in its error), a member
// that is not JSON and a fractional score, a retry and a scheduled set, and a
// queue. It returns Redis's time.
func jobsState(t *testing.T, c redis.Conn) int64 {
	t.Helper()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "mail", "sms", "gone")
	redistest.Do(t, c, "SADD", "work:worker_pools", "p1")
	redistest.Do(t, c, "HSET", "work:worker_pools:p1", "job_names", "mail,sms", "heartbeat_at", now)
	dead := func(id, name, errText string, score int64) {
		e, _ := json.Marshal(errText)
		j := fmt.Sprintf(`{"name":%q,"id":%q,"t":1700000000,"args":{"big":12345678901234567,"l":[]},"fails":4,"err":%s,"failed_at":%d}`, name, id, e, score)
		redistest.Do(t, c, "ZADD", "work:dead", score, j)
	}
	dead("d1", "mail", "smtp timeout after 30s", 1700000100)
	dead("d2", "mail", "smtp timeout after 31s", 1700000200)
	dead("d3", "sms", "bad number 0xdeadbeef99", 1700000300)
	dead("d4", "gone", "evil \x1b[31mred\u202e", 1700000400)
	redistest.Do(t, c, "ZADD", "work:dead", 1700000050, "not json \x1b[2J")
	redistest.Do(t, c, "ZADD", "work:dead", "1700000060.5", `{"name":"mail","id":"frac","t":1,"args":{}}`)
	redistest.Do(t, c, "ZADD", "work:retry", now+100, `{"name":"mail","id":"r2","t":1,"args":{},"fails":1,"err":"x","failed_at":1}`)
	redistest.Do(t, c, "ZADD", "work:retry", now+50, `{"name":"mail","id":"r1","t":1,"args":{},"fails":1,"err":"x","failed_at":1}`)
	redistest.Do(t, c, "ZADD", "work:scheduled", now+500, `{"name":"sms","id":"s1","t":1,"args":{"to":"x"},"unique":true}`)
	redistest.Do(t, c, "SET", "work:unique:sms:{\"to\":\"x\"}\n", "1")
	redistest.Do(t, c, "LPUSH", "work:jobs:mail", `{"name":"mail","id":"q1","t":1,"args":{}}`, `{"name":"mail","id":"q2","t":1,"args":{}}`)
	return now
}

// ids are the job ids of the rows of a text listing, in order.
func listedIDs(out string) []string {
	lines := strings.Split(out, "\n")
	if len(lines) < 2 {
		return nil
	}
	at := strings.Index(lines[1], "ID")
	var ids []string
	for _, l := range lines[2:] {
		if len(l) > at {
			ids = append(ids, strings.Fields(l[at:])[0])
		}
	}
	return ids
}

func TestJobsList(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobsState(t, c)
	addr := "--redis=" + srv.Addr()
	run := func(args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, input{}, append([]string{addr, "jobs"}, args...)...)
		if code != 0 {
			t.Fatalf("jobs %v: exit %d: %s", args, code, stderr)
		}
		return out
	}

	out := run("dead")
	if got, want := listedIDs(out), []string{"d4", "d3", "d2", "d1", "frac", "-"}; !reflect.DeepEqual(got, want) {
		t.Errorf("dead listed %v, want most recent death first %v:\n%s", got, want, out)
	}
	if strings.ContainsAny(out, "\x1b\u202e") {
		t.Errorf("control text reached the output: %q", out)
	}
	for _, want := range []string{"dead: 6 jobs; 1-6, most recent first", "1700000060.5", "2023-11-14 22:16:40", `evil \x1b[31mred`} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}
	// 80 columns without --wide; with it, the args and the raw text of a
	// member that is not a job.
	for _, l := range strings.Split(out, "\n") {
		if w := textsafe.Width(l); w > 80 {
			t.Errorf("a line of %d columns: %q", w, l)
		}
	}
	wide := run("dead", "--wide")
	for _, want := range []string{"ARGS", `raw not json \x1b[2J`, `evil \x1b[31mred\u202e`, `"big":12345678901234567`} {
		if !strings.Contains(wide, want) {
			t.Errorf("--wide lacks %q:\n%s", want, wide)
		}
	}
	if got := listedIDs(run("retry")); !reflect.DeepEqual(got, []string{"r1", "r2"}) {
		t.Errorf("retry listed %v, want soonest first", got)
	}
	if got := listedIDs(run("dead", "--limit", "2", "--offset", "1")); !reflect.DeepEqual(got, []string{"d3", "d2"}) {
		t.Errorf("page 2 of 2 listed %v", got)
	}
	if got := listedIDs(run("dead", "--job", "mail")); !reflect.DeepEqual(got, []string{"d2", "d1", "frac"}) {
		t.Errorf("--job mail listed %v", got)
	}
	if got := listedIDs(run("dead", "--error", "SMTP TIMEOUT", "--limit", "1")); !reflect.DeepEqual(got, []string{"d2"}) {
		t.Errorf("--error listed %v", got)
	}

	// JSON: the Client's field names, args byte for byte, controls escaped.
	out = run("dead", "--json", "--limit", "3")
	if strings.ContainsAny(out, "\x1b\u202e\x7f") {
		t.Errorf("raw control runes in JSON: %q", out)
	}
	if !strings.Contains(out, `\u202e`) || !strings.Contains(out, `"args":{"big":12345678901234567,"l":[]}`) {
		t.Errorf("JSON lacks the escaped bidi rune or the exact args:\n%s", out)
	}
	var page struct {
		Set   string           `json:"set"`
		Count int64            `json:"count"`
		Jobs  []map[string]any `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("JSON does not decode: %v\n%s", err, out)
	}
	if page.Set != "dead" || page.Count != 6 || len(page.Jobs) != 3 || page.Jobs[0]["id"] != "d4" || page.Jobs[0]["died_at"] != 1700000400.0 ||
		page.Jobs[0]["err"] != "evil \x1b[31mred\u202e" {
		t.Errorf("JSON page: %+v", page)
	}
	out = run("dead", "--json", "--offset", "5")
	if err := json.Unmarshal([]byte(out), &page); err != nil || len(page.Jobs) != 1 || page.Jobs[0]["raw"] != "not json \x1b[2J" || page.Jobs[0]["problem"] == nil {
		t.Errorf("bad member in JSON: %v %+v", err, page)
	}

	// Summary: by type and by folded error.
	out = run("dead", "--summary")
	for _, want := range []string{"dead: 6 members counted", "3 mail", "1 sms", "1 gone", "1 (not a job)", "2 smtp timeout after Ns", "1 bad number <id>"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	var sum jobsSummaryJSON
	if err := json.Unmarshal([]byte(run("dead", "--summary", "--json")), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Members != 6 || sum.NotJobs != 1 || sum.ByName[0] != (nameCountJSON{"mail", 3}) {
		t.Errorf("summary JSON: %+v", sum)
	}
}

// jobsWriteCounts is the number of calls of each write command Redis has
// served since CONFIG RESETSTAT.
func jobsWriteCounts(t *testing.T, c redis.Conn) string {
	t.Helper()
	info, err := redis.String(c.Do("INFO", "commandstats"))
	if err != nil {
		t.Fatal(err)
	}
	var writes []string
	for _, l := range strings.Split(info, "\n") {
		for _, w := range []string{"eval", "evalsha", "zrem", "lpush", "lrem", "del", "zadd", "set"} {
			if strings.HasPrefix(l, "cmdstat_"+w+":") {
				writes = append(writes, strings.TrimSpace(l))
			}
		}
	}
	return strings.Join(writes, "; ")
}

func TestJobsRefusals(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	jobsState(t, c)
	addr := "--redis=" + srv.Addr()
	before := redistest.Dump(t, c, "*")
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + auditPath
	for _, tc := range []struct {
		name string
		tty  bool
		args []string
		code int
		want string
	}{
		{"read-only requeue, before connecting", false, []string{"--redis=127.0.0.1:1", "--read-only", "jobs", "dead", "requeue", "--all"}, 1, "refused with --read-only"},
		{"read-only delete, before connecting", false, []string{"--redis=127.0.0.1:1", "--read-only", "jobs", "retry", "delete", "r1"}, 1, "refused with --read-only"},
		{"read-only queue delete, before connecting", false, []string{"--redis=127.0.0.1:1", "--read-only", "jobs", "queue", "mail", "delete", "q1"}, 1, "refused with --read-only"},
		{"read-only requeue by query, before connecting", false, []string{"--redis=127.0.0.1:1", "--read-only", "jobs", "dead", "requeue", "--all", "--where", "job:mail"}, 1, "refused with --read-only"},
		{"read-only delete by query, before connecting", false, []string{"--redis=127.0.0.1:1", "--read-only", "jobs", "dead", "delete", "--all", "--where", "job:mail"}, 1, "refused with --read-only"},
		// A bad query is refused before connecting: the address is unreachable.
		{"unknown term", false, []string{"--redis=127.0.0.1:1", "jobs", "dead", "--where", "erorr:timeout"}, 2, `unknown term "erorr:" (did you mean err:?)`},
		{"bad regexp", false, []string{"--redis=127.0.0.1:1", "jobs", "dead", "requeue", "--all", "--where", "err~(x"}, 2, `term "err~(x": error parsing regexp`},
		{"bad time", false, []string{"--redis=127.0.0.1:1", "jobs", "retry", "delete", "--all", "--where", "since:soon"}, 2, `time "soon"`},
		{"until before since", false, []string{"--redis=127.0.0.1:1", "jobs", "dead", "--summary", "--where", "since:2026-12-01T03:40:00Z until:2026-12-01T03:10:00Z"}, 2, "is before since"},
		{"bad query on a queue", false, []string{"--redis=127.0.0.1:1", "jobs", "queue", "mail", "--where", "nme:x"}, 2, "unknown term"},
		{"--where without --all", false, []string{addr, "jobs", "dead", "delete", "--where", "job:mail", "d1"}, 2, "go with --all"},
		{"--rate without --all", false, []string{addr, "jobs", "dead", "requeue", "--rate", "5", "d1"}, 2, "--rate"},
		{"--rate on a delete", false, []string{addr, "jobs", "dead", "delete", "--all", "--rate", "5"}, 2, "--rate does not apply"},
		{"--rate 0", false, []string{addr, "jobs", "dead", "requeue", "--all", "--rate", "0"}, 2, "--rate"},
		{"no set", false, []string{addr, "jobs"}, 2, "needs a job set"},
		{"unknown set", false, []string{addr, "jobs", "failed"}, 2, "unknown job set"},
		{"unknown action", false, []string{addr, "jobs", "dead", "retry"}, 2, "unknown action"},
		{"no ids", false, []string{addr, "jobs", "dead", "requeue"}, 2, "needs job IDs"},
		{"ids and --all", false, []string{addr, "jobs", "dead", "delete", "--all", "d1"}, 2, "not both"},
		{"--job without --all", false, []string{addr, "jobs", "dead", "delete", "--job", "mail", "d1"}, 2, "--job, --error and --where go with --all"},
		{"--summary on a write", false, []string{addr, "jobs", "dead", "delete", "--summary", "d1"}, 2, "--summary does not apply"},
		{"--yes on a listing", false, []string{addr, "jobs", "dead", "--yes"}, 2, "--yes does not apply"},
		{"--force on a delete", false, []string{addr, "jobs", "dead", "delete", "--force", "d1"}, 2, "--force does not apply"},
		{"flag of another command", false, []string{addr, "jobs", "dead", "--all-dead"}, 2, "does not apply"},
		{"bad score", false, []string{addr, "jobs", "dead", "delete", "d1@1.2.3"}, 2, "not a number"},
		{"empty id", false, []string{addr, "jobs", "dead", "delete", "@1700000100"}, 2, "empty job ID"},
		{"limit 0", false, []string{addr, "jobs", "dead", "--limit", "0"}, 2, "--limit"},
		{"negative offset", false, []string{addr, "jobs", "dead", "--offset", "-1"}, 2, "--offset"},
		{"summary with limit", false, []string{addr, "jobs", "dead", "--summary", "--limit", "5"}, 2, "--summary counts the whole set"},
		{"batch 0", false, []string{addr, "jobs", "dead", "delete", "--batch", "0", "d1"}, 2, "--batch"},
		{"queue with an unknown action", false, []string{addr, "jobs", "queue", "mail", "drop"}, 2, "takes nothing, delete ID..., or delete or park with --where QUERY"},
		{"queue delete without ids", false, []string{addr, "jobs", "queue", "mail", "delete"}, 2, "needs job IDs or --where QUERY"},
		{"park without --where", false, []string{addr, "jobs", "queue", "mail", "park"}, 2, "jobs queue park needs --where QUERY"},
		{"park with ids", false, []string{addr, "jobs", "queue", "mail", "park", "q1"}, 2, "takes --where QUERY, not job IDs"},
		{"park with an empty query", false, []string{addr, "jobs", "queue", "mail", "park", "--where", " "}, 2, "--where must not be empty"},
		{"park --rate 0", false, []string{addr, "jobs", "queue", "mail", "park", "--where", "args.bad:1", "--rate", "0"}, 2, "--rate"},
		{"park --force", false, []string{addr, "jobs", "queue", "mail", "park", "--where", "args.bad:1", "--force"}, 2, "--force does not apply"},
		{"queue delete by id --rate", false, []string{addr, "jobs", "queue", "mail", "delete", "q1", "--rate", "3"}, 2, "--rate does not apply"},
		{"bad query on a park", false, []string{"--redis=127.0.0.1:1", "jobs", "queue", "mail", "park", "--where", "nme:x"}, 2, "unknown term"},
		{"read-only park, before connecting", false, []string{"--redis=127.0.0.1:1", "--read-only", "jobs", "queue", "mail", "park", "--where", "args.bad:1"}, 1, "refused with --read-only"},
		{"read-only delete by query", false, []string{"--redis=127.0.0.1:1", "--read-only", "jobs", "queue", "mail", "delete", "--where", "args.bad:1", "--yes"}, 1, "refused with --read-only"},
		{"id not found", false, []string{addr, al, "jobs", "dead", "delete", "--yes", "nope"}, 1, "job not found"},
		{"id not at that score", false, []string{addr, al, "jobs", "dead", "delete", "--yes", "d1@1700000200"}, 1, "job not found"},
		{"name not in known_jobs", false, []string{addr, al, "jobs", "dead", "requeue", "--yes", "frac@1700000060.5", "d4"}, 1, "gone"},
		{"name nobody serves", false, []string{addr, al, "jobs", "dead", "requeue", "--yes", "--all", "--job", "gone"}, 1, "no worker pool serves"},
		{"not a job", false, []string{addr, al, "jobs", "queue", "nobody", "delete", "--yes", "q1"}, 1, "job not found"},
		{"no terminal, no --yes", false, []string{addr, al, "jobs", "dead", "delete", "d1"}, 1, "--yes"},
		{"operator says no", true, []string{addr, al, "jobs", "dead", "delete", "d1"}, 1, "aborted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, input{stdin: "n\n", tty: tc.tty}, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
			if lines := errorLines(stderr); lines != 1 {
				t.Errorf("error takes %d lines: %q", lines, stderr)
			}
			if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
				t.Fatal("Redis changed")
			}
		})
	}
	if _, err := os.Stat(auditPath); !os.IsNotExist(err) {
		t.Errorf("a refused write left an audit log: %v", err)
	}

	// A dry run under --read-only reads the plan and sends no write.
	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	for _, args := range [][]string{
		{"dead", "requeue", "--all", "--job", "mail"}, {"dead", "delete", "--all"}, {"scheduled", "delete", "s1"},
		{"retry", "requeue", "r1", "r2"}, {"queue", "mail", "delete", "q1"}, {"dead", "--summary"}, {"dead", "--job", "sms"},
	} {
		out, stderr, code := runCLI(t, input{}, append([]string{addr, "--read-only", "jobs", "--dry-run"}, args...)...)
		if args[1] == "--summary" || args[1] == "--job" {
			_, stderr, code = runCLI(t, input{}, append([]string{addr, "--read-only", "jobs"}, args...)...)
		} else if !strings.Contains(out, "Dry run: nothing changed.") {
			t.Errorf("%v: no plan:\n%s", args, out)
		}
		if code != 0 {
			t.Fatalf("%v under --read-only: exit %d: %s", args, code, stderr)
		}
	}
	if w := jobsWriteCounts(t, c); w != "" {
		t.Errorf("read-only dry runs sent writes: %s", w)
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Fatal("Redis changed")
	}
}

func TestJobsWrites(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := jobsState(t, c)
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + auditPath
	run := func(args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, input{}, append([]string{addr, al, "jobs"}, args...)...)
		if code != 0 {
			t.Fatalf("jobs %v: exit %d: %s\n%s", args, code, stderr, out)
		}
		return out
	}
	auditLines := func() int {
		b, _ := os.ReadFile(auditPath)
		return strings.Count(string(b), "\n")
	}

	// Dry run: the plan, nothing else.
	before := redistest.Dump(t, c, "*")
	out := run("dead", "requeue", "--dry-run", "--all", "--job", "mail", "--wide")
	for _, want := range []string{"requeue (t = now; fails, err and failed_at dropped", "mail      3", "Dry run: nothing changed."} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) || auditLines() != 0 {
		t.Fatal("a dry run changed Redis or wrote the audit log")
	}

	// Requeue one dead job by id@score: fields dropped, t now, args exact.
	out = run("dead", "requeue", "--yes", "d1@1700000100")
	if !strings.Contains(out, "Done: 1 job requeued.") {
		t.Errorf("output:\n%s", out)
	}
	q, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, 0))
	if want := fmt.Sprintf(`{"name":"mail","id":"d1","t":%d,"args":{"big":12345678901234567,"l":[]}}`, now); len(q) != 1 || (q[0] != want && !strings.HasPrefix(q[0], `{"name":"mail","id":"d1","t":`)) {
		t.Errorf("queue head %q, want %s", q, want)
	} else if !strings.HasSuffix(q[0], `,"args":{"big":12345678901234567,"l":[]}}`) {
		t.Errorf("args changed: %s", q[0])
	}
	if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 5 || auditLines() != 1 {
		t.Errorf("dead has %d members, audit log %d lines", n, auditLines())
	}

	// Requeue every mail job (--batch 1: one script call per job); the
	// fractional-score member goes too.
	out = run("dead", "requeue", "--yes", "--all", "--job", "mail", "--batch", "1")
	if !strings.Contains(out, "Done: 2 jobs requeued.") {
		t.Errorf("output:\n%s", out)
	}
	if n, _ := redis.Int(c.Do("LLEN", "work:jobs:mail")); n != 5 {
		t.Errorf("mail queue has %d jobs, want 5", n)
	}

	// Run a retry job now: fails and err kept.
	run("retry", "requeue", "--yes", "r2")
	q, _ = redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, 0))
	if len(q) != 1 || !strings.Contains(q[0], `"id":"r2"`) || !strings.Contains(q[0], `"fails":1,"err":"x"`) {
		t.Errorf("retry job requeued as %q", q)
	}

	// Delete the scheduled unique job: its unique key goes too.
	out = run("scheduled", "delete", "--yes", "s1")
	if !strings.Contains(out, "1 unique key deleted") {
		t.Errorf("output:\n%s", out)
	}
	if n, _ := redis.Int(c.Do("EXISTS", "work:unique:sms:{\"to\":\"x\"}\n")); n != 0 {
		t.Error("unique key left")
	}

	// Delete the rest of dead, bad members included.
	run("dead", "delete", "--yes", "--all")
	if n, _ := redis.Int(c.Do("EXISTS", "work:dead")); n != 0 {
		t.Error("dead set left")
	}

	// Delete a poison job from a queue.
	run("queue", "mail", "delete", "--yes", "q1")
	raws, _ := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
	for _, r := range raws {
		if strings.Contains(r, `"id":"q1"`) {
			t.Errorf("q1 still queued: %v", raws)
		}
	}
	if len(raws) != 5 {
		t.Errorf("queue holds %d jobs, want 5", len(raws))
	}
	// The same id twice with different bytes needs --force.
	redistest.Do(t, c, "LPUSH", "work:jobs:mail", `{"name":"mail","id":"dup","t":1,"args":{}}`, `{"name":"mail","id":"dup","t":2,"args":{}}`)
	if _, stderr, code := runCLI(t, input{}, addr, al, "jobs", "queue", "mail", "delete", "--yes", "dup"); code != 1 || !strings.Contains(stderr, "--force") {
		t.Errorf("duplicate id: exit %d, %s", code, stderr)
	}
	run("queue", "mail", "delete", "--yes", "--force", "dup")
	if n, _ := redis.Int(c.Do("LLEN", "work:jobs:mail")); n != 5 {
		t.Errorf("queue holds %d jobs after the forced delete, want 5", n)
	}

	b, _ := os.ReadFile(auditPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 7 {
		t.Fatalf("audit log has %d lines, want one per executed write (7):\n%s", len(lines), b)
	}
	for i, want := range []string{`action=jobs-requeue targets="set=dead,d1@1700000100" moved=1`, `targets="set=dead,all,job=mail" moved=2`, "", "", "", `action=jobs-delete targets="queue=mail,`, ""} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("audit line %d: %s\nwant %q", i, lines[i], want)
		}
	}
}

func TestJobsHelp(t *testing.T) {
	out, _, code := runCLI(t, input{}, "jobs", "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, want := range []string{"jobs SET requeue", "jobs queue JOB delete", "ID@SCORE", "--summary", "--dry-run", "--audit-log"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
	if strings.Contains(out, "--all-dead") {
		t.Error("help lists another command's flag")
	}
}
