package model

import (
	"slices"
	"testing"
)

func TestClassifyLeaked(t *testing.T) {
	ph := func(id string) []byte {
		return []byte(`{"name":"a","id":"` + id + `","t":1,"args":{},"unique":true,"unique_key":"ns:unique:a:{}\n"}`)
	}
	plain := []byte(`{"name":"a","id":"p","t":1,"args":{}}`)
	for _, tc := range []struct {
		name    string
		entries [][]byte
		counted int64
		busy    map[string]bool
		want    []int
	}{
		{"leaked stand-in, nothing counted", [][]byte{ph("x")}, 0, nil, []int{0}},
		{"counted: a running job", [][]byte{ph("x")}, 1, nil, nil},
		{"v0.5.1 job without unique_key", [][]byte{plain}, 0, nil, nil},
		{"a busy worker runs it", [][]byte{ph("x")}, 0, map[string]bool{"x": true}, nil},
		{"one of two counted, the other run by a worker", [][]byte{ph("x"), ph("y")}, 1, map[string]bool{"y": true}, []int{0}},
		{"two candidates for one excess: ambiguous", [][]byte{ph("x"), ph("y")}, 1, nil, nil},
		{"negative lock_info reads as 0", [][]byte{ph("x")}, -3, nil, []int{0}},
		{"not JSON", [][]byte{[]byte("garbage")}, 0, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClassifyLeaked(tc.entries, tc.counted, tc.busy); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLeakedFindingsOnePerList(t *testing.T) {
	l := []LeakedEntry{{Key: "k1", ID: "a", JobName: "j", PoolID: "p"}, {Key: "k1", ID: "b", JobName: "j", PoolID: "p"}, {Key: "k2", ID: "c", JobName: "j", PoolID: "q"}}
	f := LeakedFindings(l)
	if len(f) != 2 || f[0].Subject != "k1" || f[1].Subject != "k2" || f[0].Kind != FindingLeaked {
		t.Fatalf("findings %+v", f)
	}
}

func TestHarborPeriodic(t *testing.T) {
	for _, tc := range []struct {
		args string
		want bool
	}{
		{`{"_job_kind_periodic_":true,"redis_url_reg":"x"}`, true},
		{`{"_job_kind_periodic_": true}`, true},
		{`{"_job_kind_periodic_":false}`, false},
		{`{"note":"_job_kind_periodic_"}`, false},
		{`{}`, false},
		{``, false},
	} {
		j := JobFields{Args: []byte(tc.args)}
		if got := j.HarborPeriodic(); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.args, got, tc.want)
		}
	}
}
