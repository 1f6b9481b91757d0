package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// printedPassword is the Redis password of TestPrintedCommandsPaste: it
// reaches the program only through REDIS_PASSWORD and must never be printed.
const printedPassword = "pw-Never-Printed-7"

// printedNamespace writes, in namespace ns, what makes the program print
// commands for a person to run: a live pool, a dead pool holding email and
// resize jobs, drift on charge, an orphaned in-progress list of sms, a
// paused type with a queued job, dead jobs with a recent error and a unique
// key left behind, on a server whose password is printedPassword. It returns the dead pool's id and a job id it holds.
func printedNamespace(t *testing.T, srv *redistest.Server, ns string) (pool, job string) {
	t.Helper()
	c := srv.Dial()
	defer c.Close()
	redistest.Do(t, c, "AUTH", printedPassword)
	k := redisq.NewKeys(ns)
	now := redistest.Time(t, c).Unix()
	const live, dead, orphan = "live0live0live0live0liv1", "dead0dead0dead0dead0dea1", "0rphan0rphan0rphan0rphan"
	redistest.Do(t, c, "SADD", k.KnownJobs(), "email", "resize", "report", "notify", "charge", "sms")
	redistest.Do(t, c, "SADD", k.WorkerPools(), live, dead)
	redistest.Do(t, c, "HSET", k.Heartbeat(live), "heartbeat_at", now, "started_at", now-100, "host", "web-1", "pid", 1,
		"concurrency", 2, "job_names", "charge,email,notify,report,resize,sms", "worker_ids", "w1,w2")
	redistest.Do(t, c, "HSET", k.Heartbeat(dead), "heartbeat_at", now-3600, "started_at", now-7200, "host", "web-0", "pid", 2,
		"concurrency", 1, "job_names", "email,resize", "worker_ids", "w9")
	for i, j := range []string{"email", "email", "resize"} {
		redistest.Do(t, c, "LPUSH", k.InProgress(j, dead), fmt.Sprintf(`{"name":%q,"id":"ip%d","t":%d,"args":{}}`, j, i, now-4000))
		redistest.Do(t, c, "INCR", k.Lock(j))
		redistest.Do(t, c, "HINCRBY", k.LockInfo(j), dead, 1)
	}
	redistest.Do(t, c, "SET", k.MaxConcurrency("resize"), 1)
	redistest.Do(t, c, "LPUSH", k.Queue("resize"), fmt.Sprintf(`{"name":"resize","id":"q1","t":%d,"args":{}}`, now-30))
	// charge: a lock no in-progress job backs.
	redistest.Do(t, c, "SET", k.Lock("charge"), 3)
	redistest.Do(t, c, "SET", k.MaxConcurrency("charge"), 3)
	redistest.Do(t, c, "LPUSH", k.Queue("charge"), fmt.Sprintf(`{"name":"charge","id":"q2","t":%d,"args":{}}`, now-30))
	redistest.Do(t, c, "RPUSH", k.InProgress("sms", orphan), fmt.Sprintf(`{"name":"sms","id":"o1","t":%d,"args":{}}`, now-500))
	redistest.Do(t, c, "SET", k.Paused("report"), "1")
	redistest.Do(t, c, "LPUSH", k.Queue("report"), fmt.Sprintf(`{"name":"report","id":"r1","t":%d,"args":{}}`, now-60))
	for i := range 3 {
		at := now - 120 - int64(i)
		redistest.Do(t, c, "ZADD", k.Dead(), at, fmt.Sprintf(`{"name":"email","id":"dead%d","t":%d,"args":{},"fails":25,"err":"smtp: 550 mailbox 'x' full","failed_at":%d}`, i, at-100, at))
	}
	redistest.Do(t, c, "SET", k.Prefix()+`unique:notify:{"user":1}`, "1", "EX", 3600)
	return dead, "ip0"
}

// commandStart finds a command the program printed for pasting.
var commandStart = regexp.MustCompile("(^|[\\s`(:])workq-tui ")

// printedCommands is every command line out holds: from "workq-tui " to the
// closing backtick when a backtick opens it, else to the end of the line,
// lines ending in a backslash joined with the next.
func printedCommands(out string) []string {
	var cmds []string
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " ")
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		for {
			loc := commandStart.FindStringIndex(l)
			if loc == nil {
				break
			}
			from := loc[1] - len("workq-tui ")
			rest := l[from:]
			if from > 0 && l[from-1] == '`' {
				if end := strings.IndexByte(rest, '`'); end >= 0 {
					cmds = append(cmds, rest[:end])
					l = rest[end+1:]
					continue
				}
			}
			cmds = append(cmds, rest)
			break
		}
	}
	return cmds
}

// redirect is an output redirection ending a printed command line.
var redirect = regexp.MustCompile(`\s+>\s*[\w./-]+$`)

