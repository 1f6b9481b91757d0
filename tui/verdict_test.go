package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// The verdict counts what makes `snapshot` exit non-zero, by kind, and
// nothing else: a late pool or a warning leaves the namespace healthy.
func TestHealthVerdict(t *testing.T) {
	f := func(kinds ...string) []model.Finding {
		var out []model.Finding
		for _, k := range kinds {
			out = append(out, model.Finding{Kind: k})
		}
		return out
	}
	for _, tc := range []struct {
		findings []model.Finding
		want     string
		bad      bool
	}{
		{nil, "healthy", false},
		{f(model.FindingLatePool, model.FindingWarning, model.FindingLongRunning), "healthy", false},
		{f(model.FindingDeadPool, model.FindingDrift, model.FindingDeadPool), "3 problems: 2 dead pools, 1 drift", true},
		{f(model.FindingEmptyNamespace), "1 problem: 1 empty namespace", true},
		{f(model.FindingOrphan, model.FindingDeadPool), "2 problems: 1 dead pool, 1 orphaned list", true},
	} {
		got, bad := healthVerdict(tc.findings)
		if got != tc.want || bad != tc.bad {
			t.Errorf("healthVerdict(%v) = %q, %v; want %q, %v", tc.findings, got, bad, tc.want, tc.bad)
		}
		snap := &model.Snapshot{Findings: tc.findings}
		if bad != snap.HasProblems() {
			t.Errorf("verdict for %v says problems %v, HasProblems %v", tc.findings, bad, snap.HasProblems())
		}
	}
}

// At every width the header's first line carries the verdict, and its
// second keeps the job set sizes before the sweep's age; dead pools and
// dead jobs are told apart.
func TestHeaderVerdictAtEveryWidth(t *testing.T) {
	st := newStyles(asciiRenderer(), defaultTheme())
	busy := fixture()
	model.Analyze(busy, model.DefaultDeadAfter)
	busy.Sets = model.SetCounts{Retry: 5, Scheduled: 25, Dead: 26}
	want, bad := healthVerdict(busy.Findings)
	if !bad {
		t.Fatalf("fixture has no problems: %v", busy.Findings)
	}
	empty := &model.Snapshot{Namespace: "inc33", RedisTime: fixedNow, Search: &model.NamespaceSearch{}}
	empty.Findings = model.Findings(empty)
	for _, width := range []int{60, 80, 160} {
		h := renderHeader(headerData{address: "redis.internal:6379", namespace: "work", snap: busy,
			counts: countSnapshot(busy), fetchedAt: fixedNow,
			sweep: sweepState{enabled: true, at: fixedNow.Add(-4 * time.Second)},
			tabs:  []view{poolsView{}, jobTypesView{}, orphansView{}}}, fixedNow, width, st)
		lines := strings.Split(h, "\n")
		if !strings.HasPrefix(lines[0], "✖ "+want[:10]) {
			t.Errorf("at %d: first line has no verdict %q: %q", width, want, lines[0])
		}
		if width >= 80 && !strings.Contains(lines[0], want) {
			t.Errorf("at %d: verdict %q cut: %q", width, want, lines[0])
		}
		if strings.Contains(h, "● ok") || strings.Contains(h, "● connected") {
			t.Errorf("at %d: the connection still says ok: %q", width, lines[0])
		}
		if !strings.Contains(lines[1], "dead pools 2") && !strings.Contains(lines[1], "(2 dead") {
			t.Errorf("at %d: no dead pool count: %q", width, lines[1])
		}
		sets := &model.Snapshot{Namespace: "work", RedisTime: fixedNow, Sets: busy.Sets}
		sets.Findings = model.Findings(sets)
		s := renderHeader(headerData{address: "redis.internal:6379", namespace: "work", snap: sets,
			counts: countSnapshot(sets), fetchedAt: fixedNow,
			sweep: sweepState{enabled: true, at: fixedNow.Add(-4 * time.Second)},
			tabs:  []view{poolsView{}, jobTypesView{}, orphansView{}}}, fixedNow, width, st)
		if width >= 80 && !strings.Contains(s, "dead jobs 26") {
			t.Errorf("at %d: the set sizes were dropped:\n%s", width, s)
		}
		if strings.Contains(lines[1], "swept") && !strings.Contains(lines[1], "dead jobs 26") {
			t.Errorf("at %d: the sweep's age was kept before the set sizes: %q", width, lines[1])
		}
		e := renderHeader(headerData{address: "a", namespace: "inc33", snap: empty, counts: countSnapshot(empty), fetchedAt: fixedNow}, fixedNow, width, st)
		if !strings.HasPrefix(e, "✖ 1 problem: 1 empty namespace"[:min(len("✖ 1 problem: 1 empty namespace"), width)]) {
			t.Errorf("at %d: an empty namespace reads healthy: %q", width, e)
		}
	}
}

// TestVerdictCountsTheScansOrphans: the orphans the screen's own scan
// found are problems of the verdict, as snapshot counts them.
func TestVerdictCountsTheScansOrphans(t *testing.T) {
	o, _, _ := scanOptions(1)
	m := newTest(t, o, 80, 24)
	if first := strings.Split(m.View(), "\n")[0]; !strings.Contains(first, "3 problems: 2 dead pools, 1 drift ") {
		t.Fatalf("before the scan: %q", first)
	}
	m, _, _ = runScan(t, m, m.firstScan())
	if first := strings.Split(m.View(), "\n")[0]; !strings.Contains(first, "4 problems: 2 dead pools, 1 drift, 1 orphaned list") {
		t.Fatalf("after the scan: %q", first)
	}
}
