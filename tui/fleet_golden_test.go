package tui

import (
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/workq-tui/workq-tui/model"
)

// healthySnapshot is a namespace with nothing wrong: two live pools, a
// short queue.
func healthySnapshot() *model.Snapshot {
	rt := fixedNow.Add(-2 * time.Second)
	hb := func(host string) *model.Heartbeat {
		return &model.Heartbeat{HeartbeatAt: rt.Add(-time.Second).Unix(), StartedAt: rt.Add(-time.Hour).Unix(), Host: host, PID: 1,
			Concurrency: 4, JobNames: []string{"export"}, WorkerIDs: []string{"w1"}}
	}
	s := &model.Snapshot{Namespace: "work", RedisTime: rt, DeadAfter: model.DefaultDeadAfter,
		Pools:    []model.Pool{{ID: "aaaa0000bbbb1111cccc2222", Heartbeat: hb("export-1")}, {ID: "dddd3333eeee4444ffff5555", Heartbeat: hb("export-2")}},
		JobTypes: []model.JobType{{Name: "export", Queued: 3, OldestEnqueuedAt: rt.Add(-4 * time.Second).Unix()}},
	}
	model.Analyze(s, model.DefaultDeadAfter)
	return s
}

// fleetGoldenOptions: three targets on a frozen clock: one with dead
// pools and drift, one down, one healthy.
func fleetGoldenOptions() FleetOptions {
	east, _ := fleetTarget("east", staticSource(fixture()), time.Hour)
	west, _ := fleetTarget("west", &fakeSource{next: func(int) (*model.Snapshot, error) { return nil, errRefused }}, time.Hour)
	north, _ := fleetTarget("north", staticSource(healthySnapshot()), time.Hour)
	return FleetOptions{Targets: []Options{east, west, north}, Now: func() time.Time { return fixedNow }, Renderer: asciiRenderer()}
}

// runFleetProgram runs the fleet in teatest like runProgram runs a screen.
func runFleetProgram(t *testing.T, o FleetOptions, w, h int, script ...any) string {
	t.Helper()
	return runModel(t, NewFleet(o), w, h, script...)
}

func TestGoldenFleet(t *testing.T) {
	ready := waitText("1 DOWN · 2 ok")
	tests := []struct {
		name   string
		w, h   int
		script []any
	}{
		{name: "fleet_80x24", w: 80, h: 24, script: []any{ready}},
		{name: "fleet_140x40", w: 140, h: 40, script: []any{ready}},
		{name: "fleet_down_selected_80x24", w: 80, h: 24, script: []any{ready, keyMsg("g"), waitText("retry in")}},
		{name: "fleet_help_80x24", w: 80, h: 24, script: []any{ready, keyMsg("?"), waitText("page down")}},
		{name: "target_80x24", w: 80, h: 24, script: []any{ready, keyMsg("enter"), waitText("esc: fleet")}},
		{name: "target_140x40", w: 140, h: 40, script: []any{ready, keyMsg("enter"), waitText("esc: fleet")}},
		{name: "target_dialog_80x24", w: 80, h: 24, script: []any{ready, keyMsg("enter"), keyMsg("X"), waitText("y: run it")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			view := runFleetProgram(t, fleetGoldenOptions(), tc.w, tc.h, tc.script...)
			checkScreen(t, view, tc.w, tc.h)
			golden.RequireEqual(t, []byte(view))
		})
	}
}
