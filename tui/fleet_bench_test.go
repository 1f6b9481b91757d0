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

// BenchmarkFleetFrame reports the cost of a frame of a fleet of 50
// targets as a ratio to a frame of one target's screen: each iteration
// times one of each.
func BenchmarkFleetFrame(b *testing.B) {
	single, fleet := fleetFrameModels(50)
	snap := fixture()
	var singleTime, fleetTime time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		next, _ := single.Update(current(single, snapshotMsg{snap: snap, at: fixedNow}))
		single = next.(Model)
		_ = single.View()
		mid := time.Now()
		t := i % 50
		nextF, _ := fleet.Update(targetMsg{i: t, msg: current(*fleet.children[t], snapshotMsg{snap: snap, at: fixedNow})})
		fleet = nextF.(Fleet)
		_ = fleet.View()
		singleTime += mid.Sub(start)
		fleetTime += time.Since(mid)
	}
	b.ReportMetric(float64(fleetTime)/float64(singleTime), "x-single-screen-frame")
	b.ReportMetric(float64(fleetTime.Nanoseconds())/float64(b.N), "fleet50-ns/frame")
	b.ReportMetric(float64(singleTime.Nanoseconds())/float64(b.N), "single-ns/frame")
}

// TestFleetFrameCost: a frame of a fleet of 50 targets allocates at most a
// few times what a frame of one target's screen allocates, both counted in
// the same run. Allocations, unlike times, do not depend on how loaded the
// machine is; BenchmarkFleetFrame gives the time ratio.
func TestFleetFrameCost(t *testing.T) {
	single, fleet := fleetFrameModels(50)
	snap := fixture()
	base := testing.AllocsPerRun(20, func() {
		next, _ := single.Update(current(single, snapshotMsg{snap: snap, at: fixedNow}))
		single = next.(Model)
		_ = single.View()
	})
	i := 0
	got := testing.AllocsPerRun(20, func() {
		t := i % 50
		i++
		next, _ := fleet.Update(targetMsg{i: t, msg: current(*fleet.children[t], snapshotMsg{snap: snap, at: fixedNow})})
		fleet = next.(Fleet)
		_ = fleet.View()
	})
	ratio := got / base
	t.Logf("allocations of a frame at 50 targets: %.0f; of one target's screen: %.0f; ratio %.2f", got, base, ratio)
	if ratio > 8 {
		t.Fatalf("a frame at 50 targets allocates %.1f times what a single screen's frame does, want at most 8", ratio)
	}
}
