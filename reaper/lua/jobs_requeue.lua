-- jobs_requeue.lua: move members of a job set onto their queues, each only
-- if it is still in the set (with the score the plan read, when it read
-- one), in one atomic step.
--
-- KEYS[1]    the job set (<ns>:retry, <ns>:scheduled or <ns>:dead)
-- KEYS[2..]  the queues this call pushes onto (<ns>:jobs:<name>)
-- ARGV, five per member:
--   the member's exact bytes, its score as Redis wrote it ('' for a member
--   of a bulk plan, which is taken at any score: its bytes are the job),
--   the new job's bytes before its `t` value, the bytes after it,
--   the index in KEYS of its queue.
--
-- The caller cuts the new job from the exact bytes it read, so only `t`
-- (and, for dead jobs, the failure fields) change, and every other byte
-- stays. `t` is Redis's clock, read here: the same clock the workers' jobs
-- use.
--
-- Every member is checked first; then each queue gets its new jobs in one
-- LPUSH (in the members' order: the same list as one LPUSH per member, the
-- back of the line, as gocraft/work requeues), and only then are they
-- removed from the set, so a write refused half-way (out of memory) can
-- leave a job in both places but never in neither.
--
-- Returns {'ok', codes, now} with one character per member: 'm' moved, 'g'
-- gone from the set (or named twice in this call: moved once), 's' still
-- there at another score (left alone), and the `t` written (the journal
-- records it: the exact bytes pushed); or {'wrongtype', key} with nothing
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

local now = redis.call('TIME')[1]

-- unpack passes at most a few thousand values to one call.
local step = 1000

-- Every member's score, in the members' order (false when it is not in
-- the set): one ZMSCORE a step of members where Redis has it (6.2 and
-- later), else one ZSCORE a member. Nothing is written before all are
-- read, so reading them first reads what reading each in turn would.
local members, scores = {}, {}
for i = 1, #ARGV, 5 do
  members[#members + 1] = ARGV[i]
end
for s = 1, #members, step do
  local got = redis.pcall('ZMSCORE', KEYS[1], unpack(members, s, math.min(s + step - 1, #members)))
  if type(got) ~= 'table' or got.err then
    scores = nil
    break
  end
  for j = 1, math.min(step, #members - s + 1) do
    scores[s + j - 1] = got[j]
  end
end
if not scores then
  scores = {}
  for j = 1, #members do
    scores[j] = redis.call('ZSCORE', KEYS[1], members[j])
  end
end

local codes, taken, moved, pushes = {}, {}, {}, {}
for i = 1, #ARGV, 5 do
  local member = ARGV[i]
  local score = not taken[member] and scores[(i + 4) / 5]
  if not score then
    codes[#codes + 1] = 'g'
  elseif ARGV[i + 1] ~= '' and score ~= ARGV[i + 1] and tonumber(score) ~= tonumber(ARGV[i + 1]) then
    codes[#codes + 1] = 's'
  else
    taken[member] = true
    moved[#moved + 1] = member
    local q = tonumber(ARGV[i + 4])
    local list = pushes[q]
    if not list then
      list = {}
      pushes[q] = list
    end
    list[#list + 1] = ARGV[i + 2] .. now .. ARGV[i + 3]
    codes[#codes + 1] = 'm'
  end
end

local function each(cmd, key, values)
  for s = 1, #values, step do
    redis.call(cmd, key, unpack(values, s, math.min(s + step - 1, #values)))
  end
end
for q = 2, #KEYS do
  if pushes[q] then
    each('LPUSH', KEYS[q], pushes[q])
  end
end
each('ZREM', KEYS[1], moved)
return {'ok', table.concat(codes), now}
