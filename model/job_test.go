package model

import "testing"

func TestParseJob(t *testing.T) {
	tests := []struct {
		raw     string
		id      string
		t       int64
		wantErr bool
	}{
		{`{"name":"n","id":"x","t":1700000000,"args":{}}`, "x", 1700000000, false},
		{`{"id":"x","t":1.7e9}`, "x", 1700000000, false},
		{`{"id":"x"}`, "x", 0, true},
		{`{"id":"x","t":null}`, "x", 0, true},
		{`{"id":"x","t":"1"}`, "x", 0, true},
		{`{"id":7,"t":1}`, "", 1, false},
		{`[1,2]`, "", 0, true},
		{``, "", 0, true},
		{"\x1b]0;x\x07", "", 0, true},
		{`{"id":"x","t":5,"fails":2,"err":"boom","failed_at":9,"unique":true}`, "x", 5, false},
	}
	for _, tt := range tests {
		j := ParseJob(tt.raw)
		if j.ID != tt.id || j.EnqueuedAt != tt.t || (j.ParseErr != nil) != tt.wantErr || j.Raw != tt.raw {
			t.Errorf("ParseJob(%q) = %+v", tt.raw, j)
		}
	}
}

// The fields of a failed job are read; a field of another type is left at
// zero without failing the job.
func TestParseJobFailure(t *testing.T) {
	j := ParseJob(`{"id":"x","t":5,"fails":2,"err":"boom","failed_at":9.5,"unique":true}`)
	if j.Fails != 2 || j.LastErr != "boom" || j.FailedAt != 9 || !j.Unique || j.ParseErr != nil {
		t.Errorf("failed job: %+v", j)
	}
	j = ParseJob(`{"id":"x","t":5,"fails":"2","err":3,"unique":"yes"}`)
	if j.Fails != 0 || j.LastErr != "" || j.Unique || j.ParseErr != nil || j.EnqueuedAt != 5 {
		t.Errorf("odd fields: %+v", j)
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Plural(1, "job", "jobs"), "1 job"},
		{Plural(0, "job", "jobs"), "0 jobs"},
		{Plural(int64(3), "lock_info entry", "lock_info entries"), "3 lock_info entries"},
		{Plural(-1, "pool", "pools"), "-1 pools"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
