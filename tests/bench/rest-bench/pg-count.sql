\set u random(0, 199)
SELECT n FROM counters WHERE key = 'out_u' || :u::int;
