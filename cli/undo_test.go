package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/audit"
	"github.com/workq-tui/workq-tui/internal/journal"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// undoState is a namespace with a served job type and dead and retry jobs,
// some unique.
func undoState(t *testing.T, c redis.Conn) {
	t.Helper()
	now, err := redis.Int64s(c.Do("TIME"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]any{
		{"SADD", "work:known_jobs", "mail"},
		{"SADD", "work:worker_pools", "p1"},
		{"HSET", "work:worker_pools:p1", "job_names", "mail", "heartbeat_at", now[0]},
	} {
		redistest.Do(t, c, cmd[0].(string), cmd[1:]...)
	}
	for i := 0; i < 40; i++ {
		redistest.Do(t, c, "ZADD", "work:dead", 1700000000+i, fmt.Sprintf(`{"name":"mail","id":"d%02d","t":1,"args":{"to":"a\u001b[31m"},"fails":4,"err":"x","failed_at":1700000000}`, i))
		key := fmt.Sprintf("work:unique:mail:r%02d", i)
		job := fmt.Sprintf(`{"name":"mail","id":"r%02d","t":1,"args":{},"unique":true,"unique_key":%q,"fails":1}`, i, key)
		redistest.Do(t, c, "ZADD", "work:retry", 1700000000+i, job)
		redistest.Do(t, c, "SET", key, job, "EX", 3600)
	}
}

var journalIDRe = regexp.MustCompile(`journal=(\d{8}-\d{6}-\d{3})`)

// A requeue and a delete from the command line, each journalled and named
// on its audit line; history lists them; undo (dry run, refused under
// --read-only, then for real) puts each back, and history says so.
func TestUndoCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "state", "audit.log")
	al := "--audit-log=" + auditPath
	before := redistest.Dump(t, c, "work:*")

	if out, stderr, code := runCLI(t, input{}, addr, al, "jobs", "dead", "requeue", "--all", "--yes", "--batch", "7"); code != 0 {
		t.Fatalf("requeue: exit %d: %s\n%s", code, stderr, out)
	}
	if out, stderr, code := runCLI(t, input{}, addr, al, "jobs", "retry", "delete", "--all", "--yes"); code != 0 {
		t.Fatalf("delete: exit %d: %s\n%s", code, stderr, out)
	}
	lines := auditLines(t, auditPath)
	var ids []string
	for _, l := range lines {
		m := journalIDRe.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("audit line without its journal: %s", l)
		}
		ids = append(ids, m[1])
	}
	if len(ids) != 2 {
		t.Fatalf("audit lines %q", lines)
	}
	journalDir := journal.DirBeside(auditPath)
	for _, id := range ids {
		fi, err := os.Stat(filepath.Join(journalDir, id+".wqj"))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("journal of %s: %v %v", id, err, fi)
		}
	}

	out, stderr, code := runCLI(t, input{}, addr, al, "history")
	if code != 0 || !strings.Contains(out, ids[0]) || !strings.Contains(out, "jobs dead requeue") || !strings.Contains(out, "jobs retry delete") {
		t.Fatalf("history: exit %d: %s\n%s", code, stderr, out)
	}
	out, _, code = runCLI(t, input{}, addr, al, "history", "--json")
	var rows []journal.Summary
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 2 || rows[0].Done != 40 || rows[1].Items != 40 || rows[0].State != "done" {
		t.Fatalf("history --json: exit %d: %s", code, out)
	}
	out, _, code = runCLI(t, input{}, addr, al, "history", ids[0])
	// Each job as a plan names it: id, job name, time; no escaped JSON.
	if code != 0 || !strings.Contains(out, "d00  mail  died_at 2023-11-14T22:13:20Z") || strings.Contains(out, `\"`) || strings.Contains(out, "\x1b") {
		t.Fatalf("history %s: exit %d:\n%s", ids[0], code, out)
	}

	// Refused under --read-only before connecting; a dry run changes nothing.
	if _, stderr, code := runCLI(t, input{}, "--redis=127.0.0.1:1", "--read-only", al, "undo", "--yes"); code != 1 || !strings.Contains(stderr, "refused with --read-only") {
		t.Fatalf("read-only undo: exit %d: %s", code, stderr)
	}
	afterWrites := redistest.Dump(t, c, "work:*")
	out, _, code = runCLI(t, input{}, addr, al, "undo", "--dry-run")
	if code != 0 || !strings.Contains(out, "Undo of action "+ids[1]) || !strings.Contains(out, "to put back: 40") || !strings.Contains(out, "Dry run") {
		t.Fatalf("undo --dry-run: exit %d:\n%s", code, out)
	}
	if !reflect.DeepEqual(redistest.Dump(t, c, "work:*"), afterWrites) {
		t.Fatal("undo --dry-run changed Redis")
	}
	if _, stderr, code := runCLI(t, input{tty: true, stdin: "n\n"}, addr, al, "undo"); code != 1 || !strings.Contains(stderr, "aborted") {
		t.Fatalf("undo answered no: exit %d: %s", code, stderr)
	}
	// The last action (the delete), then the requeue by its ID.
	out, stderr, code = runCLI(t, input{}, addr, al, "undo", "--yes")
	if code != 0 || !strings.Contains(out, "put back 40") || !strings.Contains(out, "40 unique keys put back") {
		t.Fatalf("undo: exit %d: %s\n%s", code, stderr, out)
	}
	out, stderr, code = runCLI(t, input{}, addr, al, "undo", "--yes", ids[0])
	if code != 0 || !strings.Contains(out, "put back 40") {
		t.Fatalf("undo %s: exit %d: %s\n%s", ids[0], code, stderr, out)
	}
	if got := redistest.Dump(t, c, "work:*"); !reflect.DeepEqual(got, before) {
		t.Fatalf("after both undos the namespace differs:\n%v\nwant\n%v", got, before)
	}
	lines = auditLines(t, auditPath)
	if len(lines) != 4 || !strings.Contains(lines[3], "action=undo targets="+ids[0]) || !journalIDRe.MatchString(lines[3]) {
		t.Fatalf("audit lines after the undos: %q", lines)
	}
	undoID := journalIDRe.FindStringSubmatch(lines[3])[1]
	out, _, _ = runCLI(t, input{}, addr, al, "history")
	if !strings.Contains(out, "undone by "+undoID) || !strings.Contains(out, "undo of "+ids[0]) {
		t.Fatalf("history after the undos:\n%s", out)
	}
	// Again: everything is back already (the plan reads it and says the
	// action was undone); an undo of an undo is refused.
	out, stderr, code = runCLI(t, input{}, addr, al, "undo", "--yes", ids[0])
	if code != 0 || !strings.Contains(out, "back where they were already: 40") || !strings.Contains(out, "Nothing to put back.") ||
		!strings.Contains(out, "Action "+ids[0]+" is already undone by ") {
		t.Fatalf("undo again: exit %d: %s\n%s", code, stderr, out)
	}
	// Without an ID, the last action is undone already: said, nothing
	// planned, no older action picked instead.
	out, stderr, code = runCLI(t, input{}, addr, al, "undo", "--dry-run")
	if code != 1 || out != "" || !strings.Contains(stderr, "the last action, "+ids[1]+" (jobs retry delete), is already undone by ") || errorLines(stderr) != 1 {
		t.Fatalf("undo --dry-run of an undone action: exit %d: %q\n%s", code, stderr, out)
	}
	_, stderr, code = runCLI(t, input{}, addr, al, "undo", "--yes", undoID)
	if code != 1 || !strings.Contains(stderr, "is an undo of "+ids[0]) || errorLines(stderr) != 1 {
		t.Fatalf("undo of an undo: exit %d: %q", code, stderr)
	}
	if got := redistest.Dump(t, c, "work:*"); !reflect.DeepEqual(got, before) {
		t.Fatal("a repeated undo changed the namespace")
	}
}

