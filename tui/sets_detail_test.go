package tui

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// bigMember is a dead job whose args hold n bytes, escape sequences
// among them.
func bigMember(n int) model.SetJob {
	const head, tail = `{"blob":"`, `"}`
	chunk := `\u001b[2J\u001b]0;t\u0007` + strings.Repeat("x", 40)
	k := (n - len(head) - len(tail)) / len(chunk)
	body := strings.Repeat(chunk, k) + strings.Repeat("x", n-len(head)-len(tail)-k*len(chunk))
	raw := fmt.Sprintf(`{"name":"send_email","id":"big","t":%d,"fails":1,"err":"boom","args":%s%s%s}`,
		fixedNow.Unix()-60, head, body, tail)
	return model.ParseSetJob(model.SetDead, []byte(raw), fmt.Sprint(fixedNow.Unix()))
}

// A field longer than detailMaxBytes is cut and says how much is left;
// nothing of it reaches the screen raw.
func TestSetJobDetailBounded(t *testing.T) {
	sj := bigMember(1 << 20)
	if sj.Job == nil {
		t.Fatalf("the member does not parse: %s", sj.Problem)
	}
	lines := setJobDetail(sj, fixedNow, 80, nil)
	more := moreText(len(sj.Job.Args) - detailMaxBytes)
	if got := strings.TrimSpace(lines[len(lines)-1]); got != more {
		t.Errorf("last line %q, want %q", got, more)
	}
	if want := "… 1032192 bytes more"; more != want {
		t.Errorf("moreText = %q, want %q", more, want)
	}
	if n := len(lines); n > 2*detailMaxBytes/70+20 {
		t.Errorf("%d lines for a field cut at %d bytes", n, detailMaxBytes)
	}
	for i, l := range lines {
		if lineWidth(l) > 80 {
			t.Errorf("line %d is %d wide", i, lineWidth(l))
		}
		for _, r := range l {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("line %d holds the control character %U: %q", i, r, l)
			}
		}
	}
	// A short member is drawn whole, pretty-printed, with no such line.
	small := setJobDetail(bigMember(1<<10), fixedNow, 80, nil)
	if s := strings.Join(small, "\n"); strings.Contains(s, "bytes more") || !strings.Contains(s, `"blob":`) {
		t.Errorf("a 1 KB member:\n%s", s)
	}
}

func TestBounded(t *testing.T) {
	for _, tc := range []struct {
		in      string
		n       int
		want    string
		wantCut int
	}{
		{"abc", 3, "abc", 0},
		{"abcd", 3, "abc", 1},
		{"aé", 2, "a", 2}, // é is two bytes: never half of it
		{"日本", 4, "日", 3},
	} {
		got, cut := bounded(tc.in, tc.n)
		gotB, cutB := boundedBytes([]byte(tc.in), tc.n)
		if got != tc.want || cut != tc.wantCut || gotB != got || cutB != cut {
			t.Errorf("bounded(%q, %d) = %q, %d (bytes: %q, %d); want %q, %d", tc.in, tc.n, got, cut, gotB, cutB, tc.want, tc.wantCut)
		}
	}
}

// redrawCost is the time of n redraws of the Jobs view with sj under the
// cursor, a new snapshot (Redis's clock moved) every tenth, and of the
// job's own view pushed over it, scrolled.
func redrawCost(sj model.SetJob, n int) time.Duration {
	st := newStyles(asciiRenderer(), defaultTheme())
	v := newSetsView(false, defaultKeyMap())
	v.page, v.total, v.loaded = []model.SetJob{sj}, 1, true
	v = v.setSize(80, 20).(setsView)
	jv := newSetJobView(v, sj).setSize(80, 20)
	start := time.Now()
	for i := 0; i < n; i++ {
		if i%10 == 0 {
			v = v.setSnapshot(&model.Snapshot{RedisTime: fixedNow.Add(time.Duration(i) * time.Second)}, nil).(setsView)
		}
		_ = v.render(renderContext{st: st, now: fixedNow})
		jv, _ = jv.update(keyMsg("j"))
		_ = jv.render(renderContext{st: st, now: fixedNow})
	}
	return time.Since(start)
}

// A 1 MB member under the cursor costs a redraw about what a 1 KB one
// does: its detail is cut, and drawn once while it stays under the cursor.
// Both are measured in this run; only their ratio is checked.
func TestSetJobRedrawCostBounded(t *testing.T) {
	const redraws = 200
	big, small := bigMember(1<<20), bigMember(1<<10)
	redrawCost(small, 10) // warm up
	// The least of five runs of each side, taking turns: a run the
	// machine's load slowed shows in neither least.
	base, cost := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for range 5 {
		base = min(base, redrawCost(small, redraws))
		cost = min(cost, redrawCost(big, redraws))
	}
	ratio := float64(cost) / float64(max(base, time.Microsecond))
	t.Logf("%d redraws: 1 KB member %v, 1 MB member %v: ratio %.2f", redraws, base, cost, ratio)
	if ratio > 4 {
		t.Errorf("a 1 MB member costs %.1f times a 1 KB one per redraw, want at most 4", ratio)
	}
}
