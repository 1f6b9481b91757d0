-- jobs_requeue.lua: move members of a job set onto their queues, each only
-- if it is still in the set with the score the plan read, in one atomic
-- step.
--
-- KEYS[1]    the job set (<ns>:retry, <ns>:scheduled or <ns>:dead)
-- KEYS[2..]  the queues this call pushes onto (<ns>:jobs:<name>)
-- ARGV, five per member:
--   the member's exact bytes, its score as Redis wrote it,
--   the recipe of the new job, the literal the recipe may use,
--   the index in KEYS of its queue.
--
-- The recipe is made by the caller from the exact bytes it read: comma
-- separated, "s-e" copies bytes s to e of the member, "T" writes the new
-- `t`, "L" the literal (`,"t":` for a job that had none). So only `t` (and,
-- for dead jobs, the failure fields) change, and every other byte stays.
-- `t` is Redis's clock, read here: the same clock the workers' jobs use.
--
-- Returns {'ok', codes} with one character per member: 'm' moved (ZREM and
-- LPUSH, the back of the line, as gocraft/work requeues), 'g' gone from the
-- set, 's' still there at another score (left alone); or
-- {'wrongtype', key} with nothing written.

if redis.replicate_commands then
  redis.replicate_commands()
end

local function typeOf(key)
  return redis.call('TYPE', key)['ok']
end

local t = typeOf(KEYS[1])
if t ~= 'zset' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end
for i = 2, #KEYS do
  t = typeOf(KEYS[i])
  if t ~= 'list' and t ~= 'none' then
    return {'wrongtype', KEYS[i]}
  end
end

local now = redis.call('TIME')[1]

local function build(member, recipe, lit)
  local out = {}
  for tok in string.gmatch(recipe, '[^,]+') do
    if tok == 'T' then
      out[#out + 1] = now
    elseif tok == 'L' then
      out[#out + 1] = lit
    else
      local s, e = string.match(tok, '^(%d+)-(%d+)$')
      out[#out + 1] = string.sub(member, tonumber(s), tonumber(e))
    end
  end
  return table.concat(out)
end

local codes = {}
for i = 1, #ARGV, 5 do
  local member = ARGV[i]
  local score = redis.call('ZSCORE', KEYS[1], member)
  if not score then
    codes[#codes + 1] = 'g'
  elseif score ~= ARGV[i + 1] and tonumber(score) ~= tonumber(ARGV[i + 1]) then
    codes[#codes + 1] = 's'
  else
    redis.call('ZREM', KEYS[1], member)
    redis.call('LPUSH', KEYS[tonumber(ARGV[i + 4])], build(member, ARGV[i + 2], ARGV[i + 3]))
    codes[#codes + 1] = 'm'
  end
end
return {'ok', table.concat(codes)}
