package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/workq-tui/workq-tui/reaper"
)

func TestSummarizeReap(t *testing.T) {
	tests := []struct {
		name       string
		res        reaper.Result
		wantFailed bool
		want       []string
	}{
		{
			name: "reaped",
			res: reaper.Result{Pools: []reaper.PoolResult{
				{PoolID: "aaa", Reaped: true, Moved: map[string]int64{"email": 3}},
			}},
			want: []string{"reaped 1 pool", "3 jobs back"},
		},
		{
			name: "another reaper finished first",
			res: reaper.Result{Pools: []reaper.PoolResult{
				{PoolID: "aaa", Reaped: true, Moved: map[string]int64{"email": 2}},
				{PoolID: "bbb", Gone: true, Skipped: "pool bbb is no longer in the set"},
			}},
			want: []string{"reaped 1 pool", "2 jobs", "bbb was already gone"},
		},
		{
			name: "gone with jobs left is a problem",
			res: reaper.Result{Pools: []reaper.PoolResult{
				{PoolID: "bbb", Gone: true, Left: 4, Skipped: "pool bbb left the set with 4 jobs in progress"},
			}},
			wantFailed: true,
			want:       []string{"reaped 0 pools", "4 jobs in progress"},
		},
		{
			name: "alive again",
			res: reaper.Result{Pools: []reaper.PoolResult{
				{PoolID: "ccc", Skipped: "pool ccc is alive again, not reaped"},
			}},
			wantFailed: true,
			want:       []string{"alive again"},
		},
		{
			name: "error",
			res: reaper.Result{Pools: []reaper.PoolResult{
				{PoolID: "ddd", Err: errors.New("boom")},
			}},
			wantFailed: true,
			want:       []string{"pool ddd: boom"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := summarizeReap(tt.res)
			if out.failed != tt.wantFailed {
				t.Errorf("failed = %v, want %v (%q)", out.failed, tt.wantFailed, out.summary)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.summary, w) {
					t.Errorf("summary %q lacks %q", out.summary, w)
				}
			}
		})
	}
}
