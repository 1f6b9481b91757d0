package reliability_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

const badNS = "bad"

// nasty is text with terminal escapes and controls of every kind, one
// kind per item, and all of them with a NUL.
func nasty() []string {
	out := []string{nulText()}
	for _, k := range badKinds {
		out = append(out, k.text)
	}
	return out
}

// writeBadData writes a namespace with bad data of every kind (values that
// are not numbers, wrong key types, huge and non-JSON jobs, control text)
// and returns how many bad inputs it holds.
func writeBadData(t testing.TB, c redis.Conn, bigList, manyNames int) int {
	t.Helper()
	p := prefix(badNS)
	now := redistest.Time(t, c).Unix()
	n := 0
	hb := func(id string, fields ...any) {
		redistest.Do(t, c, "SADD", p+"worker_pools", id)
		redistest.Do(t, c, "HSET", append([]any{p + "worker_pools:" + id}, fields...)...)
		n++
	}
	// Heartbeat fields that are not numbers.
	hb("nonnumeric00000000000000", "heartbeat_at", "soon", "started_at", "yesterday", "pid", "abc", "concurrency", "-", "job_names", "email", "host", "h")
	hb("floatbeat000000000000000", "heartbeat_at", "1.5e9", "job_names", "email", "host", "h")
	hb("hugebeat0000000000000000", "heartbeat_at", "9223372036854775807", "job_names", "email", "host", "h")
	// Empty job_names, and no heartbeat_at at all.
	hb("emptyjobs000000000000000", "heartbeat_at", now-600, "job_names", "", "host", "h")
	hb("noheartbeatat00000000000", "job_names", "email", "host", "h")
	// Control characters in host, job names, worker IDs and the pool ID.
	for i, s := range nasty() {
		hb(fmt.Sprintf("ansi%02d%s", i, s), "heartbeat_at", now-600, "started_at", now-9000, "host", s, "pid", 1,
			"concurrency", 1, "job_names", "ansi"+s+",email", "worker_ids", s)
		redistest.Do(t, c, "SADD", p+"known_jobs", "ansi"+s)
		redistest.Do(t, c, "LPUSH", p+"jobs:ansi"+s, fmt.Sprintf(`{"name":%q,"id":%q,"t":%d,"args":{"k":%q}}`, s, s, now-5, s))
		n++
	}
	// A heartbeat that is not a hash.
	redistest.Do(t, c, "SADD", p+"worker_pools", "stringbeat00000000000000")
	redistest.Do(t, c, "SET", p+"worker_pools:stringbeat00000000000000", "oops")
	n++
	// A dead pool holding bad jobs: not JSON, a 1 MB job, args with escapes
	// (JSON-escaped and raw).
	dead := "deadbad00000000000000000"
	hb(dead, "heartbeat_at", now-600, "started_at", now-9000, "job_names", "email", "host", "h", "pid", 1, "concurrency", 5)
	ip := p + "jobs:email:" + dead + ":inprogress"
	big := fmt.Sprintf(`{"name":"email","id":"big","t":%d,"args":{"blob":"%s"}}`, now-60, strings.Repeat("x", 1<<20))
	redistest.Do(t, c, "LPUSH", ip, "not json at all \x1b[31m", big,
		fmt.Sprintf(`{"name":"email","id":"esc","t":%d,"args":{"to":"\u001b]0;pwned\u0007","bidi":"\u202e","c1":"\u009b"}}`, now-60),
		"{\"name\":\"email\",\"id\":\"raw\x1b[2J\",\"t\":1,\"args\":{\"x\":\"\x1b[31m\"}}",
		`{"name":"email","id":"notime","t":"yesterday","args":[1,2,3]}`,
	)
	redistest.Do(t, c, "SET", p+"jobs:email:lock", 5)
	redistest.Do(t, c, "HSET", p+"jobs:email:lock_info", dead, 5)
	n += 5
	// Queues: a non-JSON oldest job, a 1 MB oldest job, a 100,000-job list.
	redistest.Do(t, c, "RPUSH", p+"jobs:email", "\x1b[5mnot json")
	redistest.Do(t, c, "SADD", p+"known_jobs", "bigjob", "biglist")
	redistest.Do(t, c, "RPUSH", p+"jobs:bigjob", big)
	items := make([]string, bigList)
	for i := range items {
		items[i] = fmt.Sprintf(`{"name":"biglist","id":"b%d","t":%d,"args":{}}`, i, now-int64(i))
	}
	pushAll(t, c, p+"jobs:biglist", items)
	n += 3
	// Keys of the wrong type: a lock that is a hash, a queue that is a
	// string, lock_info that is a string, max_concurrency that is a list.
	redistest.Do(t, c, "SADD", p+"known_jobs", "hashlock", "stringqueue", "strinfo", "listmax")
	redistest.Do(t, c, "HSET", p+"jobs:hashlock:lock", "a", "b")
	redistest.Do(t, c, "SET", p+"jobs:stringqueue", "not a list")
	redistest.Do(t, c, "SET", p+"jobs:strinfo:lock_info", "x")
	redistest.Do(t, c, "RPUSH", p+"jobs:listmax:max_concurrency", "1")
	redistest.Do(t, c, "SET", p+"jobs:email:max_concurrency", "many")
	n += 5
	// Many job names.
	args := []any{p + "known_jobs"}
	for i := 0; i < manyNames; i++ {
		args = append(args, fmt.Sprintf("name%05d", i))
	}
	redistest.Do(t, c, "SADD", args...)
	n++
	return n
}

