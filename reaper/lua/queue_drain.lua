-- queue_drain.lua: take jobs a query matched out of a queue, each by its
-- exact bytes near the position the plan saw it at, and delete them or
-- park them in the dead set, in one atomic step.
--
-- KEYS[1]    the queue <ns>:jobs:<name>
-- KEYS[2]    the dead set <ns>:dead (a park writes it; a delete does not)
-- KEYS[3..]  unique keys of jobs of this call, deleted with their job
-- ARGV[1]    a tombstone: bytes no job holds (random, one per call)
-- ARGV[2]    'p' to park, 'd' to delete
-- ARGV[3]    the shift guessed: how many jobs ahead of these left the queue
--            since the plan read them
-- ARGV, five per job, in run order:
--   its exact bytes,
--   the most its run-order position can be now (0 runs next): jobs only
--   leave from the right end, so a job never moves further back,
--   the index in KEYS of its unique key (0: none),
--   its bytes in the dead set and its score there (a park; '' otherwise).
--
-- Each job takes at most one copy of its bytes, at a position no later than
-- its bound: one found at its guessed place (bound - shift), else the
-- nearest to the right end within the bound (LPOS). A job taken is first
-- replaced by the tombstone; all tombstones go in one LREM at the end,
-- from the end of the queue nearer them, so the call never removes more
-- than it was given.
--
-- Returns {'ok', codes, shift, then per job its position and the bytes of
-- the job just ahead of it that stays ('' at the front)}; codes has one
-- character per job: 'd' taken, 'u' taken with its unique key, 'g' gone.
-- Or {'wrongtype', key} with nothing written.

local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'list' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end
local park = ARGV[2] == 'p'
if park then
  local d = redis.call('TYPE', KEYS[2])['ok']
  if d ~= 'zset' and d ~= 'none' then
    return {'wrongtype', KEYS[2]}
  end
end
local tomb = ARGV[1]
local shift = tonumber(ARGV[3])
local len = redis.call('LLEN', KEYS[1])
local codes, out = {}, {}
local taken = 0
local lo, hi = len, -1 -- the nearest and furthest run-order positions taken
for i = 4, #ARGV, 5 do
  local job, bound, u = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local found = -1
  local guess = bound - shift
  -- One look at the guessed place reads the job there and the one just
  -- ahead of it (nearer the right end).
  local near = {}
  if guess >= 0 and guess < len then
    if guess > 0 then
      near = redis.call('LRANGE', KEYS[1], -(guess + 1), -guess)
    else
      near = {redis.call('LINDEX', KEYS[1], -1)}
    end
  end
  if near[1] == job then
    found = guess
  else
    near = {}
    local idx = redis.call('LPOS', KEYS[1], job, 'RANK', -1, 'MAXLEN', math.min(bound + 1, len))
    if idx then
      found = len - 1 - idx
      shift = bound - found
    end
  end
  if found < 0 then
    codes[#codes + 1] = 'g'
    out[#out + 1] = 0
    out[#out + 1] = ''
  else
    redis.call('LSET', KEYS[1], -(found + 1), tomb)
    taken = taken + 1
    lo = math.min(lo, found)
    hi = math.max(hi, found)
    local ahead = ''
    if near[2] and near[2] ~= tomb then
      ahead = near[2]
    else
      for k = found - 1, 0, -1 do
        local v = redis.call('LINDEX', KEYS[1], -(k + 1))
        if v ~= tomb then
          ahead = v
          break
        end
      end
    end
    if park then
      redis.call('ZADD', KEYS[2], ARGV[i + 4], ARGV[i + 3])
    end
    local code = 'd'
    if u > 0 and redis.call('DEL', KEYS[u]) == 1 then
      code = 'u'
    end
    codes[#codes + 1] = code
    out[#out + 1] = found
    out[#out + 1] = ahead
  end
end
-- LREM walks from the end it starts at to the last tombstone it removes:
-- start at the end nearer the tombstones.
if taken > 0 then
  if hi + 1 <= len - lo then
    redis.call('LREM', KEYS[1], -taken, tomb)
  else
    redis.call('LREM', KEYS[1], taken, tomb)
  end
end
local reply = {'ok', table.concat(codes), tostring(shift)}
for _, v in ipairs(out) do
  reply[#reply + 1] = v
end
return reply
