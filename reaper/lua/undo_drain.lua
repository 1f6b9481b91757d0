-- undo_drain.lua: put jobs a query took out of a queue back, each just
-- behind the job that was ahead of it when it was taken while that job is
-- still queued, else at the queue's head (they run next: the queue has
-- moved past their place), in one atomic step. Parked jobs leave the dead
-- set.
--
-- KEYS[1]    the queue
-- KEYS[2]    the dead set (a park's undo; the queue again for a delete's)
-- KEYS[3..]  unique keys of jobs of this call
-- ARGV[1]    how many jobs from the right end (the head) to rewrite: enough
--            to hold every job ahead of these when they were taken
-- ARGV, seven per job, in reverse run order (the last taken first):
--   its exact bytes in the queue,
--   its bytes in the dead set ('' for a delete),
--   the bytes of the job ahead of it ('' none: at the head),
--   the index in KEYS of its unique key (0: none to put back),
--   that key's value before, when it would have expired (Redis's clock in
--   ms; 0: never),
--   'y' when the take is known to have happened, '?' when its reply was
--   never read.
--
-- A job found in the region already is left alone ('b'); a parked job no
-- longer in the dead set (requeued or deleted since) is left alone ('m');
-- a '?' job of a delete not in the queue is put back (its take ran).
--
-- Returns {'ok', codes}: 'r' put back, 'u' with its unique key, 'e' its key
-- expired since, 'k' its key held by another, 'b' already back, 'm' moved
-- on; or {'wrongtype', key}.

local t = redis.call('TYPE', KEYS[1])['ok']
if t ~= 'list' and t ~= 'none' then
  return {'wrongtype', KEYS[1]}
end
if KEYS[2] ~= KEYS[1] then
  local d = redis.call('TYPE', KEYS[2])['ok']
  if d ~= 'zset' and d ~= 'none' then
    return {'wrongtype', KEYS[2]}
  end
end
local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
local want = tonumber(ARGV[1])
local region = redis.call('LRANGE', KEYS[1], -want, -1)
local n = #region
local at, present = {}, {}
for i = 1, n do
  present[region[i]] = true
  at[region[i]] = i
end
-- behind[i]: jobs put just behind region[i] (left of it), in the order
-- they are processed; head: jobs put at the right end.
local behind, head = {}, {}
local codes = {}
local any = false
for i = 2, #ARGV, 7 do
  local job, dead, ahead = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local u = tonumber(ARGV[i + 3])
  if present[job] then
    codes[#codes + 1] = 'b'
  elseif dead ~= '' and not redis.call('ZSCORE', KEYS[2], dead) then
    codes[#codes + 1] = 'm'
  else
    if dead ~= '' then
      redis.call('ZREM', KEYS[2], dead)
    end
    local slot = nil
    if ahead ~= '' then
      slot = at[ahead]
    end
    if slot then
      behind[slot] = behind[slot] or {}
      table.insert(behind[slot], job)
    else
      head[#head + 1] = job
    end
    present[job] = true
    any = true
    local code = 'r'
    if u > 0 then
      local deadline = tonumber(ARGV[i + 5])
      if redis.call('EXISTS', KEYS[u]) == 1 then
        code = 'k'
      elseif deadline == 0 then
        redis.call('SET', KEYS[u], ARGV[i + 4])
        code = 'u'
      elseif deadline - now > 0 then
        redis.call('SET', KEYS[u], ARGV[i + 4], 'PX', deadline - now)
        code = 'u'
      else
        code = 'e'
      end
    end
    codes[#codes + 1] = code
  end
end
if any then
  local out = {}
  for i = 1, n do
    if behind[i] then
      -- Processed last-taken first, each right behind region[i]: the
      -- first processed ends up furthest back.
      for _, v in ipairs(behind[i]) do
        out[#out + 1] = v
      end
    end
    out[#out + 1] = region[i]
  end
  for _, v in ipairs(head) do
    out[#out + 1] = v
  end
  redis.call('LTRIM', KEYS[1], 0, -(n + 1))
  for s = 1, #out, 1000 do
    redis.call('RPUSH', KEYS[1], unpack(out, s, math.min(s + 999, #out)))
  end
end
return {'ok', table.concat(codes)}