// TestBadDataSnapshot: the built binary reads a namespace full of bad data
// without crashing, warns, exits 3 (there are dead pools), prints no raw
// control character in the table, and valid JSON with --json.
func TestBadDataSnapshot(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	inputs := writeBadData(t, c, 100000, 10000)
	before := redistest.Dump(t, c, prefix(badNS)+"worker_pools*")

	redistest.Binary(t)
	start := time.Now()
	r := runCLI(t, nil, "--redis="+srv.Addr(), "--namespace="+badNS, "snapshot")
	t.Logf("snapshot of the bad namespace took %s", time.Since(start))
	if r.Code != 3 {
		t.Fatalf("snapshot: exit %d\n%s", r.Code, r.Stderr)
	}
	if leak, ok := rawControl(r.Stdout + r.Stderr); ok {
		t.Errorf("snapshot table: %s", leak)
	}
	for _, want := range []string{"warning", "heartbeat_at", "not a whole number", "WRONGTYPE", `\x1b[31m\x1b[2J`, "deadbad"} {
		if !strings.Contains(r.Stdout+r.Stderr, want) {
			t.Errorf("snapshot table lacks %q", want)
		}
	}
	r = runCLI(t, nil, "--redis="+srv.Addr(), "--namespace="+badNS, "snapshot", "--json")
	if r.Code != 3 {
		t.Fatalf("snapshot --json: exit %d\n%s", r.Code, r.Stderr)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
		t.Fatalf("snapshot --json is not JSON: %v", err)
	}
	if strings.ContainsRune(r.Stdout, 0x1b) {
		t.Errorf("raw ESC in --json output")
	}
	if after := redistest.Dump(t, c, prefix(badNS)+"worker_pools*"); !reflect.DeepEqual(before, after) {
		t.Errorf("snapshot changed Redis")
	}
	t.Logf("bad inputs in the namespace: %d (plus a 100,000-job list and 10,000 job names)", inputs)
}

// recorder wraps the screen and keeps every frame it renders.
type recorder struct {
	inner  tea.Model
	mu     *sync.Mutex
	frames *[]string
}

func (r recorder) Init() tea.Cmd { return r.inner.Init() }
func (r recorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := r.inner.Update(msg)
	return recorder{m, r.mu, r.frames}, cmd
}
func (r recorder) View() string {
	v := r.inner.View()
	r.mu.Lock()
	*r.frames = append(*r.frames, v)
	r.mu.Unlock()
	return v
}

