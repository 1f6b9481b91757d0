package redisq

import (
	"fmt"
	"testing"

	"github.com/gomodule/redigo/redis"
	"github.com/workq-tui/workq-tui/model"
)

func TestParseObservation(t *testing.T) {
	b := func(s string) []byte { return []byte(s) }
	tests := []struct {
		name string
		r    reply
		want string
	}{
		{"missing hash: idle", reply{v: []any{}}, `busy=false "" "" 0 "" false "" 0 []`},
		{"nil reply: idle with a warning", reply{v: nil}, `busy=false "" "" 0 "" false "" 0 ["observation: unexpected reply <nil>"]`},
		{"odd reply", reply{v: []any{b("job_name")}}, `busy=false "" "" 0 "" false "" 0 ["observation: unexpected reply []interface {}"]`},
		{"wrong type", reply{err: redis.Error("WRONGTYPE x")}, `busy=false "" "" 0 "" false "" 0 ["observation: WRONGTYPE x"]`},
		{"gocraft's fields", reply{v: []any{b("job_name"), b("e"), b("job_id"), b("j"), b("started_at"), b("17"), b("args"), b(`{"a":1}`)}},
			`busy=true "e" "j" 17 "{\"a\":1}" false "" 0 []`},
		{"checkin, even empty", reply{v: []any{b("job_name"), b("e"), b("checkin"), b(""), b("checkin_at"), b("20")}},
			`busy=true "e" "" 0 "" true "" 20 []`},
		{"any field makes it busy", reply{v: []any{b("other"), b("x")}}, `busy=true "" "" 0 "" false "" 0 []`},
		{"bad numbers", reply{v: []any{b("started_at"), b("soon"), b("checkin_at"), b("1.5")}},
			`busy=true "" "" 0 "" false "" 0 ["observation started_at \"soon\" is not a whole number" "observation checkin_at \"1.5\" is not a whole number"]`},
		{"not bulk strings", reply{v: []any{b("started_at"), int64(3)}}, `busy=false "" "" 0 "" false "" 0 ["observation: unexpected reply of []uint8 and int64"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w model.Worker
			parseObservation(tt.r, &w)
			got := fmt.Sprintf("busy=%v %q %q %d %q %v %q %d %q", w.Busy, w.JobName, w.JobID, w.StartedAt, w.Args, w.HasCheckin, w.Checkin, w.CheckinAt, w.Warnings)
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPoolWorkers(t *testing.T) {
	pools := []model.Pool{
		{ID: "a", Heartbeat: &model.Heartbeat{WorkerIDs: []string{"w1", "w2"}}},
		{ID: "b"}, // no heartbeat: its workers are unknown
		{ID: "c", Heartbeat: &model.Heartbeat{}},
		{ID: "d", Heartbeat: &model.Heartbeat{WorkerIDs: []string{"w3"}}},
	}
	var got []string
	for _, w := range poolWorkers(pools) {
		got = append(got, w.PoolID+"/"+w.WorkerID)
	}
	if fmt.Sprint(got) != "[a/w1 a/w2 d/w3]" {
		t.Errorf("poolWorkers = %v", got)
	}
}