// shellWords is the argv bash makes of line, an output redirection at its
// end left out.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	words, err := exec.Command("bash", "-c", `printf '%s\0' `+redirect.ReplaceAllString(line, "")).Output()
	if err != nil {
		t.Fatalf("bash cannot read %q as words: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(words), "\x00"), "\x00")
}

// flagValue is the value of the long flag name (or its short form) in argv:
// "--name V", "--name=V", "-s V".
func flagValue(argv []string, long, short string) (string, bool) {
	for i, w := range argv {
		switch {
		case (w == "--"+long || (short != "" && w == "-"+short)) && i+1 < len(argv):
			return argv[i+1], true
		case strings.HasPrefix(w, "--"+long+"="):
			return strings.TrimPrefix(w, "--"+long+"="), true
		case w == "--":
			return "", false
		}
	}
	return "", false
}

// noTarget are the commands that need no Redis and no namespace.
var noTarget = map[string]bool{"version": true, "completion": true, "targets": true}

// TestPrintedCommandsPaste holds the rule that every command the program
// prints for a person to run names the program, the Redis and namespace in
// force and no password, and runs when pasted into a shell: it runs the
// commands that print fixes, notes and journal lines against a namespace
// that needs them all, then pastes every command printed into bash.
func TestPrintedCommandsPaste(t *testing.T) {
	// shop is not the default namespace, so a command that leaves out -n
	// is caught; the second needs quoting.
	for _, ns := range []string{"shop", "shop floor's $HOME"} {
		t.Run(ns, func(t *testing.T) { printedCommandsPaste(t, ns) })
	}
}

func printedCommandsPaste(t *testing.T, ns string) {
	bin := redistest.Binary(t)
	srv := redistest.Start(t, "--requirepass", printedPassword)
	pool, job := printedNamespace(t, srv, ns)

	path, dir := t.TempDir(), t.TempDir()
	if err := os.Symlink(bin, filepath.Join(path, "workq-tui")); err != nil {
		t.Fatal(err)
	}
	env := append(redistest.Env(), "REDIS_PASSWORD="+printedPassword, "NO_COLOR=1",
		"XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "PATH="+path+":"+os.Getenv("PATH"))
	run := func(name string, args ...string) (string, int) {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		cmd.Dir = dir   // where a pasted command's redirection writes
		cmd.Stdin = nil // closed: a write without --yes is refused
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s %q: %v", name, args, err)
		}
		return string(out), 0
	}

	conn := []string{"--redis", srv.Addr(), "-n", ns}
	argsFile := filepath.Join(dir, "args.json")
	if err := os.WriteFile(argsFile, []byte(`{"to":"x@example.com"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	commands := [][]string{
		{"snapshot"},
		{"explain", "email"}, {"explain", "resize"}, {"explain", "report"}, {"explain", "notify"},
		{"explain", "charge"}, {"explain", "sms"}, {"explain", "emial"},
		{"explain", "--pool", pool},
		{"timeline"},
		{"jobs", "dead"},
		{"find", job},
		{"find", "dead1"},
		{"pause", "--yes", "sms"},
		{"history"},
		{"undo", "--dry-run"},
		{"jobs", "dead", "requeue", "--all", "--dry-run"},
		{"reap", "--dry-run", pool},
		{"repair-locks", "--dry-run", "charge"},
		{"remove-leaked", "--dry-run"},
		{"jobs", "dead", "delete", "--all", "--dry-run"},
		{"find", "o1"},
		{"undo", "--yes"},
		{"jobs", "dead", "edit", "dead2", "--yes", "--args", argsFile},
		{"jobs", "dead", "duplicate", "dead1", "--yes"},
		{"history"},
	}
	var printed []string
	for _, args := range commands {
		out, code := run(bin, append(append([]string(nil), conn...), args...)...)
		if code == ExitUsage {
			t.Errorf("workq-tui %s: exit %d (usage):\n%s", strings.Join(args, " "), code, out)
		}
		if strings.Contains(out, printedPassword) {
			t.Errorf("workq-tui %s prints the password:\n%s", strings.Join(args, " "), out)
		}
		t.Logf("workq-tui %s: exit %d\n%s", strings.Join(args, " "), code, out)
		for _, c := range printedCommands(out) {
			printed = append(printed, c)
			t.Logf("%s: %s", args[0], c)
		}
	}
	if len(printed) < 10 {
		t.Fatalf("only %d commands printed: the namespace no longer makes the program print its fixes, notes and journal lines", len(printed))
	}

	seen := map[string]bool{}
	for _, line := range printed {
		if seen[line] {
			continue
		}
		seen[line] = true
		argv := shellWords(t, line)
		if argv[0] != "workq-tui" {
			t.Errorf("%q: runs %q, not workq-tui", line, argv[0])
			continue
		}
		if len(argv) > 1 && noTarget[argv[1]] {
			continue
		}
		if addr, ok := flagValue(argv, "redis", ""); !ok || addr != srv.Addr() {
			t.Errorf("%q: --redis %q, want %q", line, addr, srv.Addr())
		}
		if n, ok := flagValue(argv, "namespace", "n"); !ok || n != ns {
			t.Errorf("%q: namespace %q, want %q", line, n, ns)
		}
		out, code := run("bash", "-c", line)
		t.Logf("pasted %q: exit %d\n%s", line, code, out)
		// A write's plan (an undo's names the action) then the refusal.
		refused := code == ExitError && strings.Contains(out, "stdin is not a terminal: run again with --yes") &&
			(strings.Contains(strings.ToLower(out), strings.ToLower("plan for namespace "+ns)) || strings.HasPrefix(out, "Undo of action "))
		switch {
		case strings.Contains(out, "no gocraft/work keys"), strings.Contains(out, "connection refused"),
			strings.Contains(out, "NOAUTH"):
			t.Errorf("pasted %q does not reach the namespace (exit %d):\n%s", line, code, out)
		case code != ExitOK && code != ExitFindings && !refused:
			t.Errorf("pasted %q: exit %d, want 0, 3 or a write's plan refused for want of a terminal:\n%s", line, code, out)
		}
		if strings.Contains(out, printedPassword) {
			t.Errorf("pasted %q prints the password:\n%s", line, out)
		}
	}
}