// TestBadDataScreen runs the screen in-process on the real source with an
// Ascii renderer over the same bad namespace, to which writeEveryKind adds
// every kind of control text in every field, opens the detail of every pool
// (peeking its in-progress jobs: not JSON, 1 MB, escapes), the job types
// view and the help, and checks every frame it rendered with rawControl:
// with an Ascii renderer no ESC at all.
func TestBadDataScreen(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 110,000 bad members: left out of go test -short, run by make test")
	}
	srv := redistest.Start(t)
	c := srv.Dial()
	writeBadData(t, c, 100000, 10000)
	writeEveryKind(t, c, badNS)
	d, err := redisq.NewDialer(redisq.Options{Address: srv.Addr(), ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	client := redisq.NewDialerClient(d, badNS, 0)
	defer client.Close()
	o := tui.Options{Address: d.Endpoint().String(), Namespace: badNS, ReadOnly: true, Interval: 500 * time.Millisecond,
		Renderer: asciiRenderer(), Reads: tui.Reads{Poll: redisq.NewPoller(client), Peek: redisq.RawPeeker{Client: client}}}

	var mu sync.Mutex
	var frames []string
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p := tea.NewProgram(recorder{tui.New(o), &mu, &frames}, tea.WithInput(nil), tea.WithOutput(io.Discard),
		tea.WithContext(ctx), tea.WithoutSignalHandler())
	pools := int(redistest.Do(t, c, "SCARD", prefix(badNS)+"worker_pools").(int64))
	// waitFrame waits until the last frame satisfies cond (or 10 s pass:
	// the checks below then say what was never shown).
	waitFrame := func(cond func(string) bool) {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			ok := len(frames) > 0 && cond(frames[len(frames)-1])
			mu.Unlock()
			if ok {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	go func() {
		p.Send(tea.WindowSizeMsg{Width: 140, Height: 45})
		waitFrame(func(f string) bool { return strings.Contains(f, "deadbad") }) // the first snapshot
		for i := 0; i < pools; i++ {
			p.Send(teaKey("Enter"))
			waitFrame(func(f string) bool {
				return strings.Contains(f, "in-progress jobs: showing") || strings.Contains(f, "could not read")
			})
			p.Send(teaKey("G")) // scroll to the end of the detail
			time.Sleep(20 * time.Millisecond)
			p.Send(teaKey("Escape"))
			p.Send(teaKey("Down"))
		}
		for _, k := range []string{"Tab", "G", "g", "Down", "Down", "?", "?", "BTab", "/", "a", "n", "s", "i", "Enter", "Escape"} {
			p.Send(teaKey(k))
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		p.Quit()
	}()
	if _, err := p.Run(); err != nil {
		t.Fatalf("screen: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	var sawDetail, sawBig, sawWarn bool
	for _, f := range frames {
		if leak, ok := rawControl(f); ok {
			t.Fatalf("frame shows %s; frame:\n%s", leak, f)
		}
		sawDetail = sawDetail || strings.Contains(f, "in-progress jobs: showing")
		sawBig = sawBig || strings.Contains(f, "xxxxxxxxxxxxxxxxxxxx")
		sawWarn = sawWarn || strings.Contains(f, "warning")
	}
	if !sawDetail || !sawBig || !sawWarn {
		t.Errorf("the screen never showed detail %v, the 1 MB job %v, a warning %v (frames: %d)", sawDetail, sawBig, sawWarn, len(frames))
	}
	t.Logf("%d frames rendered over %d pools' details, the job types and help: no raw control character", len(frames), pools)
}

// TestWrongTypesRefusedUntouched: reap, requeue and repair-locks on keys of
// the wrong type exit with a one-line error (or do nothing) and leave Redis
// exactly as it was.
func TestWrongTypesRefusedUntouched(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	const pool = "deadpool0000000000000000"
	p := prefix(badNS)
	ip := p + "jobs:email:" + pool + ":inprogress"
	base := func() {
		redistest.Do(t, c, "FLUSHALL")
		now := redistest.Time(t, c).Unix()
		writeHeartbeat(t, c, badNS, pool, now-600, "h", "email")
		redistest.Do(t, c, "RPUSH", ip, jobJSON("email", "a", now-700, "{}"), jobJSON("email", "b", now-700, "{}"))
		redistest.Do(t, c, "SET", p+"jobs:email:lock", 2)
		redistest.Do(t, c, "HSET", p+"jobs:email:lock_info", pool, 2)
	}
	reap := []string{"reap", pool, "--yes"}
	reapAll := []string{"reap", "--all-dead", "--yes"}
	requeue := []string{"requeue", ip, "--yes"}
	repair := []string{"repair-locks", "email", "--yes"}
	cases := []struct {
		name   string
		break_ func()
		cmds   [][]string
	}{
		{"lock is a hash", func() {
			redistest.Do(t, c, "DEL", p+"jobs:email:lock")
			redistest.Do(t, c, "HSET", p+"jobs:email:lock", "x", 1)
		}, [][]string{reap, reapAll, requeue, repair}},
		// (repair-locks is left out here: resetting a garbage lock is its job.)
		{"lock is not a number", func() { redistest.Do(t, c, "SET", p+"jobs:email:lock", "two") }, [][]string{reap, requeue}},
		{"lock_info is a string", func() {
			redistest.Do(t, c, "DEL", p+"jobs:email:lock_info")
			redistest.Do(t, c, "SET", p+"jobs:email:lock_info", "x")
		}, [][]string{reap, requeue, repair}},
		{"lock_info field not a number", func() { redistest.Do(t, c, "HSET", p+"jobs:email:lock_info", pool, "two") }, [][]string{reap, requeue}},
		{"queue is a string", func() { redistest.Do(t, c, "SET", p+"jobs:email", "not a list") }, [][]string{reap, reapAll, requeue}},
		{"queue is a hash", func() { redistest.Do(t, c, "HSET", p+"jobs:email", "a", "b") }, [][]string{reap, requeue}},
		{"in-progress list is a string", func() { redistest.Do(t, c, "DEL", ip); redistest.Do(t, c, "SET", ip, "x") }, [][]string{reap, requeue, repair}},
		{"worker_pools is a string", func() { redistest.Do(t, c, "DEL", p+"worker_pools"); redistest.Do(t, c, "SET", p+"worker_pools", "x") }, [][]string{reap, reapAll, requeue, repair}},
		{"heartbeat is a string", func() {
			redistest.Do(t, c, "DEL", p+"worker_pools:"+pool)
			redistest.Do(t, c, "SET", p+"worker_pools:"+pool, "x")
		}, [][]string{reap, reapAll, requeue}},
	}
	tried := 0
	for _, tc := range cases {
		for _, args := range tc.cmds {
			base()
			tc.break_()
			before := redistest.Dump(t, c, "*")
			r := runCLI(t, nil, append([]string{"--redis=" + srv.Addr(), "--namespace=" + badNS}, args...)...)
			tried++
			after := redistest.Dump(t, c, "*")
			if !reflect.DeepEqual(before, after) {
				t.Errorf("%s, %v: Redis changed (exit %d)\n%s%s", tc.name, args, r.Code, r.Stdout, r.Stderr)
			}
			if leak, ok := rawControl(r.Stdout + r.Stderr); ok {
				t.Errorf("%s, %v: %s", tc.name, args, leak)
			}
			switch {
			case r.Code == 0 && strings.Contains(r.Stdout, "No dead pool"):
				// --all-dead finds no dead pool it can read: nothing done.
			case r.Code == 0:
				t.Errorf("%s, %v: exit 0 after doing nothing?\n%s%s", tc.name, args, r.Stdout, r.Stderr)
			case r.Code == 1:
				oneLine(t, fmt.Sprint(tc.name, args), r.Stderr)
			default:
				t.Errorf("%s, %v: exit %d\n%s", tc.name, args, r.Code, r.Stderr)
			}
			t.Logf("%s, %v: exit %d: %s", tc.name, args, r.Code, strings.TrimSpace(r.Stderr))
		}
	}
	t.Logf("wrong-typed keys: %d command runs, Redis untouched by each", tried)
}

// listJobs counts the items of every list in the namespace.
func listJobs(t testing.TB, c redis.Conn) int64 {
	t.Helper()
	keys, err := redis.Strings(c.Do("KEYS", prefix(badNS)+"*"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, k := range keys {
		if typ, _ := redis.String(c.Do("TYPE", k)); typ == "list" {
			l, err := redis.Int64(c.Do("LLEN", k))
			if err != nil {
				t.Fatal(err)
			}
			n += l
		}
	}
	return n
}

// TestBadDataReap reaps every dead pool of the bad namespace through the
// binary (pool IDs, hosts and job names with escapes; jobs that are not
// JSON; a 1 MB job): output without raw control characters, every job
// kept, the dead pools gone but one that touches a wrong-typed key, which
// is refused with a one-line error.
func TestBadDataReap(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	writeBadData(t, c, 1000, 100)
	before := listJobs(t, c)
	common := []string{"--redis=" + srv.Addr(), "--namespace=" + badNS}
	r := runCLI(t, nil, append(common, "reap", "--all-dead", "--dry-run")...)
	if r.Code != 0 {
		t.Fatalf("dry run: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if leak, ok := rawControl(r.Stdout + r.Stderr); ok {
		t.Errorf("dry run output: %s", leak)
	}
	r = runCLI(t, nil, append(common, "reap", "--all-dead", "--yes", "--batch=2")...)
	if leak, ok := rawControl(r.Stdout + r.Stderr); ok {
		t.Errorf("reap output: %s", leak)
	}
	// The pool with empty job_names is reaped over every known job type,
	// one of which has a lock that is a hash: that pool is refused (one
	// line, exit 1, nothing written for it), every other dead pool reaped.
	if r.Code != 1 || !strings.Contains(r.Stderr, "emptyjobs") || !strings.Contains(r.Stderr, "hashlock:lock is a hash") {
		t.Errorf("reap: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	oneLine(t, "reap", r.Stderr[strings.LastIndex(strings.TrimSuffix(r.Stderr, "\n"), "\n")+1:])
	if after := listJobs(t, c); after != before {
		t.Errorf("jobs in lists: %d before, %d after", before, after)
	}
	// What is left in the set: pools that are not dead (unreadable
	// heartbeats are never reaped).
	r = runCLI(t, nil, append(common, "snapshot", "--json")...)
	var snap struct {
		Pools []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"pools"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &snap); err != nil {
		t.Fatalf("snapshot --json: %v\n%s", err, r.Stderr)
	}
	for _, p := range snap.Pools {
		if p.Status == "dead" && p.ID != "emptyjobs000000000000000" {
			t.Errorf("pool %q still dead after reap --all-dead", p.ID)
		}
	}
	t.Logf("reaped the bad namespace: %d jobs in lists before and after, %d pools left", before, len(snap.Pools))
}

// TestBadDataExitCodes: unreadable data alone warns and exits 0; a dead
// pool next to it still exits 3; nothing crashes (exit 1 or 2) on data.
func TestBadDataExitCodes(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	p := prefix(badNS)
	cases := []struct {
		name  string
		setup func(now int64)
		code  int
		warn  string
	}{
		{"empty namespace", func(int64) {}, 1, "no gocraft/work keys"},
		{"heartbeat_at not a number", func(now int64) {
			redistest.Do(t, c, "SADD", p+"worker_pools", "p1")
			redistest.Do(t, c, "HSET", p+"worker_pools:p1", "heartbeat_at", "soon", "job_names", "email")
		}, 0, "heartbeat_at"},
		{"worker_pools is a string", func(int64) { redistest.Do(t, c, "SET", p+"worker_pools", "x") }, 0, "worker_pools"},
		{"known_jobs is a hash", func(int64) { redistest.Do(t, c, "HSET", p+"known_jobs", "a", "b") }, 0, "known_jobs"},
		{"queue is a string", func(now int64) {
			writeHeartbeat(t, c, badNS, "p1", now+3600, "h", "email")
			redistest.Do(t, c, "SET", p+"jobs:email", "x")
		}, 0, "WRONGTYPE"},
		{"oldest job not JSON", func(now int64) {
			writeHeartbeat(t, c, badNS, "p1", now+3600, "h", "email")
			redistest.Do(t, c, "RPUSH", p+"jobs:email", "\x1b[31mnope")
		}, 0, "oldest queued job"},
		{"lock is a hash, next to a dead pool", func(now int64) {
			writeHeartbeat(t, c, badNS, "p1", now-600, "h", "email")
			redistest.Do(t, c, "HSET", p+"jobs:email:lock", "a", "b")
		}, 3, "WRONGTYPE"},
	}
	for _, tc := range cases {
		redistest.Do(t, c, "FLUSHALL")
		tc.setup(redistest.Time(t, c).Unix())
		for _, args := range [][]string{{"snapshot"}, {"snapshot", "--json"}} {
			r := runCLI(t, nil, append([]string{"--redis=" + srv.Addr(), "--namespace=" + badNS}, args...)...)
			if r.Code != tc.code {
				t.Errorf("%s, %v: exit %d, want %d\n%s%s", tc.name, args, r.Code, tc.code, r.Stdout, r.Stderr)
			}
			if !strings.Contains(r.Stdout+r.Stderr, tc.warn) {
				t.Errorf("%s, %v: no %q in the output\n%s%s", tc.name, args, tc.warn, r.Stdout, r.Stderr)
			}
			if leak, ok := rawControl(r.Stdout + r.Stderr); ok {
				t.Errorf("%s, %v: %s", tc.name, args, leak)
			}
		}
	}
}
