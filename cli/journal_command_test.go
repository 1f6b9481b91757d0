package cli

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

// pastedArgv is the argv bash makes of the command between backquotes
// that re picks out of out: what a paste of it runs.
func pastedArgv(t *testing.T, out string, re *regexp.Regexp) []string {
	t.Helper()
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s in:\n%s", re, out)
	}
	words, err := exec.Command("bash", "-c", `printf '%s\0' `+m[1]).Output()
	if err != nil {
		t.Fatalf("bash reading %q: %v", m[1], err)
	}
	argv := strings.Split(strings.TrimSuffix(string(words), "\x00"), "\x00")
	if argv[0] != "workq-tui" {
		t.Fatalf("%q does not start with the program's name", m[1])
	}
	return argv[1:]
}

// The history command a write prints after it ran, pasted, shows that
// action: it carries the Redis, the namespace and the audit log in force
// (shell-quoted). So does the one an undo prints, and
// the one in a refusal.
func TestJournalCommandRunsWhenPasted(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	for i := 0; i < 3; i++ {
		redistest.Do(t, c, "ZADD", "shop:dead", 1700000000+i, `{"name":"mail","id":"d`+string(rune('0'+i))+`","t":1,"args":{}}`)
	}
	auditPath := filepath.Join(t.TempDir(), "my state", "audit.log")
	flags := []string{"--redis=" + srv.Addr(), "-n", "shop", "--audit-log", auditPath}
	env := input{}
	out, stderr, code := runCLI(t, env, append(flags, "jobs", "dead", "delete", "--all", "--yes")...)
	if code != 0 {
		t.Fatalf("delete: exit %d: %s\n%s", code, stderr, out)
	}
	shows := regexp.MustCompile("Journal: action (\\S+) \\(`([^`]*)` shows it\\)")
	m := shows.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("journal line:\n%s", out)
	}
	id := m[1]
	argv := pastedArgv(t, out, regexp.MustCompile("Journal: action \\S+ \\(`([^`]*)` shows it\\)"))
	got, stderr, code := runCLI(t, input{}, argv...)
	if code != 0 || !strings.Contains(got, "Action "+id+": jobs dead delete") {
		t.Fatalf("pasted %q: exit %d: %s\n%s", argv, code, stderr, got)
	}
	// The undo's own line, pasted, shows the undo.
	out, stderr, code = runCLI(t, env, append(flags, "undo", "--yes")...)
	if code != 0 {
		t.Fatalf("undo: exit %d: %s\n%s", code, stderr, out)
	}
	argv = pastedArgv(t, out, regexp.MustCompile("Journal: action \\S+ \\(`([^`]*)` shows it\\)"))
	if got, stderr, code := runCLI(t, input{}, argv...); code != 0 || !strings.Contains(got, "undo "+id) {
		t.Fatalf("pasted %q: exit %d: %s\n%s", argv, code, stderr, got)
	}
	// Undo without an ID now: the last action is undone; the commands the
	// refusal names run.
	_, stderr, _ = runCLI(t, input{}, append(flags, "undo", "--dry-run")...)
	argv = pastedArgv(t, stderr, regexp.MustCompile("`([^`]*undo [^`]*)` plans it again"))
	if got, stderr, code := runCLI(t, input{}, append(argv, "--dry-run")...); code != 0 || !strings.Contains(got, "Undo of action "+id) {
		t.Fatalf("pasted %q: exit %d: %s\n%s", argv, code, stderr, got)
	}
}
