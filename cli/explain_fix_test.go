package cli

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// TestExplainFixNamesExactlyWhatItExplains: names read from Redis that
// begin with '-' or hold a newline, a quote or a bidi control. Each fix
// explain prints is split into words by a real bash, as a paste would be:
// its operands come after "--" (a pool named --all-dead is a pool, not
// reap's flag), and run, the fix writes the very key explained and no
// other.
func TestExplainFixNamesExactlyWhatItExplains(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	addr := "--redis=" + srv.Addr()
	for _, job := range []string{"--all-dead", "a\nb", "it's", "x\u202ey", "-t"} {
		t.Run(job, func(t *testing.T) {
			srv.Do("SADD", k.KnownJobs(), job, "a", "b")
			srv.Do("SET", k.Paused(job), "1")
			srv.Do("SET", k.Paused("a"), "1")
			srv.Do("SET", k.Paused("b"), "1")
			out, errOut, code := runCLI(t, input{}, "explain", addr, "--read-only", "--", job)
			if code != ExitFindings {
				t.Fatalf("explain: exit %d, %s", code, errOut)
			}
			argv := fixArgv(t, out, "unpause")
			if strings.HasPrefix(job, "-") && !contains(argv, "--") {
				t.Fatalf("fix %q puts %q where a flag goes", argv, job)
			}
			if _, errOut, code := runCLI(t, input{}, append([]string{"--yes"}, argv[1:]...)...); code != ExitOK {
				t.Fatalf("the fix %q: exit %d, %s", argv, code, errOut)
			}
			if srv.Do("EXISTS", k.Paused(job)) != int64(0) {
				t.Errorf("the fix %q left %q paused", argv, job)
			}
			if srv.Do("EXISTS", k.Paused("a")) != int64(1) || srv.Do("EXISTS", k.Paused("b")) != int64(1) {
				t.Errorf("the fix %q unpaused another job", argv)
			}
		})
	}
	// A pool named like reap's flag: the fix reaps that pool, not all.
	srv.Do("SADD", k.WorkerPools(), "--all-dead")
	out, errOut, code := runCLI(t, input{}, "explain", addr, "--read-only", "--pool", "--", "--all-dead")
	if code != ExitFindings {
		t.Fatalf("explain --pool: exit %d, %s", code, errOut)
	}
	argv := fixArgv(t, out, "reap")
	if !contains(argv, "--") || argv[len(argv)-1] != "--all-dead" {
		t.Fatalf("reap fix %q", argv)
	}
}

// fixArgv is the argv bash makes of the first "fix:" line of out, which
// must run the command cmd.
func fixArgv(t *testing.T, out, cmd string) []string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		_, line, ok := strings.Cut(l, "fix: ")
		if !ok || !strings.Contains(line, " "+cmd+" ") {
			continue
		}
		words, err := exec.Command("bash", "-c", `printf '%s\0' `+line).Output()
		if err != nil {
			t.Fatalf("bash reading %q: %v", line, err)
		}
		return strings.Split(strings.TrimSuffix(string(words), "\x00"), "\x00")
	}
	t.Fatalf("no fix running %s in:\n%s", cmd, out)
	return nil
}
