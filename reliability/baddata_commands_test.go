package reliability_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// badKind is one kind of text that must never reach a terminal raw.
type badKind struct {
	name string // ASCII, for pool IDs, job names and test names
	text string
}

// badKinds is every kind of control, escape and bidi text, one sample each.
// None holds a NUL (a NUL cannot be passed as a command-line argument) or a
// colon or comma (they separate the parts of keys and of job_names); NUL is
// in nulText, written only where no argument has to name it.
var badKinds = []badKind{
	{"c0", "\x01\x07\b\t\n\r\x0e\x1f"},
	{"csi", "\x1b[31m\x1b[2J\x1b[H\x1b[6n"},
	{"osc", "\x1b]0;title\x07\x1b]8;;x\x1b\\"},
	{"esc", "\x1bP1$r\x1b\\\x1bc\x1b7"},
	{"del", "\x7f"},
	{"c1", "\u0085\u009b31m\u009d0;t\u009c\u0090"},
	{"bidi", "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"},
	{"separators", "\u2028\u2029"},
	{"invalidutf8", "\xff\xfe\x9b\xc3\xe2\x80"},
}

// allBad is every kind at once; nulText adds a NUL.
func allBad() string {
	var b strings.Builder
	for _, k := range badKinds {
		b.WriteString(k.text)
	}
	return b.String()
}

func nulText() string { return "nul\x00" + allBad() }

const everyNS = "every"

// badNames are the pool IDs and job names of the namespace of
// writeEveryKind: one per kind and one with every kind at once.
type badNames struct {
	deadPools []badKind // name: test label; text: the pool ID
	jobs      []badKind // text: the job name
	orphans   []badKind // text: the in-progress key of an orphaned list
	live      string    // a live pool's ID
	liveList  string    // an in-progress list of the live pool
	wrongType string    // a dead pool holding a job whose queue is a string
}

