package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/exporter/exportertest"
	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
)

// exporterProcess is the built program running `exporter` on a free port.
type exporterProcess struct {
	cmd    *exec.Cmd
	base   string
	stderr *bytes.Buffer
	// done is closed when the process has ended.
	done chan struct{}
}

func startExporter(t *testing.T, args ...string) *exporterProcess {
	t.Helper()
	bin := redistest.Binary(t)
	addr := "127.0.0.1:" + strconv.Itoa(redistest.FreePort(t))
	p := &exporterProcess{base: "http://" + addr, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, append([]string{"exporter", "--listen", addr}, args...)...)
	p.cmd.Env = redistest.Env()
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.cmd.Wait() // the exit status is read from ProcessState
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(p.base + "/healthz")
		if err == nil {
			_ = resp.Body.Close()
			return p
		}
		select {
		case <-p.done:
			t.Fatalf("exporter ended before serving: %v\n%s", p.cmd.ProcessState, p.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("exporter does not answer /healthz: %v\n%s", err, p.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM and returns the exit status.
func (p *exporterProcess) stop(t *testing.T) int {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("exporter still running 10s after SIGTERM\n%s", p.stderr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// onlyReads fails when delta holds a command outside the read allow-list.
func onlyReads(t *testing.T, what string, delta map[string]int64) {
	t.Helper()
	var bad []string
	for cmd, n := range delta {
		if cmd != "info" && !redisq.IsReadCommand(cmd) {
			bad = append(bad, fmt.Sprintf("%s x%d", cmd, n))
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("%s: commands outside the read allow-list: %s", what, strings.Join(bad, ", "))
	}
}

func readSnap(t *testing.T, srv *redistest.Server, ns string) *model.Snapshot {
	t.Helper()
	snap, err := redisq.ReadSnapshot(context.Background(), srv.Dial(), ns, model.DefaultDeadAfter)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestExporterCommand(t *testing.T) {
	tt := startTwoTargets(t)
	ca, cb := tt.a.Dial(), tt.b.Dial()
	statsA, statsB := redistest.CommandCalls(t, ca), redistest.CommandCalls(t, cb)

	// Target a is not read-only in the file: the exporter is, all the same.
	p := startExporter(t, "--config", tt.config, "-t", "a", "-t", "b", "--min-interval", "1s", "--dead-after", "1m")
	resp, err := http.Get(p.base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %s", resp.Status)
	}
	got := exportertest.Scrape(t, p.base+"/metrics")
	for _, name := range []string{"a", "b"} {
		if v, ok := got[exportertest.Key("workq_up", "target", name, "namespace", map[string]string{"a": "alpha", "b": "beta"}[name])]; !ok || v != 1 {
			t.Errorf("workq_up of %s = %v (%v)", name, v, ok)
		}
	}
	// The scrape gives the numbers of a snapshot of the same state (both
	// pools, 600 s without a beat, are dead under either cut-off).
	snapA, snapB := readSnap(t, tt.a, "alpha"), readSnap(t, tt.b, "beta")
	for name, snap := range map[string]*model.Snapshot{"a": snapA, "b": snapB} {
		if d := exportertest.Diff(got.Target(name).Only(exportertest.SnapshotNames()...), exportertest.Want(name, snap), 2); d != "" {
			t.Errorf("target %s, scrape against the snapshot:\n%s", name, d)
		}
	}
	if code := p.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr)
	}
	if !strings.Contains(p.stderr.String(), "serving http://") || !strings.Contains(p.stderr.String(), "stopped") {
		t.Errorf("stderr: %q", p.stderr)
	}
	onlyReads(t, "target a", exportertest.Delta(statsA, redistest.CommandCalls(t, ca)))
	onlyReads(t, "target b", exportertest.Delta(statsB, redistest.CommandCalls(t, cb)))
}

func TestExporterFromFlags(t *testing.T) {
	srv := redistest.Start(t)
	seedDeadPool(t, srv, "work", poolA, "mail")
	p := startExporter(t, "--redis", srv.Addr())
	got := exportertest.Scrape(t, p.base+"/metrics")
	// One target, named after its address.
	if v, ok := got[exportertest.Key("workq_up", "target", srv.Addr(), "namespace", "work")]; !ok || v != 1 {
		t.Errorf("workq_up of %s = %v (%v):\n%v", srv.Addr(), v, ok, got)
	}
	if v := got[exportertest.Key("workq_pools", "target", srv.Addr(), "namespace", "work", "status", "dead")]; v != 1 {
		t.Errorf("dead pools = %v, want 1", v)
	}
	if code := p.stop(t); code != 0 {
		t.Errorf("exit %d after SIGTERM\n%s", code, p.stderr)
	}
}

func TestExporterRefusals(t *testing.T) {
	cfg := writeConfig(t, 0o600, "[targets.nopw]\nredis = \"127.0.0.1:1\"\npassword_env = \"NOPW_PASSWORD\"\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"operand", []string{"exporter", "x"}, ExitUsage, "no arguments"},
		{"min interval", []string{"exporter", "--min-interval", "0s"}, ExitUsage, "--min-interval must be positive"},
		{"max pools", []string{"exporter", "--max-pools", "0"}, ExitUsage, "--max-pools must be at least 1"},
		{"long after", []string{"exporter", "--long-after", "0s"}, ExitUsage, "--long-after must be positive"},
		{"bad listen address", []string{"exporter", "--listen", "nowhere"}, ExitError, "listen on nowhere"},
		{"a target without its password", []string{"exporter", "--config", cfg, "-t", "nopw"}, ExitError, "target nopw: the password variable NOPW_PASSWORD is not set"},
		{"unknown target", []string{"exporter", "--config", cfg, "-t", "x"}, ExitUsage, `target "x": no such target`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, input{}, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || errorLines(stderr) != 1 {
				t.Errorf("exit %d, %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}
