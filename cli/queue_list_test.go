package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/textsafe"
	"github.com/workq-tui/workq-tui/redisq"
)

// runQueueList runs listQueue as a command that declares the target's and
// the listing's flags does: args are flags and the job type.
func runQueueList(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	fs := pflag.NewFlagSet("queue", pflag.ContinueOnError)
	var tg target
	tg.addFlags(fs)
	var f queueListFlags
	f.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	err := tg.check(e)
	if err == nil {
		err = listQueue(context.Background(), e, &tg, fs.Arg(0), f)
	}
	code := exitCode(withAddress(err, tg.address()), &errb)
	return out.String(), errb.String(), code
}

func TestQueueList(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Dial()
	k := redisq.NewKeys("work")
	// gocraft/work pushes on the left and takes from the right: j0, pushed
	// first, runs first.
	var ids []string
	for i := 0; i < 24; i++ {
		id := fmt.Sprintf("j%d", i)
		ids = append(ids, id)
		srv.Do("LPUSH", k.Queue("mail"), fmt.Sprintf(`{"name":"mail","id":"%s","t":%d,"args":{"i": %d,  "to":"x@y"}}`, id, 1700000000+i, i))
	}
	srv.Do("LPUSH", k.Queue("mail"), "not json \x1b[2J")
	// The id holds JSON escapes of controls; the args hold a bidi override
	// and a C1 control raw, as JSON allows in a string.
	srv.Do("LPUSH", k.Queue("mail"), `{"name":"mail","id":"evil\u001b]0;t\u0007","t":1700000100,"args":`+"{\"s\":\"\u202eabc\u009b31m\",\"w\":\"日本語日本語\",\"x\":\"\xff\"}}")
	srv.Do("HSET", k.Queue("hashy"), "a", "b")
	addr := "--redis=" + srv.Addr()

	redistest.Do(t, c, "CONFIG", "RESETSTAT")
	out, stderr, code := runQueueList(t, addr, "--read-only", "mail")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "queue mail: length 26, jobs #1–#20 in run order (#1 runs next)" || len(lines) != 22 {
		t.Fatalf("page:\n%s", out)
	}
	if want := "1   2023-11-14 22:13:20  j0   {\"i\":0,\"to\":\"x@y\"}"; lines[2] != want {
		t.Errorf("first row %q, want %q", lines[2], want)
	}
	if !strings.HasPrefix(lines[21], "20  ") || !strings.Contains(lines[21], "  j19  ") {
		t.Errorf("last row %q", lines[21])
	}
	// One LLEN and one LRANGE, nothing else on the queue, nothing written.
	info := string(redistest.Do(t, c, "INFO", "commandstats").([]byte))
	for _, want := range []string{"cmdstat_llen:calls=1,", "cmdstat_lrange:calls=1,"} {
		if !strings.Contains(info, want) {
			t.Errorf("commandstats lack %q:\n%s", want, info)
		}
	}
	if writes, _ := writeStats(t, c); len(writes) > 0 {
		t.Errorf("the listing wrote: %q", writes)
	}

	// The last page: the member that is not JSON and the hostile one, clean
	// and aligned by display width.
	out, stderr, code = runQueueList(t, addr, "--offset=20", "--limit", "10", "mail")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "queue mail: length 26, jobs #21–#26 in run order (#1 runs next)" || len(lines) != 8 {
		t.Fatalf("last page:\n%s", out)
	}
	if strings.ContainsAny(out, "\x1b\x07\u202e\u009b") {
		t.Errorf("raw control characters in:\n%q", out)
	}
	if f := strings.Fields(lines[6]); len(f) != 9 || f[2] != "(not" || strings.Join(f[5:], " ") != `raw not json \x1b[2J` {
		t.Errorf("row of the member that is not JSON: %q", lines[6])
	}
	if !strings.Contains(lines[7], `evil\x1b]0;t\x07  {"s":"\u202eabc\u009b31m","w":"日本語日本語","x":"\xff"}`) {
		t.Errorf("row of the hostile job: %q", lines[7])
	}
	col := strings.Index(lines[2], "j20")
	if i := strings.Index(lines[7], "evil"); i < 0 {
		t.Fatalf("no evil cell in %q", lines[7])
	} else if w := textsafe.Width(lines[7][:i]); w != col {
		t.Errorf("ID column at %d on one row, %d on another:\n%s", col, w, out)
	}

	out, _, code = runQueueList(t, addr, "--offset=30", "mail")
	if code != 0 || out != "queue mail: length 26, no job at #31 or after.\n" {
		t.Errorf("past the end: exit %d, %q", code, out)
	}

	// --json: the page as is, in run order, with every rune a terminal acts
	// on escaped.
	out, stderr, code = runQueueList(t, addr, "--json", "--offset=18", "--limit=8", "mail")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07\u202e\u009b") || strings.Contains(out, "\xff") {
		t.Errorf("raw control characters in the JSON:\n%q", out)
	}
	var page struct {
		JobName string `json:"job_name"`
		Key     string `json:"key"`
		Length  int64  `json:"length"`
		Offset  int    `json:"offset"`
		Limit   int    `json:"limit"`
		Jobs    []struct {
			Position   int64           `json:"position"`
			ID         string          `json:"id"`
			EnqueuedAt *int64          `json:"enqueued_at"`
			Args       json.RawMessage `json:"args"`
			Raw        *string         `json:"raw"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if page.JobName != "mail" || page.Key != "work:jobs:mail" || page.Length != 26 || page.Offset != 18 || page.Limit != 8 || len(page.Jobs) != 8 {
		t.Fatalf("page %+v", page)
	}
	for i, j := range page.Jobs[:6] {
		if j.Position != int64(18+i) || j.ID != ids[18+i] || j.EnqueuedAt == nil || *j.EnqueuedAt != int64(1700000018+i) {
			t.Errorf("job %d: %+v", i, j)
		}
	}
	if j := page.Jobs[6]; j.Raw == nil || *j.Raw != "not json \x1b[2J" {
		t.Errorf("member that is not JSON: %+v", j)
	}
	var args map[string]string
	if err := json.Unmarshal(page.Jobs[7].Args, &args); err != nil || args["s"] != "\u202eabc\u009b31m" || args["x"] != "\ufffd" || page.Jobs[7].ID != "evil\x1b]0;t\x07" {
		t.Errorf("hostile job decodes to %q, %q (%v)", page.Jobs[7].ID, args, err)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no job type", []string{addr}, 2, "needs a job type"},
		{"limit 0", []string{addr, "--limit=0", "mail"}, 2, "--limit must be 1 to 1000"},
		{"limit too large", []string{addr, "--limit=1001", "mail"}, 2, "--limit must be 1 to 1000"},
		{"negative offset", []string{addr, "--offset=-1", "mail"}, 2, "--offset must not be negative"},
		{"not a list", []string{addr, "hashy"}, 1, "redis at " + srv.Addr() + ": read queue hashy: work:jobs:hashy holds a value that is not a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runQueueList(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || errorLines(stderr) != 1 || out != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestJobsQueueCommand runs the listing through the jobs command as a user
// types it: the page in run order, its flags, and the flags it refuses.
func TestJobsQueueCommand(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	for i := 0; i < 3; i++ {
		srv.Do("LPUSH", k.Queue("mail"), fmt.Sprintf(`{"name":"mail","id":"q%d","t":%d,"args":{}}`, i, 1700000000+i))
	}
	out, errOut, code := runCLI(t, input{}, "jobs", "queue", "mail", "--redis", srv.Addr(), "--limit", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if a, b := strings.Index(out, `"q0"`), strings.Index(out, `"q1"`); a < 0 || b < a || strings.Contains(out, `"q2"`) {
		t.Errorf("want q0 then q1 and no q2 on a page of 2:\n%s", out)
	}
	_, errOut, code = runCLI(t, input{}, "jobs", "queue", "mail", "--redis", srv.Addr(), "--summary")
	if code != 2 || !strings.Contains(errOut, "--summary does not apply to jobs queue") {
		t.Errorf("--summary on a queue: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, input{}, "jobs", "queue", "mail", "purge", "--redis", srv.Addr())
	if code != 2 || !strings.Contains(errOut, "takes nothing, delete ID..., or delete or park") {
		t.Errorf("unknown queue action: exit %d, %q", code, errOut)
	}
}

// jobs queue --json keeps unique and unique_key as the sets' --json does.
func TestQueueListJSONUnique(t *testing.T) {
	srv := redistest.Start(t)
	k := redisq.NewKeys("work")
	srv.Do("LPUSH", k.Queue("mail"), `{"name":"mail","id":"u1","t":1,"args":{"a":1},"unique":true,"unique_key":"work:unique:mail:k"}`, `{"name":"mail","id":"p1","t":1,"args":{}}`)
	out, stderr, code := runQueueList(t, "--redis="+srv.Addr(), "--json", "mail")
	var page struct {
		Jobs []map[string]any `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Jobs) != 2 {
		t.Fatalf("exit %d, %v: %s %s", code, err, out, stderr)
	}
	if u := page.Jobs[0]; u["id"] != "u1" || u["unique"] != true || u["unique_key"] != "work:unique:mail:k" {
		t.Errorf("the unique job: %v", u)
	}
	if p := page.Jobs[1]; p["unique"] != false || p["unique_key"] != nil {
		t.Errorf("the plain job: %v", p)
	}
}
