// Package variants loads Redis states recorded from gocraft/work's master
// branch (5959e69, never tagged) and the gojek/work fork (v0.7.8) into a
// Redis, for tests of how workq-tui reads and writes namespaces those
// builds wrote. The module proxy serves neither (gojek/work is another
// module path, master is a pseudo-version the tests cannot pin), so their
// code was driven once, on a real Redis, and what it wrote is kept as data
// in testdata/: every key of the namespace with its type, its exact bytes
// (base64, as encoding/json writes []byte), its time to live, and the
// upstream file:line that writes it. No upstream source is in this
// repository.
//
// The recordings (the driver field of each file says what ran):
//
//   - master-live.json, gojek-live.json: EnqueueUniqueByKey of a job twice
//     with the same key map (the second is refused and rewrites the unique
//     key with its own job), then a pool with MaxConcurrency 1 ran the job
//     read from the key: its stand-in stayed in the pool's in-progress
//     list while lock and lock_info went back to 0. Read while the pool
//     was alive and idle.
//   - master-queued.json, gojek-queued.json: the two enqueues alone, no
//     pool: the queue holds the first job's stand-in, the unique key the
//     second job, the one a worker would run.
//   - master-dead.json, gojek-dead.json: the same, then the pool's process
//     killed with SIGKILL, and one more EnqueueUniqueByKey with the same key
//     map, accepted (the worker had deleted the key): a dead pool holding a
//     leaked stand-in, a new stand-in queued, the key holding its job.
package variants

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gomodule/redigo/redis"
)

// Key is one recorded key.
type Key struct {
	Key  string `json:"key"`
	Type string `json:"type"`
	// PTTL is the time to live left when read, in milliseconds (0: none).
	PTTL   int64             `json:"pttl_ms,omitempty"`
	String []byte            `json:"string,omitempty"`
	List   [][]byte          `json:"list,omitempty"`
	Hash   map[string][]byte `json:"hash,omitempty"`
	Set    [][]byte          `json:"set,omitempty"`
	// WrittenBy names the upstream lines that write the key.
	WrittenBy string `json:"written_by"`
}

// State is one recording.
type State struct {
	Source    string `json:"source"`
	Commit    string `json:"commit"`
	Driver    string `json:"driver"`
	Namespace string `json:"namespace"`
	// RedisTime is Redis's clock (unix seconds) when the keys were read.
	RedisTime int64 `json:"redis_time"`
	Keys      []Key `json:"keys"`
}

// Read reads a recording from testdata by file name.
func Read(t testing.TB, name string) State {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// Key returns the recorded key whose name is the namespace, a colon and
// rest; with rest ending in "*", the first whose name starts so.
func (s State) Key(t testing.TB, rest string) Key {
	t.Helper()
	want := s.Namespace + ":" + rest
	for _, k := range s.Keys {
		if k.Key == want || strings.HasSuffix(want, "*") && strings.HasPrefix(k.Key, strings.TrimSuffix(want, "*")) {
			return k
		}
	}
	t.Fatalf("no key %s in the recording", want)
	return Key{}
}

// PoolID is the recorded pool's ID (the one member of worker_pools).
func (s State) PoolID(t testing.TB) string {
	t.Helper()
	k := s.Key(t, "worker_pools")
	if len(k.Set) != 1 {
		t.Fatalf("recording has %d pools, want 1", len(k.Set))
	}
	return string(k.Set[0])
}

// Load writes every recorded key into Redis through c, exactly as recorded
// (lists in order, times to live as they were left). With alive, the
// pools' heartbeat_at is set to Redis's clock now, so that the recorded
// pool reads as a live, idle pool; without, the recorded heartbeat_at is
// kept, which is more than 10 s ago by the time a test runs: a dead pool.
func Load(t testing.TB, c redis.Conn, s State, alive bool) {
	t.Helper()
	var now int64
	if alive {
		tm, err := redis.Int64s(c.Do("TIME"))
		if err != nil {
			t.Fatal(err)
		}
		now = tm[0]
	}
	for _, k := range s.Keys {
		args := []interface{}{k.Key}
		var cmd string
		switch k.Type {
		case "string":
			cmd, args = "SET", append(args, k.String)
		case "list":
			cmd = "RPUSH"
			for _, v := range k.List {
				args = append(args, v)
			}
		case "set":
			cmd = "SADD"
			for _, v := range k.Set {
				args = append(args, v)
			}
		case "hash":
			cmd = "HSET"
			for f, v := range k.Hash {
				if alive && f == "heartbeat_at" && strings.HasPrefix(k.Key, s.Namespace+":worker_pools:") {
					v = fmt.Appendf(nil, "%d", now)
				}
				args = append(args, f, v)
			}
		default:
			t.Fatalf("%s: type %s not loaded", k.Key, k.Type)
		}
		if _, err := c.Do(cmd, args...); err != nil {
			t.Fatalf("load %s: %v", k.Key, err)
		}
		if k.PTTL > 0 {
			if _, err := c.Do("PEXPIRE", k.Key, k.PTTL); err != nil {
				t.Fatalf("load %s: %v", k.Key, err)
			}
		}
	}
}
