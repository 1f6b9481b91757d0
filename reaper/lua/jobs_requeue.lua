-- jobs_requeue.lua: move members of a job set onto their queues, each only
-- if it is still in the set (with the score the plan read, when it read
-- one), in one atomic step.
--
-- KEYS[1]    the job set (<ns>:retry, <ns>:scheduled or <ns>:dead)
-- KEYS[2..]  the queues this call pushes onto (<ns>:jobs:<name>)
-- ARGV[1]    the `t` the new jobs carry (Redis's clock as the caller read
--            it), returned as the call's clock
-- ARGV[2..]  n members in four runs of n values each:
--   the members' exact bytes;
--   their scores as Redis wrote them ('' for a member of a bulk plan,
--   which is taken at any score: its bytes are the job);
--   the new jobs' bytes;
--   the index in KEYS of each one's queue.
--
-- The caller cuts each new job from the exact bytes it read, so only `t`
-- (and, for dead jobs, the failure fields) change, and every other byte
-- stays. The runs keep each kind of value together, so that the members
-- and the new jobs go to ZMSCORE, LPUSH and ZREM as they came, without a
-- table built of them here (a quarter of the call's time in Redis).
--
-- Every member is checked first; then each queue gets its new jobs in one
-- LPUSH (in the members' order: the same list as one LPUSH per member, the
-- back of the line, as gocraft/work requeues), and only then are they
-- removed from the set, so a write refused half-way (out of memory) can
-- leave a job in both places but never in neither.
--
-- Returns {'ok', codes, t} with one character per member: 'm' moved, 'g'
-- gone from the set (or named twice in this call: moved once), 's' still
-- there at another score (left alone); or {'wrongtype', key} with nothing
-- written.

if redis.replicate_commands then
  redis.replicate_commands()
end

local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'zset' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end
for i = 2, #KEYS do
  t = redis.call('TYPE', KEYS[i])['ok']
  if t ~= 'list' and t ~= 'none' then
    return {'wrongtype', KEYS[i]}
  end
end

local n = (#ARGV - 1) / 4
-- Where each run starts, less one.
local members, scores, jobs, queues = 1, 1 + n, 1 + 2 * n, 1 + 3 * n

-- unpack passes at most a few thousand values to one call.
local step = 1000

-- Every member's score, in the members' order (false when it is not in
-- the set): one ZMSCORE a step of members where Redis has it (6.2 and
-- later), else one ZSCORE a member. Nothing is written before all are
-- read, so reading them first reads what reading each in turn would.
local got = {}
for s = 1, n, step do
  local e = math.min(s + step - 1, n)
  local r = redis.pcall('ZMSCORE', KEYS[1], unpack(ARGV, members + s, members + e))
  if type(r) ~= 'table' or r.err then
    got = nil
    break
  end
  for j = 1, e - s + 1 do
    got[s + j - 1] = r[j]
  end
end
if not got then
  got = {}
  for j = 1, n do
    got[j] = redis.call('ZSCORE', KEYS[1], ARGV[members + j])
  end
end

local codes, taken = {}, {}
local every = true
for i = 1, n do
  local member = ARGV[members + i]
  local score = not taken[member] and got[i]
  local want = ARGV[scores + i]
  if not score then
    codes[i] = 'g'
    every = false
  elseif want ~= '' and score ~= want and tonumber(score) ~= tonumber(want) then
    codes[i] = 's'
    every = false
  else
    taken[member] = true
    codes[i] = 'm'
  end
end

-- from..to of ARGV, or of values when given, to cmd on key, a step at a
-- time.
local function each(cmd, key, from, to, values)
  values = values or ARGV
  for s = from, to, step do
    redis.call(cmd, key, unpack(values, s, math.min(s + step - 1, to)))
  end
end

if every and #KEYS == 2 then
  -- Every member moves onto the one queue: the runs as they came.
  each('LPUSH', KEYS[2], jobs + 1, jobs + n)
  each('ZREM', KEYS[1], members + 1, members + n)
else
  local moved, pushes = {}, {}
  for i = 1, n do
    if codes[i] == 'm' then
      moved[#moved + 1] = ARGV[members + i]
      local q = tonumber(ARGV[queues + i])
      local list = pushes[q]
      if not list then
        list = {}
        pushes[q] = list
      end
      list[#list + 1] = ARGV[jobs + i]
    end
  end
  for q = 2, #KEYS do
    if pushes[q] then
      each('LPUSH', KEYS[q], 1, #pushes[q], pushes[q])
    end
  end
  each('ZREM', KEYS[1], 1, #moved, moved)
end
return {'ok', table.concat(codes), ARGV[1]}
