package tui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A frame of the fleet is one message through Update (a snapshot of one
// target, as arrives every interval from each) and one View. The baseline
// is the same frame of one target's screen, measured in the same run:
// the fleet at 50 targets must cost a small multiple of it (it draws as
// many lines; it measures and orders 50 rows).

func fleetFrameModels(n int) (Model, Fleet) {
	var targets []Options
	for i := 0; i < n; i++ {
		o, _ := fleetTarget(fmt.Sprintf("target-%02d", i), staticSource(fixture()), 2*time.Second)
		o.Now = func() time.Time { return fixedNow }
		targets = append(targets, o)
	}
	f := NewFleet(FleetOptions{Targets: targets, Now: func() time.Time { return fixedNow }, Renderer: asciiRenderer()})
	next, _ := f.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	f = next.(Fleet)
	for i := 0; i < n; i++ {
		next, _ = f.Update(targetMsg{i: i, msg: snapshotMsg{snap: fixture(), at: fixedNow}})
		f = next.(Fleet)
	}
	single := New(targets[0])
	single, _ = single.update(tea.WindowSizeMsg{Width: 140, Height: 40})
	single = single.relayout()
	single, _ = single.onSnapshot(snapshotMsg{snap: fixture(), at: fixedNow})
	return single.relayout(), f
}

// fleetFrame runs b.N frames of a fleet of n targets.
func fleetFrame(b *testing.B, f Fleet, n int) {
	snap := fixture()
	for i := 0; i < b.N; i++ {
		t := i % n
		next, _ := f.Update(targetMsg{i: t, msg: snapshotMsg{gen: f.children[t].gen, snap: snap, at: fixedNow}})
		f = next.(Fleet)
		_ = f.View()
	}
}

// singleFrame runs b.N frames of one target's screen.
func singleFrame(b *testing.B, m Model) {
	snap := fixture()
	for i := 0; i < b.N; i++ {
		next, _ := m.Update(snapshotMsg{gen: m.gen, snap: snap, at: fixedNow})
		m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkFleetFrame reports the cost of a frame of a fleet of 50
// targets as a ratio to a frame of one target's screen: each iteration
// times one of each.
func BenchmarkFleetFrame(b *testing.B) {
	single, fleet := fleetFrameModels(50)
	snap := fixture()
	var singleTime, fleetTime time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		next, _ := single.Update(snapshotMsg{gen: single.gen, snap: snap, at: fixedNow})
		single = next.(Model)
		_ = single.View()
		mid := time.Now()
		t := i % 50
		nextF, _ := fleet.Update(targetMsg{i: t, msg: snapshotMsg{gen: fleet.children[t].gen, snap: snap, at: fixedNow}})
		fleet = nextF.(Fleet)
		_ = fleet.View()
		singleTime += mid.Sub(start)
		fleetTime += time.Since(mid)
	}
	b.ReportMetric(float64(fleetTime)/float64(singleTime), "x-single-screen-frame")
	b.ReportMetric(float64(fleetTime.Nanoseconds())/float64(b.N), "fleet50-ns/frame")
	b.ReportMetric(float64(singleTime.Nanoseconds())/float64(b.N), "single-ns/frame")
}

// TestFleetFrameCost: a frame of a fleet of 50 targets costs at most a few
// times a frame of one target's screen, measured in the same run.
func TestFleetFrameCost(t *testing.T) {
	single, fleet := fleetFrameModels(50)
	base := testing.Benchmark(func(b *testing.B) { singleFrame(b, single) })
	got := testing.Benchmark(func(b *testing.B) { fleetFrame(b, fleet, 50) })
	ratio := float64(got.NsPerOp()) / float64(base.NsPerOp())
	t.Logf("frame at 50 targets: %d ns; one target's screen: %d ns; ratio %.2f", got.NsPerOp(), base.NsPerOp(), ratio)
	if ratio > 8 {
		t.Fatalf("a frame at 50 targets costs %.1f times a single screen's frame, want at most 8", ratio)
	}
}
