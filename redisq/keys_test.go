package redisq

import (
	"strings"
	"testing"
)

func TestKeysMatchGocraft(t *testing.T) {
	// Spelled as gocraft/work v0.5.1's redis.go builds them.
	k := NewKeys("work")
	cases := map[string]string{
		k.WorkerPools():                    "work:worker_pools",
		k.Heartbeat("abc"):                 "work:worker_pools:abc",
		k.KnownJobs():                      "work:known_jobs",
		k.Queue("email"):                   "work:jobs:email",
		k.InProgress("email", "abc"):       "work:jobs:email:abc:inprogress",
		k.Lock("email"):                    "work:jobs:email:lock",
		k.LockInfo("email"):                "work:jobs:email:lock_info",
		k.MaxConcurrency("email"):          "work:jobs:email:max_concurrency",
		k.Paused("email"):                  "work:jobs:email:paused",
		NewKeys("app:").WorkerPools():      "app:worker_pools",
		NewKeys("").Queue("x"):             "jobs:x",
		NewKeys("a*b").InProgressPattern(): `a\*b:jobs:*:inprogress`,
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

func TestParseInProgress(t *testing.T) {
	k := NewKeys("work")
	tests := []struct {
		key      string
		job, pid string
		ok       bool
	}{
		{"work:jobs:email:abc123:inprogress", "email", "abc123", true},
		{"work:jobs:a:b:c:abc123:inprogress", "a:b:c", "abc123", true},
		{"work:jobs::abc:inprogress", "", "", false},
		{"work:jobs:email::inprogress", "", "", false},
		{"work:jobs:abc:inprogress", "", "", false},
		{"work:jobs:email:abc:inprogres", "", "", false},
		{"other:jobs:email:abc:inprogress", "", "", false},
		{"work:jobs:email:lock", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			job, pid, ok := k.ParseInProgress(tt.key)
			if ok != tt.ok || job != tt.job || pid != tt.pid {
				t.Errorf("ParseInProgress(%q) = %q, %q, %v; want %q, %q, %v", tt.key, job, pid, ok, tt.job, tt.pid, tt.ok)
			}
			bjob, bpid, bok := k.parseInProgressBytes([]byte(tt.key))
			if bok != ok || string(bjob) != job || string(bpid) != pid {
				t.Errorf("parseInProgressBytes(%q) = %q, %q, %v; ParseInProgress says %q, %q, %v", tt.key, bjob, bpid, bok, job, pid, ok)
			}
		})
	}
}

// FuzzParseInProgress checks that parsing is the inverse of building for
// every job name (colons included) and pool ID without a colon, and that any
// key it accepts rebuilds to itself.
func FuzzParseInProgress(f *testing.F) {
	f.Add("work", "email", "0123456789abcdef01234567")
	f.Add("app:", "a:b:c", "ffff")
	f.Add("", "x:inprogress", "p")
	f.Add("work", "\x1b[31mred", "abc")
	f.Fuzz(func(t *testing.T, ns, job, pool string) {
		k := NewKeys(ns)
		key := k.InProgress(job, pool)
		gotJob, gotPool, ok := k.ParseInProgress(key)
		if job != "" && pool != "" && !strings.Contains(pool, ":") {
			if !ok || gotJob != job || gotPool != pool {
				t.Fatalf("ParseInProgress(%q) = %q, %q, %v; want %q, %q", key, gotJob, gotPool, ok, job, pool)
			}
		}
		if bjob, bpool, bok := k.parseInProgressBytes([]byte(key)); bok != ok || string(bjob) != gotJob || string(bpool) != gotPool {
			t.Fatalf("parseInProgressBytes(%q) = %q, %q, %v; ParseInProgress says %q, %q, %v", key, bjob, bpool, bok, gotJob, gotPool, ok)
		}
		if ok && k.InProgress(gotJob, gotPool) != key {
			t.Fatalf("accepted %q but it rebuilds to %q", key, k.InProgress(gotJob, gotPool))
		}
	})
}
