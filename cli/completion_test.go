package cli

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

const (
	compDeadPool = "deaddeaddeaddeaddeaddead"
	compLivePool = "11111111111111111111aaaa"
	compOrphan   = "0123456789abcdef01234567"
)

// completionRedis is a namespace with job types, a dead and a live pool,
// an orphaned list, dead jobs and a queue.
func completionRedis(t *testing.T) *redistest.Server {
	t.Helper()
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	now := redistest.Time(t, srv.Dial()).Unix()
	srv.Do("SADD", k.KnownJobs(), "mail", "ns:report", "bad name", "evil\x1b]0;x\x07")
	srv.Do("SADD", k.WorkerPools(), compDeadPool, compLivePool)
	srv.Do("HSET", k.Heartbeat(compDeadPool), "heartbeat_at", now-3600, "job_names", "mail", "host", "web-1", "pid", 42)
	// The live pool's beat is an hour ahead, so that it stays alive
	// through a long test without a pool beating.
	srv.Do("HSET", k.Heartbeat(compLivePool), "heartbeat_at", now+3600, "job_names", "mail", "host", "web-2", "pid", 43)
	srv.Do("RPUSH", k.InProgress("mail", compDeadPool), `{"name":"mail","id":"j1","t":1}`)
	srv.Do("RPUSH", k.InProgress("mail", compLivePool), `{"name":"mail","id":"j2","t":1}`)
	srv.Do("RPUSH", k.InProgress("mail", compOrphan), `{"name":"mail","id":"j3","t":1}`)
	srv.Do("ZADD", k.Dead(), 100, `{"name":"mail","id":"d1","t":1,"err":"boom"}`, 200, `{"name":"mail","id":"d2","t":1}`, 300, `{"name":"mail","id":"bad id","t":1}`)
	srv.Do("LPUSH", k.Queue("mail"), `{"name":"mail","id":"q1","t":1}`, `{"name":"mail","id":"q2","t":2}`)
	return srv
}

// completeValues runs a completion request in-process and returns the
// candidates' values and the directive line.
func completeValues(t *testing.T, in input, words ...string) ([]string, string) {
	t.Helper()
	out, stderr, code := runCLI(t, in, append([]string{completeRequest}, words...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("__complete %q: exit %d, stderr %q", words, code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, ":") {
		t.Fatalf("__complete %q: no directive line at the end: %q", words, out)
	}
	var vals []string
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		vals = append(vals, v)
	}
	return vals, last
}

func TestCompleteWords(t *testing.T) {
	srv := completionRedis(t)
	r := "--redis=" + srv.Addr()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("[targets.local]\nredis = \""+srv.Addr()+"\"\n[targets.prod-eu]\nredis = \"redis-eu:6379\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		words     []string
		want      []string
		directive string
	}{
		{"commands", []string{""}, []string{"snapshot", "explain", "timeline", "reap", "jobs", "find", "requeue", "repair-locks", "remove-leaked", "delete-unique", "pause", "unpause", "throttle", "history", "undo", "targets", "exporter", "version", "completion"}, ":"},
		{"command prefix", []string{"re"}, []string{"reap", "requeue", "repair-locks", "remove-leaked"}, ":"},
		{"flags of a command", []string{"reap", "--all"}, []string{"--all-dead"}, ":"},
		{"flags before the command", []string{"-n", "app", "snapshot", "--js"}, []string{"--json"}, ":"},
		{"unknown command", []string{"nosuch", ""}, nil, ":"},
		{"theme values", []string{"--theme", ""}, []string{"auto", "light", "dark"}, ":"},
		{"theme value in the flag's word", []string{"--theme=d"}, []string{"--theme=dark"}, ":"},
		{"file flag", []string{"snapshot", "--config", ""}, nil, ":files"},
		{"file flag in the flag's word", []string{"--tls-ca=/tm"}, nil, ":files"},
		{"target names", []string{"snapshot", "--config", cfg, "-t", ""}, []string{"local", "prod-eu"}, ":"},
		{"target names, flag after", []string{"--config=" + cfg, "reap", "--target", "pr"}, []string{"prod-eu"}, ":"},
		{"target names of a missing file", []string{"--config", filepath.Join(dir, "none.toml"), "-t", ""}, nil, ":"},
		{"shells", []string{"completion", ""}, []string{"bash", "zsh", "fish"}, ":"},
		{"job sets", []string{"jobs", ""}, []string{"retry", "scheduled", "dead", "queue"}, ":"},
		{"set actions", []string{"jobs", "dead", ""}, []string{"requeue", "delete", "edit", "duplicate"}, ":"},
		{"jobs dead edit: one id", []string{"jobs", r, "dead", "edit", ""}, []string{"d2", "d1"}, ":"},
		{"jobs dead edit ID: nothing more", []string{"jobs", r, "dead", "edit", "d2", ""}, nil, ":"},

		{"pause: job names, unsafe ones left out", []string{r, "pause", ""}, []string{"mail", "ns:report"}, ":"},
		{"pause: a name given is not offered again", []string{"pause", r, "mail", ""}, []string{"ns:report"}, ":"},
		{"pause: name with a colon", []string{"pause", r, "ns:"}, []string{"ns:report"}, ":"},
		{"unpause through a target", []string{"unpause", "--config", cfg, "-t", "local", ""}, []string{"mail", "ns:report"}, ":"},
		{"reap: dead pools only", []string{"reap", r, ""}, []string{compDeadPool}, ":"},
		{"requeue: lists of dead pools and orphans", []string{"requeue", r, ""}, []string{"work:jobs:mail:" + compDeadPool + ":inprogress", "work:jobs:mail:" + compOrphan + ":inprogress"}, ":"},
		{"jobs dead requeue: first page, newest first", []string{"jobs", r, "dead", "requeue", ""}, []string{"d2", "d1"}, ":"},
		{"jobs dead delete: an id given is not offered again", []string{"jobs", r, "dead", "delete", "d2", ""}, []string{"d1"}, ":"},
		{"jobs queue: job names", []string{"jobs", r, "queue", ""}, []string{"mail", "ns:report"}, ":"},
		{"jobs queue JOB: its actions", []string{"jobs", r, "queue", "mail", ""}, []string{"delete", "park"}, ":"},
		{"jobs queue JOB delete: ids in run order", []string{"jobs", r, "queue", "mail", "delete", ""}, []string{"q1", "q2"}, ":"},
		{"--job", []string{"jobs", "dead", r, "--job", "m"}, []string{"mail"}, ":"},
		{"--job=", []string{"jobs", "dead", r, "--job="}, []string{"--job=mail", "--job=ns:report"}, ":"},
		{"another namespace has no names", []string{"pause", r, "-n", "other", ""}, nil, ":"},
		{"--demo reads nothing", []string{"pause", "--demo", ""}, nil, ":"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, directive := completeValues(t, input{}, tc.words...)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") || directive != tc.directive {
				t.Errorf("__complete %q:\n got %q %s\nwant %q %s", tc.words, got, directive, tc.want, tc.directive)
			}
		})
	}
}

