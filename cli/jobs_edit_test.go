package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// editState: a dead mail job e1 whose args hold a number of 20 digits, and
// a live pool serving mail.
const editOld = `{"name":"mail","id":"e1","t":1700000000,"args":{"to":"a@b","big":12345678901234567890},"fails":4,"err":"smtp","failed_at":1700000100}`

func editState(t *testing.T, c redis.Conn) {
	t.Helper()
	now := redistest.Time(t, c).Unix()
	redistest.Do(t, c, "SADD", "work:known_jobs", "mail")
	redistest.Do(t, c, "SADD", "work:worker_pools", "p1")
	redistest.Do(t, c, "HSET", "work:worker_pools:p1", "job_names", "mail", "heartbeat_at", now)
	redistest.Do(t, c, "ZADD", "work:dead", 1700000100, editOld)
}

func TestJobsEditThroughTheEditor(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	editState(t, c)
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec")
	script := filepath.Join(dir, "ed")
	// The editor records the file's mode and path, then edits one line.
	if err := os.WriteFile(script, []byte("#!/bin/sh\nstat -c %a \"$1\" > "+rec+"\necho \"$1\" >> "+rec+"\nsed -i 's/\"a@b\"/\"z@b\"/' \"$1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "VISUAL":
			return script
		case "XDG_STATE_HOME":
			return state
		}
		return ""
	}
	out, stderr, code := runCLI(t, input{getenv: getenv}, "--redis", srv.Addr(), "jobs", "dead", "edit", "e1", "--yes")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	want := strings.Replace(editOld, `"a@b"`, `"z@b"`, 1)
	if got := redistest.Do(t, c, "ZRANGE", "work:dead", 0, -1); string(got.([]any)[0].([]byte)) != want {
		t.Errorf("member %s, want %s", got.([]any)[0], want)
	}
	for _, w := range []string{`-   "to": "a@b",`, `+   "to": "z@b",`, "Edited: job e1", "Undo: `workq-tui --redis " + srv.Addr() + " undo "} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "600" {
		t.Errorf("editor saw %q, want a file of mode 600", lines)
	}
	if _, err := os.Stat(filepath.Dir(lines[len(lines)-1])); !os.IsNotExist(err) {
		t.Errorf("the edited file's directory is left behind: %v", err)
	}

	// The undo command printed puts the old bytes back.
	m := regexp.MustCompile("`workq-tui --redis \\S+ (undo \\S+)`").FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no undo command in:\n%s", out)
	}
	if out, stderr, code := runCLI(t, input{getenv: getenv}, append([]string{"--redis", srv.Addr(), "--yes"}, strings.Fields(m[1])...)...); code != 0 {
		t.Fatalf("%s: exit %d: %s\n%s", m[1], code, stderr, out)
	}
	if got := redistest.Do(t, c, "ZRANGE", "work:dead", 0, -1); string(got.([]any)[0].([]byte)) != editOld {
		t.Errorf("after undo: %s", got.([]any)[0])
	}
}

func TestJobsEditRefusals(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	editState(t, c)
	dir := t.TempDir()
	n := 0
	file := func(text string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("args%d.json", n))
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := redistest.Dump(t, c, "*")
	addr := "--redis=" + srv.Addr()
	for _, tc := range []struct {
		name  string
		in    input
		args  []string
		code  int
		want  string
		where string // "out" or "err"
	}{
		{"bad JSON", input{}, []string{"jobs", "dead", "edit", "e1", "--yes", "--args", file("{\n  \"to\": x\n}")}, ExitError, "line 2, column 9", "err"},
		{"not an object", input{}, []string{"jobs", "dead", "edit", "e1", "--yes", "--args", file("[1]")}, ExitError, "must be a JSON object", "err"},
		{"unchanged", input{}, []string{"jobs", "dead", "edit", "e1", "--yes", "--args", file(`{"to":"a@b", "big":12345678901234567890}`)}, ExitOK, "nothing changed", "out"},
		{"unchanged, same order", input{}, []string{"jobs", "dead", "edit", "e1", "--yes", "--args", file("{\n \"to\": \"a@b\",\n \"big\": 12345678901234567890\n}\n")}, ExitOK, "nothing changed", "out"},
		{"read-only", input{}, []string{"--read-only", "jobs", "dead", "edit", "e1", "--yes", "--args", file(`{"to":"q"}`)}, ExitError, "refused with --read-only", "err"},
		{"dry run", input{}, []string{"jobs", "dead", "edit", "e1", "--dry-run", "--args", file(`{"to":"q"}`)}, ExitOK, "Dry run: nothing changed.", "out"},
		{"no terminal, no editor", input{}, []string{"jobs", "dead", "edit", "e1", "--yes"}, ExitError, "--args FILE", "err"},
		{"stdin without --yes", input{stdin: `{}`}, []string{"jobs", "dead", "edit", "e1", "--args", "-"}, ExitUsage, "add --yes", "err"},
		{"not found", input{}, []string{"jobs", "dead", "edit", "nope", "--yes", "--args", file(`{"to":"q"}`)}, ExitError, "job not found", "err"},
		{"two ids", input{}, []string{"jobs", "dead", "edit", "e1", "e2"}, ExitUsage, "takes one job", "err"},
		{"flag of another form", input{}, []string{"jobs", "dead", "duplicate", "e1", "--requeue"}, ExitUsage, "--requeue does not apply", "err"},
		{"read-only duplicate", input{}, []string{"--read-only", "jobs", "dead", "duplicate", "e1", "--yes"}, ExitError, "refused with --read-only", "err"},
		{"duplicate dry run", input{}, []string{"jobs", "dead", "duplicate", "e1", "--dry-run"}, ExitOK, "push a copy of this", "out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, tc.in, append([]string{addr}, tc.args...)...)
			got := out
			if tc.where == "err" {
				got = stderr
				if errorLines(stderr) != 1 {
					t.Errorf("stderr is not one line:\n%s", stderr)
				}
			}
			if code != tc.code || !strings.Contains(got, tc.want) {
				t.Errorf("exit %d, want %d with %q:\nstdout %s\nstderr %s", code, tc.code, tc.want, out, stderr)
			}
			if after := redistest.Dump(t, c, "*"); !sameKeys(before, after) {
				t.Errorf("Redis changed:\n%v\n%v", before, after)
			}
		})
	}
}

func sameKeys(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestJobsDuplicate(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	defer c.Close()
	editState(t, c)
	out, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "jobs", "dead", "duplicate", "e1", "--yes")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	q, err := redis.Strings(c.Do("LRANGE", "work:jobs:mail", 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^\{"name":"mail","id":"[0-9a-f]{24}","t":[0-9]+,"args":\{"to":"a@b","big":12345678901234567890\}\}$`)
	if len(q) != 1 || !want.MatchString(q[0]) {
		t.Errorf("queue %q, want one copy with a new id and no failure fields", q)
	}
	if n, _ := redis.Int(c.Do("ZCARD", "work:dead")); n != 1 {
		t.Errorf("dead holds %d, want the original left in place", n)
	}
}