// history and undo of an action of another Redis or namespace refuse it
// with one line; a journal cut short or edited is read up to its last
// whole record, and says so.
func TestUndoOtherTargetAndDamagedJournal(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + auditPath
	if out, stderr, code := runCLI(t, input{}, addr, al, "jobs", "dead", "requeue", "--all", "--yes", "--batch", "4"); code != 0 {
		t.Fatalf("requeue: exit %d: %s\n%s", code, stderr, out)
	}
	id := journalIDRe.FindStringSubmatch(auditLines(t, auditPath)[0])[1]
	before := redistest.Dump(t, c, "*")
	for _, args := range [][]string{
		{addr, al, "--namespace", "other", "history", id},
		{addr, al, "--namespace", "other", "undo", "--yes", id},
		{"--redis=127.0.0.1:1", al, "history", id},
		{"--redis=127.0.0.1:1", al, "undo", "--yes", id},
	} {
		_, stderr, code := runCLI(t, input{}, args...)
		if code != 1 || !strings.Contains(stderr, "ran on another target") || errorLines(stderr) != 1 {
			t.Fatalf("%q: exit %d: %q", args, code, stderr)
		}
	}
	if out, _, code := runCLI(t, input{}, addr, al, "--namespace", "other", "history"); code != 0 || strings.Contains(out, id) {
		t.Fatalf("history of namespace other lists %s:\n%s", id, out)
	}
	if !reflect.DeepEqual(redistest.Dump(t, c, "*"), before) {
		t.Fatal("a refused undo changed Redis")
	}

	// Cut the journal in the middle of its last records.
	path := filepath.Join(journal.DirBeside(auditPath), id+".wqj")
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, full[:len(full)*2/3], 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, input{}, addr, al, "history", id)
	if code != 0 || !strings.Contains(stderr, "read up to record") || !strings.Contains(out, "journal damaged") {
		t.Fatalf("history of a cut journal: exit %d: %s\n%s", code, stderr, out)
	}
	// What the whole records hold goes back; the rest stays queued.
	out, stderr, code = runCLI(t, input{}, addr, al, "undo", "--yes", id)
	if code != 0 || !strings.Contains(stderr, "read up to record") || !strings.Contains(out, "The journal is damaged") {
		t.Fatalf("undo of a cut journal: exit %d: %s\n%s", code, stderr, out)
	}
	back, _ := redis.Int(c.Do("ZCARD", "work:dead"))
	queued, _ := redis.Int(c.Do("LLEN", "work:jobs:mail"))
	if back == 0 || back == 40 || back+queued != 40 {
		t.Fatalf("after the undo of a cut journal: %d dead, %d queued", back, queued)
	}
	// A byte edited by hand in the header: no record can be trusted.
	full[12] ^= 1
	if err := os.WriteFile(path, full, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runCLI(t, input{}, addr, al, "history", id)
	if code != 1 || !strings.Contains(stderr, "no readable header") || errorLines(stderr) != 1 {
		t.Fatalf("history of an edited header: exit %d: %q", code, stderr)
	}
}

