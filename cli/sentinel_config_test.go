package cli

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
)

// sentinelTargets is a configuration file with target s (the master, through
// the sentinels, a sentinel that is down first) and target r (a replica,
// read-only); the Sentinel password comes from MON_PW.
func sentinelTargets(t *testing.T, set *redistest.SentinelSet) string {
	t.Helper()
	addrs := []string{strconv.Quote("127.0.0.1:" + strconv.Itoa(redistest.FreePort(t)))}
	for _, a := range set.Addrs() {
		addrs = append(addrs, strconv.Quote(a))
	}
	keys := "sentinel = [" + strings.Join(addrs, ", ") + "]\nsentinel_master = " + strconv.Quote(set.Name) +
		"\nsentinel_user = \"mon\"\nsentinel_password_env = \"MON_PW\"\n"
	return writeConfig(t, 0o600, "[targets.s]\n"+keys+"\n[targets.r]\n"+keys+"replica = true\nread_only = true\n")
}

// TestSentinelConfigTarget: snapshot -t NAME reads the master (or, for a
// replica target, the replica) the target's Sentinel keys name, with the
// Sentinel password from the target's sentinel_password_env; a flag given
// on the command line wins over the target's key.
func TestSentinelConfigTarget(t *testing.T) {
	t.Parallel()
	set := redistest.StartSentinel(t, redistest.SentinelOptions{User: "mon", Password: "sentinel-pw"})
	master, replica := dialServer(t, set.Master), dialServer(t, set.Replica)
	st := writeSentinelState(t, master)
	cfg := sentinelTargets(t, set)
	withPW := input{getenv: func(k string) string {
		if k == "MON_PW" {
			return "sentinel-pw"
		}
		return ""
	}}

	out, stderr, code := runCLI(t, withPW, "snapshot", "--json", "-t", "s", "--config", cfg)
	if code != ExitFindings {
		t.Fatalf("snapshot -t s: exit %d, want %d (a dead pool); stderr:\n%s", code, ExitFindings, stderr)
	}
	if got := poolStatuses(t, out); got[st.live] != "alive" || got[st.dead] != "dead" {
		t.Fatalf("snapshot -t s: pools %v", got)
	}

	// Without the variable the target names, nothing is asked.
	_, stderr, code = runCLI(t, input{}, "snapshot", "--json", "-t", "s", "--config", cfg)
	if code != ExitError || !strings.Contains(stderr, "target s: the sentinel password variable MON_PW is not set") || errorLines(stderr) != 1 {
		t.Fatalf("snapshot -t s without MON_PW: exit %d; stderr:\n%s", code, stderr)
	}

	// --sentinel-master on the command line wins over sentinel_master.
	_, stderr, code = runCLI(t, withPW, "snapshot", "--json", "-t", "s", "--config", cfg, "--sentinel-master", "other")
	if code == ExitFindings || code == 0 || !strings.Contains(stderr, "other") {
		t.Fatalf("snapshot -t s --sentinel-master other: exit %d; stderr:\n%s", code, stderr)
	}

	// The replica target reads the replica once replication caught up.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if n, _ := redis.Int(replica.Do("SCARD", redisq.NewKeys("work").WorkerPools())); n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica did not get the state in 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	redistest.Do(t, replica, "CONFIG", "RESETSTAT")
	out, stderr, code = runCLI(t, withPW, "snapshot", "--json", "-t", "r", "--config", cfg)
	if code != ExitFindings {
		t.Fatalf("snapshot -t r: exit %d; stderr:\n%s", code, stderr)
	}
	if got := poolStatuses(t, out); got[st.live] != "alive" || got[st.dead] != "dead" {
		t.Fatalf("snapshot -t r: pools %v", got)
	}
	if calls := redistest.CommandCalls(t, replica); calls["smembers"] == 0 {
		t.Fatalf("the replica got none of the snapshot's reads: %v", calls)
	}
}

// TestSentinelConfigRefusals: a target that gives both redis and sentinel,
// or a sentinel that is not host:port, is refused in one line with the file
// and line, before anything connects.
func TestSentinelConfigRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text, want string
	}{
		{"redis and sentinel", "[targets.s]\nredis = \"127.0.0.1:1\"\nsentinel = [\"127.0.0.1:2\"]\nsentinel_master = \"m\"\n",
			"config.toml:3: targets.s: give redis or sentinel, not both"},
		{"not host:port", "[targets.s]\nsentinel = [\"127.0.0.1\"]\nsentinel_master = \"m\"\n",
			`config.toml:2: targets.s.sentinel: "127.0.0.1": want host:port`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := writeConfig(t, 0o600, tc.text)
			out, stderr, code := runCLI(t, input{}, "snapshot", "-t", "s", "--config", cfg)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) || errorLines(stderr) != 1 || out != "" {
				t.Fatalf("exit %d, want %d with %q in one line; stdout %q; stderr:\n%s", code, ExitUsage, tc.want, out, stderr)
			}
		})
	}
}