// TestCompleteWhere: a --where query's last term completes job:NAME.
func TestCompleteWhere(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"", "job:mail job:ns:report"},
		{"jo", "job:mail job:ns:report"},
		{"job:m", "job:mail"},
		{"err:x job:n", "err:x job:ns:report"},
		{"err:x", ""},
	} {
		got := whereJobTerms(tc.value, []candidate{{"mail", ""}, {"ns:report", ""}})
		got = keep(got, "", tc.value)
		var vals []string
		for _, c := range got {
			vals = append(vals, c.value)
		}
		if strings.Join(vals, " ") != tc.want {
			t.Errorf("--where %q: got %q, want %q", tc.value, vals, tc.want)
		}
	}
}

// TestHiddenRequestNotInHelp: the request is no command the help lists.
func TestHiddenRequestNotInHelp(t *testing.T) {
	out, _, code := runCLI(t, input{}, "--help")
	if code != 0 || strings.Contains(out, completeRequest) || !strings.Contains(out, "completion") {
		t.Errorf("help: exit %d, lists %s or lacks completion:\n%s", code, completeRequest, out)
	}
	vals, _ := completeValues(t, input{}, "__")
	if len(vals) != 0 {
		t.Errorf("the request completes itself: %q", vals)
	}
}

// TestCompleteWithRedisDown: a closed port, a listener that never answers
// and a wrong password complete nothing, print nothing else and exit 0,
// within the budget (the bound here is generous: it catches a completion
// that waits on Redis, not a slow machine).
func TestCompleteWithRedisDown(t *testing.T) {
	closed := net.JoinHostPort("127.0.0.1", strconv.Itoa(redistest.FreePort(t)))
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Never accepted: the kernel completes the connection, nothing
	// ever answers on it.
	defer silent.Close()
	locked := redistest.Start(t, "--requirepass", "right-password")
	const secret = "wrong-secret-password"
	for _, tc := range []struct{ name, addr string }{
		{"closed port", closed},
		{"silent listener", silent.Addr().String()},
		{"wrong password", locked.Addr()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, words := range [][]string{
				{"pause", "--redis", tc.addr, ""},
				{"reap", "--redis", tc.addr, ""},
				{"requeue", "--redis", tc.addr, "--timeout", "30s", ""},
				{"jobs", "--redis", tc.addr, "dead", "delete", ""},
			} {
				start := time.Now()
				out, stderr, code := runCLI(t, input{getenv: func(k string) string {
					if k == "REDIS_PASSWORD" {
						return secret
					}
					return ""
				}}, append([]string{completeRequest}, words...)...)
				took := time.Since(start)
				if out != ":\n" || stderr != "" || code != 0 {
					t.Errorf("%q: exit %d, stdout %q, stderr %q; want only the directive", words, code, out, stderr)
				}
				if strings.Contains(out+stderr, secret) {
					t.Errorf("%q: the password is in the output", words)
				}
				if took > 5*completeBudget {
					t.Errorf("%q took %v, more than 5 times the budget %v", words, took, completeBudget)
				}
				t.Logf("%q: %v (budget %v)", words, took.Round(time.Millisecond), completeBudget)
			}
		})
	}
}