// A reap, an orphan requeue and a lock repair put their values before on
// record (history shows the locks, lock_info and list lengths), and undo
// refuses each with its reason on one line, changing nothing.
func TestUndoRefusesRepairs(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	now := redistest.Time(t, c).Unix()
	const dead = "deaddeaddeaddeaddeaddead"
	for _, cmd := range [][]any{
		{"SADD", "work:known_jobs", "mail", "sms"},
		{"SADD", "work:worker_pools", dead},
		{"HSET", "work:worker_pools:" + dead, "heartbeat_at", now - 120, "job_names", "mail"},
		{"RPUSH", "work:jobs:mail:" + dead + ":inprogress", "j1", "j2", "j3"},
		{"SET", "work:jobs:mail:lock", 3},
		{"HSET", "work:jobs:mail:lock_info", dead, 3},
		{"RPUSH", "work:jobs:sms:gonegonegonegonegonegone:inprogress", "s1"},
		{"SET", "work:jobs:sms:lock", 9},
	} {
		redistest.Do(t, c, cmd[0].(string), cmd[1:]...)
	}
	addr := "--redis=" + srv.Addr()
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	al := "--audit-log=" + auditPath
	for _, args := range [][]string{
		{"reap", dead, "--yes"},
		{"requeue", "work:jobs:sms:gonegonegonegonegonegone:inprogress", "--yes"},
		{"repair-locks", "sms", "--yes"},
	} {
		if out, stderr, code := runCLI(t, input{}, append([]string{addr, al}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s\n%s", args, code, stderr, out)
		}
	}
	lines := auditLines(t, auditPath)
	if len(lines) != 3 {
		t.Fatalf("audit lines %q", lines)
	}
	reapID := journalIDRe.FindStringSubmatch(lines[0])[1]
	out, _, code := runCLI(t, input{}, addr, al, "history", reapID, "--json")
	var a struct {
		Calls []struct {
			Intent struct {
				Items []struct {
					Key    *struct{ Name string } `json:"key"`
					Fields map[string]string      `json:"fields"`
					Lists  map[string]int64       `json:"lists"`
				} `json:"items"`
			} `json:"intent"`
			Commit *struct {
				Statuses []string `json:"statuses"`
			} `json:"commit"`
		} `json:"calls"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &a) != nil || len(a.Calls) != 1 || a.Calls[0].Commit == nil {
		t.Fatalf("history of the reap: exit %d:\n%s", code, out)
	}
	var lock, lists bool
	for _, it := range a.Calls[0].Intent.Items {
		if it.Key != nil && it.Key.Name == "work:jobs:mail:lock" && it.Fields[dead] == "3" {
			lock = true
		}
		if it.Lists["work:jobs:mail:"+dead+":inprogress"] == 3 {
			lists = true
		}
	}
	if !lock || !lists {
		t.Fatalf("the reap's journal lacks the lock and lock_info (%v) or the list lengths (%v) before:\n%s", lock, lists, out)
	}
	before := redistest.Dump(t, c, "*")
	for i, want := range []string{"repaired broken state", "repaired broken state", "repaired broken state"} {
		id := journalIDRe.FindStringSubmatch(lines[i])[1]
		_, stderr, code := runCLI(t, input{}, addr, al, "undo", "--yes", id)
		if code != 1 || !strings.Contains(stderr, want) || errorLines(stderr) != 1 {
			t.Fatalf("undo of %s: exit %d: %q", id, code, stderr)
		}
	}
	// Without an ID: the last action, the lock repair, refused too.
	if _, stderr, code := runCLI(t, input{}, addr, al, "undo", "--yes"); code != 1 || !strings.Contains(stderr, "repair-locks") {
		t.Fatalf("undo of the last action: exit %d: %q", code, stderr)
	}
	if !reflect.DeepEqual(redistest.Dump(t, c, "*"), before) {
		t.Fatal("a refused undo changed Redis")
	}
}

// The screen's job actions and pauses go to the same journal: `undo`
// from the command line puts them back.
func TestUndoScreenActions(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	undoState(t, c)
	before := redistest.Dump(t, c, "work:*")
	auditPath := filepath.Join(t.TempDir(), "audit.log")
	sj := newScreenJournal(&audit.File{Path: auditPath, User: "ops"}, &target{namespace: "work", endpoint: srv.Addr()})
	pool := srv.Pool()
	defer pool.Close()
	ctx := context.Background()
	jobs := screenJobsJournalled(pool, "work", 5, sj)
	plan, err := jobs.PlanJobs(ctx, reaper.JobsRequeue, reaper.JobsTarget{Set: model.SetDead, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := jobs.ExecuteJobs(ctx, plan, nil); err != nil || res.Done != 40 {
		t.Fatalf("requeue from the screen: %d, %v", res.Done, err)
	}
	pplan := reaper.PausePlan{Namespace: "work", Pause: true, Jobs: []reaper.PauseJob{{Name: "mail", Key: "work:jobs:mail:paused"}}}
	if _, err := screenPauser(pool, sj).Pause(ctx, pplan); err != nil {
		t.Fatal(err)
	}
	addr, al := "--redis="+srv.Addr(), "--audit-log="+auditPath
	out, _, code := runCLI(t, input{}, addr, al, "history")
	if code != 0 || !strings.Contains(out, "screen jobs dead requeue") || !strings.Contains(out, "screen pause") {
		t.Fatalf("history: exit %d:\n%s", code, out)
	}
	// The last action, the pause; then the requeue by its ID.
	if out, stderr, code := runCLI(t, input{}, addr, al, "undo", "--yes"); code != 0 || !strings.Contains(out, "Undo of action") || !strings.Contains(out, "screen pause") {
		t.Fatalf("undo: exit %d: %s\n%s", code, stderr, out)
	}
	out, _, _ = runCLI(t, input{}, addr, al, "history", "--json")
	var rows []journal.Summary
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("history --json: %v\n%s", err, out)
	}
	if out, stderr, code := runCLI(t, input{}, addr, al, "undo", "--yes", rows[0].ID); code != 0 || !strings.Contains(out, "put back 40") {
		t.Fatalf("undo %s: exit %d: %s\n%s", rows[0].ID, code, stderr, out)
	}
	if got := redistest.Dump(t, c, "work:*"); !reflect.DeepEqual(got, before) {
		t.Fatal("after undoing the screen's actions the namespace differs")
	}
}
