// The Lua scripts of the reaper, embedded from lua/. Every script checks
// everything it needs before its first write (Redis does not roll a script
// back) and re-checks what the plan saw.

package reaper

import (
	_ "embed"

	"github.com/gomodule/redigo/redis"
)

var (
	//go:embed lua/check.lua
	luaCheck string
	//go:embed lua/reap_batch.lua
	luaReapBatch string
	//go:embed lua/reap_final.lua
	luaReapFinal string
	//go:embed lua/requeue.lua
	luaRequeue string
	//go:embed lua/repair_locks.lua
	luaRepairLocks string
	//go:embed lua/reap_leaked.lua
	luaReapLeaked string
	//go:embed lua/remove_leaked.lua
	luaRemoveLeaked string
	//go:embed lua/delete_unique.lua
	luaDeleteUnique string
)

// scripts are a Reaper's scripts (a redis.Script holds only its text and
// hash).
type scripts struct {
	// reapBatch and reapFinal take a variable number of keys: the pool's,
	// then per job type (see lua/reap_batch.lua, lua/reap_final.lua); both
	// start with lua/check.lua.
	reapBatch, reapFinal *redis.Script
	// requeue moves one batch of one list (lua/requeue.lua). It is not
	// reap_batch.lua with a mode: it serves lists of pools outside the set
	// (orphans), judges the pool by its heartbeat alone, never creates a
	// lock_info field and never lets lock go below 0, where the reap keeps
	// upstream's arithmetic for the same end state as upstream's reaper.
	requeue *redis.Script
	// repairLocks resets one job type's counters (lua/repair_locks.lua).
	repairLocks *redis.Script
	// reapLeaked removes a dead pool's leaked entries before its reap
	// (lua/reap_leaked.lua, after lua/check.lua).
	reapLeaked *redis.Script
	// removeLeaked removes one leaked entry (lua/remove_leaked.lua).
	removeLeaked *redis.Script
	// deleteUnique deletes one unique key still holding the planned value
	// (lua/delete_unique.lua).
	deleteUnique *redis.Script
}

func newScripts() scripts {
	return scripts{
		reapBatch:    redis.NewScript(-1, luaCheck+"\n"+luaReapBatch),
		reapFinal:    redis.NewScript(-1, luaCheck+"\n"+luaReapFinal),
		requeue:      redis.NewScript(5, luaRequeue),
		repairLocks:  redis.NewScript(-1, luaRepairLocks),
		reapLeaked:   redis.NewScript(-1, luaCheck+"\n"+luaReapLeaked),
		removeLeaked: redis.NewScript(2, luaRemoveLeaked),
		deleteUnique: redis.NewScript(1, luaDeleteUnique),
	}
}
