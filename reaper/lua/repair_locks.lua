-- repair_locks.lua: reset one job type's lock and lock_info from its
-- in-progress lists, in one atomic step.
--
-- KEYS[1]    <ns>:worker_pools
-- KEYS[2]    <ns>:jobs:<job>:lock
-- KEYS[3]    <ns>:jobs:<job>:lock_info
-- KEYS[3+i]  <ns>:jobs:<job>:<pool i>:inprogress, one per pool of the set
-- ARGV[i]    pool i's ID, in the same order as KEYS[3+i], for i = 1..#KEYS-3
-- then pairs (pool index i, exact bytes): leaked in-progress entries of
--            pool i's list, stand-ins of jobs that already ended (they
--            hold no slot): each one still in the list is not counted
--
-- The plan read the set; if it is not exactly ARGV now, a pool came or went
-- and its list would be missed or counted wrongly: nothing is changed and
-- the reply is {'changed'}. Every type is checked before the first write
-- (Redis does not roll a script back): {'wrongtype', key}.
--
-- Otherwise:
--   lock            := the total length of the lists
--   lock_info[pool] := the length of pool's list, for each pool whose list
--                      is not empty; every other field is removed (pools
--                      outside the set, and pools holding no job of this
--                      type: gocraft/work reads a missing field as 0, so a
--                      0 entry says nothing, and the result depends on the
--                      lists alone, so running the repair again is a no-op).
--   A missing lock stays missing when the total is 0.
-- Reply: {'ok', lock, field1, n1, field2, n2, ...}.

local function typeOf(key)
  local t = redis.call('TYPE', key)
  if type(t) == 'table' then
    t = t['ok']
  end
  return t
end

local want = {[1] = 'set', [2] = 'string', [3] = 'hash'}
for i = 1, #KEYS do
  local w = want[i] or 'list'
  local t = typeOf(KEYS[i])
  if t ~= 'none' and t ~= w then
    return {'wrongtype', KEYS[i]}
  end
end

local npools = #KEYS - 3
local members = redis.call('SMEMBERS', KEYS[1])
if #members ~= npools then
  return {'changed'}
end
local planned = {}
for i = 1, npools do
  planned[ARGV[i]] = true
end
for _, m in ipairs(members) do
  if not planned[m] then
    return {'changed'}
  end
end

-- leaked[i] lists the bytes of pool i's leaked entries; each found in the
-- list (once per listing) is left out of its count.
local leaked = {}
for a = npools + 1, #ARGV - 1, 2 do
  local i = tonumber(ARGV[a])
  leaked[i] = leaked[i] or {}
  leaked[i][#leaked[i] + 1] = ARGV[a + 1]
end
local function leakedIn(i)
  if not leaked[i] then
    return 0
  end
  local want = {}
  for _, b in ipairs(leaked[i]) do
    want[b] = (want[b] or 0) + 1
  end
  local n = 0
  for _, el in ipairs(redis.call('LRANGE', KEYS[3 + i], 0, -1)) do
    if want[el] and want[el] > 0 then
      want[el] = want[el] - 1
      n = n + 1
    end
  end
  return n
end

local total = 0
local held = {}
for i = 1, npools do
  local n = redis.call('LLEN', KEYS[3 + i]) - leakedIn(i)
  if n > 0 then
    held[ARGV[i]] = n
    total = total + n
  end
end

for _, f in ipairs(redis.call('HKEYS', KEYS[3])) do
  if not held[f] then
    redis.call('HDEL', KEYS[3], f)
  end
end
local reply = {'ok', total}
for i = 1, npools do
  local n = held[ARGV[i]]
  if n then
    redis.call('HSET', KEYS[3], ARGV[i], n)
    reply[#reply + 1] = ARGV[i]
    reply[#reply + 1] = n
  end
end

if total ~= 0 or redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('SET', KEYS[2], total)
end
return reply