// TestShellSafe: what may be offered as a word from Redis.
func TestShellSafe(t *testing.T) {
	for s, want := range map[string]bool{
		"mail": true, "ns:report": true, "work:jobs:a:b:inprogress": true, "dé": true, "a@1": true,
		"": false, "a b": false, "a\x1b[2J": false, "$(rm -rf x)": false, "a;b": false, "`x`": false,
		"'q'": false, "*": false, "a\nb": false, "~root": false, "a\u202eb": false, "=ls": false, "a^b": false,
		"x=y": true,
	} {
		if got := shellSafe(s); got != want {
			t.Errorf("shellSafe(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCompletionScripts: each shell's script, and a usage error for
// another.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "complete -F _workq_tui workq-tui", "zsh": "compdef _workq_tui workq-tui", "fish": "complete -c workq-tui"} {
		out, _, code := runCLI(t, input{}, "completion", shell)
		if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, completeRequest) {
			t.Errorf("completion %s: exit %d, want %q and %s in:\n%s", shell, code, want, completeRequest, out)
		}
	}
	_, stderr, code := runCLI(t, input{}, "completion", "tcsh")
	if code != ExitUsage || errorLines(stderr) != 1 || !strings.Contains(stderr, `unknown shell "tcsh"`) {
		t.Errorf("completion tcsh: exit %d, stderr %q", code, stderr)
	}
}

// TestCompletionOnlyReads: every command the live completions send is one
// the read-only guard lets through (Redis's own command counts say which
// were sent).
func TestCompletionOnlyReads(t *testing.T) {
	srv := completionRedis(t)
	r := "--redis=" + srv.Addr()
	srv.Do("CONFIG", "RESETSTAT")
	for _, words := range [][]string{
		{"pause", r, ""}, {"reap", r, ""}, {"requeue", r, ""}, {"jobs", r, "dead", "delete", ""},
		{"jobs", r, "queue", "mail", "delete", ""}, {"jobs", r, "retry", "--job", ""},
	} {
		if vals, _ := completeValues(t, input{}, words...); len(vals) == 0 && words[0] != "jobs" {
			t.Errorf("%q completed nothing", words)
		}
	}
	stats, err := redis.String(srv.Dial().Do("INFO", "commandstats"))
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	for _, line := range strings.Split(stats, "\n") {
		name, _, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":")
		if !ok || !strings.HasPrefix(line, "cmdstat_") {
			continue
		}
		name = strings.ToUpper(strings.SplitN(name, "|", 2)[0])
		if name == "CONFIG" || name == "INFO" { // the test's own
			continue
		}
		sent++
		if !redisq.IsReadCommand(name) {
			t.Errorf("completion sent %s, which the read-only guard refuses", name)
		}
	}
	if sent == 0 {
		t.Errorf("no command counted: %s", stats)
	}
}

// TestCompleteActionIDs: undo and history complete the IDs of the
// journal's actions on the command line's Redis, newest first; undo leaves
// out what is undone and the undos themselves. Nothing is asked of Redis.
func TestCompleteActionIDs(t *testing.T) {
	srv := completionRedis(t)
	r := "--redis=" + srv.Addr()
	log := "--audit-log=" + filepath.Join(t.TempDir(), "audit.log")
	for _, args := range [][]string{{"pause", r, log, "mail", "--yes"}, {"unpause", r, log, "mail", "--yes"}} {
		if _, stderr, code := runCLI(t, input{}, args...); code != ExitOK {
			t.Fatalf("%v: exit %d, %q", args, code, stderr)
		}
	}
	history, _ := completeValues(t, input{}, "history", r, log, "")
	if len(history) != 2 {
		t.Fatalf("history completes %q, want the two actions", history)
	}
	pauseID, unpauseID := history[1], history[0]
	if got, _ := completeValues(t, input{}, "undo", r, log, ""); strings.Join(got, " ") != unpauseID+" "+pauseID {
		t.Fatalf("undo completes %q, want %q then %q", got, unpauseID, pauseID)
	}
	if _, stderr, code := runCLI(t, input{}, "undo", r, log, unpauseID, "--yes"); code != ExitOK {
		t.Fatalf("undo: exit %d, %q", code, stderr)
	}
	if got, _ := completeValues(t, input{}, "undo", r, log, ""); strings.Join(got, " ") != pauseID {
		t.Errorf("after the undo, undo completes %q, want %q alone", got, pauseID)
	}
	if got, _ := completeValues(t, input{}, "history", r, log, ""); len(got) != 3 {
		t.Errorf("history completes %q, want three actions", got)
	}
	if got, _ := completeValues(t, input{}, "undo", "--redis=127.0.0.1:1", log, ""); len(got) != 0 {
		t.Errorf("another Redis's undo completes %q", got)
	}
}
