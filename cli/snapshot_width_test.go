package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/internal/redistest"
	"github.com/workq-tui/workq-tui/internal/textsafe"
)

// TestSnapshotTableAlignsByDisplayWidth: host and job names with CJK,
// emoji, combining marks and zero-width characters, some long enough to be
// cut, leave every column of every table where its header says.
func TestSnapshotTableAlignsByDisplayWidth(t *testing.T) {
	srv := redistest.Start(t)
	wide := []string{"メール送信", "🙈emoji", "cafe\u0301", "zero\u200bwidth", "👩\u200d💻dev", "ascii"}
	srv.Do("SADD", "work:worker_pools", "pool1", "pool2", "pool3")
	srv.Do("SADD", "work:known_jobs", "メール送信", "🙈emoji", "cafe\u0301", "zero\u200bwidth", "👩\u200d💻dev", "ascii")
	srv.Do("HSET", "work:worker_pools:pool1", "heartbeat_at", 1, "job_names", strings.Join(wide, ",")+",長い名前の仕事がたくさんあります",
		"host", "死んだホスト🙈", "pid", 7, "worker_ids", "w1,w2,w3")
	srv.Do("HSET", "work:worker:w1", "job_name", "メール送信", "job_id", "j1", "started_at", 1, "args", "{}",
		"checkin", "処理中 👩\u200d💻 step 2", "checkin_at", 2)
	srv.Do("HSET", "work:worker:w3", "job_name", "ascii", "job_id", "j3", "started_at", 5, "args", "")
	srv.Do("HSET", "work:worker_pools:pool2", "heartbeat_at", 1, "job_names", "ascii", "host", "web-1", "pid", 12345)
	srv.Do("HSET", "work:worker_pools:pool3", "heartbeat_at", 1, "job_names", "cafe\u0301", "host", "e\u0301\u200b🇯🇵", "pid", 1)
	for i, name := range wide {
		for j := 0; j <= i; j++ {
			srv.Do("RPUSH", "work:jobs:"+name+":pool1:inprogress", "{}")
		}
		srv.Do("HSET", "work:jobs:"+name+":lock_info", "pool1", i+1)
		srv.Do("SET", "work:jobs:"+name+":lock", i+1)
		srv.Do("RPUSH", "work:jobs:"+name+":gone"+strings.Repeat("9", i)+":inprogress", "{}")
	}
	out, stderr, code := runCLI(t, input{}, "--redis", srv.Addr(), "snapshot")
	if code != ExitFindings {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	if !strings.Contains(out, "…") {
		t.Fatalf("no cell was cut; the test needs one:\n%s", out)
	}
	// Every section after the first line is a title and a table; the
	// first row (the header, but for FINDINGS) says where the columns are.
	for _, section := range strings.Split(out, "\n\n")[1:] {
		lines := strings.Split(strings.TrimSuffix(section, "\n"), "\n")
		if len(lines) < 3 {
			t.Fatalf("section %q has no table to check", lines[0])
		}
		starts := columnStarts(lines[1])
		for _, row := range lines[2:] {
			cols := starts[1:]
			if strings.HasPrefix(row, " ") {
				// A finding's detail wrapped under its column.
				cols = starts[len(starts)-1:]
			}
			for _, col := range cols {
				if !cellStartsAt(row, col) {
					t.Errorf("%s: no cell starts at column %d (as in the header %q):\n%s", lines[0], col, lines[1], row)
				}
			}
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

var headerGap = regexp.MustCompile(`  +`)

// columnStarts is the display column where each header cell starts
// (header cells are separated by two spaces or more).
func columnStarts(header string) []int {
	starts := []int{0}
	for _, m := range headerGap.FindAllStringIndex(header, -1) {
		starts = append(starts, textsafe.Width(header[:m[1]]))
	}
	return starts
}

// cellStartsAt says whether a cell of row starts at display column col:
// the text before it is col columns wide and ends in a space, and the cell
// is not blank.
func cellStartsAt(row string, col int) bool {
	for i := 1; i < len(row); i++ {
		if textsafe.Width(row[:i]) == col && row[i-1] == ' ' && row[i] != ' ' {
			return true
		}
	}
	return false
}