// writeEveryKind writes into namespace ns data in which every field holds every kind
// of bad text: pool IDs, hosts, pids, worker IDs and job names of live, dead
// and orphaned pools, queues, in-progress lists, lock_info fields and
// values, and the job JSON (names, IDs, args, raw and JSON-escaped).
func writeEveryKind(t testing.TB, c redis.Conn, ns string) badNames {
	t.Helper()
	p := prefix(ns)
	now := redistest.Time(t, c).Unix()
	kinds := append(append([]badKind(nil), badKinds...), badKind{"all", allBad()})
	var n badNames
	// job is a gocraft/work job whose name, ID and args hold bad text
	// escaped by JSON; rawJob holds it raw (so it is not JSON).
	job := func(name, id string) string {
		b, err := json.Marshal(map[string]any{"name": name, "id": id, "t": now - 100,
			"args": map[string]any{"text": nulText(), "list": []string{allBad()}}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	rawJob := func(name string) string { return `{"name":"` + name + `","args":{"raw":"` + nulText() + `"}}` }
	heartbeat := func(pool string, at int64, pid any, jobs ...string) {
		redistest.Do(t, c, "SADD", p+"worker_pools", pool)
		redistest.Do(t, c, "HSET", p+"worker_pools:"+pool, "heartbeat_at", at, "started_at", at-3600,
			"job_names", strings.Join(jobs, ","), "concurrency", 4, "worker_ids", "w1,"+nulText(),
			"host", "host"+nulText(), "pid", pid)
		for _, j := range jobs {
			redistest.Do(t, c, "SADD", p+"known_jobs", j)
		}
	}
	hold := func(jobName, pool string, jobs int) string {
		key := p + "jobs:" + jobName + ":" + pool + ":inprogress"
		for i := 0; i < jobs; i++ {
			redistest.Do(t, c, "LPUSH", key, job(jobName, fmt.Sprintf("id%d%s", i, allBad())), rawJob(jobName))
		}
		redistest.Do(t, c, "INCRBY", p+"jobs:"+jobName+":lock", 2*jobs)
		redistest.Do(t, c, "HINCRBY", p+"jobs:"+jobName+":lock_info", pool, 2*jobs)
		return key
	}
	for _, k := range kinds {
		name := "job-" + k.name + k.text
		n.jobs = append(n.jobs, badKind{k.name, name})
		redistest.Do(t, c, "SADD", p+"known_jobs", name)
		redistest.Do(t, c, "RPUSH", p+"jobs:"+name, job(name, "queued"+allBad()), rawJob(name))

		dead := "dead-" + k.name + k.text
		n.deadPools = append(n.deadPools, badKind{k.name, dead})
		heartbeat(dead, now-600, 4242, name)
		hold(name, dead, 2)

		orphan := "orphan-" + k.name + k.text
		n.orphans = append(n.orphans, badKind{k.name, hold(name, orphan, 1)})
	}
	// A live pool, holding jobs of every name.
	n.live = "live-" + allBad()
	var all []string
	for _, j := range n.jobs {
		all = append(all, j.text)
	}
	heartbeat(n.live, now+3600, 4242, all...)
	for _, j := range n.jobs {
		hold(j.text, n.live, 1)
	}
	n.liveList = p + "jobs:" + n.jobs[len(n.jobs)-1].text + ":" + n.live + ":inprogress"
	// Data no argument names: a NUL in a pool ID and a job name, a pid and
	// every other heartbeat field that is not a number, a lock_info value
	// that is not a number, a lock_info field of a pool that never existed.
	nulJob := "job-" + nulText()
	heartbeat("dead-"+nulText(), now-600, 4242, nulJob)
	hold(nulJob, "dead-"+nulText(), 1)
	redistest.Do(t, c, "SADD", p+"worker_pools", "garbage-"+allBad())
	redistest.Do(t, c, "HSET", p+"worker_pools:garbage-"+allBad(), "heartbeat_at", nulText(), "started_at", nulText(),
		"job_names", nulJob, "concurrency", nulText(), "worker_ids", nulText(), "host", nulText(), "pid", "pid"+nulText())
	heartbeat("badpid-"+allBad(), now+3600, "pid"+nulText(), nulJob)
	valueJob := "job-lockinfo-value" + allBad()
	redistest.Do(t, c, "SADD", p+"known_jobs", valueJob)
	redistest.Do(t, c, "HSET", p+"jobs:"+valueJob+":lock_info", "ghost-"+nulText(), nulText())
	redistest.Do(t, c, "SET", p+"jobs:"+valueJob+":lock", nulText())
	// A dead pool whose job's queue is a string: reaping it is refused with
	// an error that names the key.
	wrongJob := "job-wrongtype" + allBad()
	redistest.Do(t, c, "SET", p+"jobs:"+wrongJob, "not a list "+nulText())
	n.wrongType = "dead-wrongtype-" + allBad()
	heartbeat(n.wrongType, now-600, 4242, wrongJob)
	hold(wrongJob, n.wrongType, 1)
	return n
}

// rawControl returns a description of the first byte of out that must not
// reach a terminal: invalid UTF-8, a C0 control other than newline (tab
// and ESC included), DEL, a C1 control, a bidi embedding, override, isolate
// or mark, or a line or paragraph separator.
func rawControl(out string) (string, bool) {
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		bad := (r == utf8.RuneError && size <= 1) ||
			(r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
			r == 0x200e || r == 0x200f || r == 0x061c || r == 0x2028 || r == 0x2029
		if bad {
			lo, hi := max(i-40, 0), min(i+40, len(out))
			return fmt.Sprintf("raw %q at byte %d in %q", out[i:i+size], i, out[lo:hi]), true
		}
		i += size
	}
	return "", false
}

// everyRun is one run of the binary in TestBadDataEveryCommand.
type everyRun struct {
	name    string
	args    []string
	code    int
	json    bool   // stdout is one JSON document
	visible string // text the output must show, cleaned
}

// TestBadDataEveryCommand runs every command that prints, on a namespace in
// which every field holds every kind of control, escape and bidi text, and
// every error path that echoes a key or a name: no output holds a raw byte
// of those kinds; text output shows them as visible escapes, and JSON
// output is valid JSON that escapes them.
func TestBadDataEveryCommand(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	n := writeEveryKind(t, c, everyNS)
	before := redistest.Dump(t, c, "*")

	runs := []everyRun{
		{name: "snapshot", args: []string{"snapshot", "--wide"}, code: 3, visible: n.deadPools[1].text},
		{name: "snapshot --json", args: []string{"snapshot", "--json"}, code: 3, json: true},
		{name: "reap --all-dead --dry-run", args: []string{"reap", "--all-dead", "--dry-run"}, visible: n.deadPools[1].text},
	}
	for _, p := range n.deadPools {
		runs = append(runs, everyRun{name: "reap --dry-run dead-" + p.name, args: []string{"reap", "--dry-run", p.text}, visible: p.text})
	}
	for _, o := range n.orphans {
		runs = append(runs, everyRun{name: "requeue --dry-run orphan-" + o.name, args: []string{"requeue", "--dry-run", o.text}, visible: o.text})
	}
	for _, j := range n.jobs {
		runs = append(runs, everyRun{name: "repair-locks --dry-run job-" + j.name, args: []string{"repair-locks", "--dry-run", j.text}, visible: j.text})
	}
	nosuch := "nosuch-" + allBad()
	runs = append(runs,
		everyRun{name: "error reap live pool", args: []string{"reap", "--dry-run", n.live}, code: 1, visible: n.live},
		everyRun{name: "error reap unknown pool", args: []string{"reap", "--dry-run", nosuch}, code: 1, visible: nosuch},
		everyRun{name: "reap --dry-run dead-wrongtype", args: []string{"reap", "--dry-run", n.wrongType}, visible: n.wrongType},
		everyRun{name: "error reap wrong type", args: []string{"reap", "--yes", n.wrongType}, code: 1, visible: n.wrongType},
		everyRun{name: "error requeue live list", args: []string{"requeue", "--dry-run", n.liveList}, code: 1, visible: n.liveList},
		everyRun{name: "error requeue not a key", args: []string{"requeue", "--dry-run", nosuch}, code: 1, visible: nosuch},
		everyRun{name: "error requeue no such list", args: []string{"requeue", "--dry-run", prefix(everyNS) + "jobs:" + nosuch + ":" + nosuch + ":inprogress"}, code: 1, visible: nosuch},
		everyRun{name: "error snapshot namespace", args: []string{"--namespace=" + nosuch, "snapshot"}, code: 1, visible: nosuch},
	)
	writes := map[string]bool{"reap": true, "requeue": true, "repair-locks": true, "throttle": true, "pause": true, "unpause": true, "remove-leaked": true, "delete-unique": true}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			args := []string{"--redis=" + srv.Addr()}
			if !strings.HasPrefix(r.args[0], "--namespace=") {
				args = append(args, "--namespace="+everyNS) // one namespace a command
			}
			args = append(args, r.args...)
			if writes[r.args[0]] {
				// Whole lines: a cleaned key wider than 80 columns is cut
				// where a plan wraps, and the check below reads it whole.
				args = append(args, "--wide")
			}
			res := runCLI(t, nil, args...)
			out := res.Stdout + res.Stderr
			if res.Code != r.code {
				t.Errorf("exit %d, want %d\n%s", res.Code, r.code, out)
			}
			if leak, ok := rawControl(out); ok {
				t.Errorf("%s", leak)
			}
			// Visible escapes: textsafe.Clean's, or Go's quoting in an
			// error message that quotes what it was given.
			quoted := strconv.Quote(r.visible)
			if r.visible != "" && !strings.Contains(out, textsafe.Clean(r.visible)) && !strings.Contains(out, quoted[1:len(quoted)-1]) {
				t.Errorf("the output does not show %q as %q:\n%s", r.visible, textsafe.Clean(r.visible), out)
			}
			if r.json {
				var v struct {
					Pools []struct {
						ID string `json:"id"`
					} `json:"pools"`
				}
				if err := json.Unmarshal([]byte(res.Stdout), &v); err != nil {
					t.Fatalf("not JSON: %v", err)
				}
				// Escaped, not dropped: every pool ID that is valid UTF-8
				// comes back intact.
				ids := map[string]bool{}
				for _, p := range v.Pools {
					ids[p.ID] = true
				}
				for _, p := range n.deadPools {
					if utf8.ValidString(p.text) && !ids[p.text] {
						t.Errorf("pool %q is not in the JSON", p.text)
					}
				}
			}
		})
	}
	if after := redistest.Dump(t, c, "*"); !reflect.DeepEqual(before, after) {
		t.Errorf("a command changed Redis")
	}
}
