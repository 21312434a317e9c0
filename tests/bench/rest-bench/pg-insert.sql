\set u random(0, 199)
\set n random(1, 1000000000000000)
BEGIN;
INSERT INTO likes (usr, item, created_at)
  VALUES ('u' || :u::int, 'n' || :n::bigint, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  ON CONFLICT DO NOTHING;
INSERT INTO counters VALUES ('out_u' || :u::int, 1) ON CONFLICT (key) DO UPDATE SET n = counters.n + 1;
INSERT INTO counters VALUES ('in_n' || :n::bigint, 1) ON CONFLICT (key) DO UPDATE SET n = counters.n + 1;
END;
